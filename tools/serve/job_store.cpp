#include "job_store.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cctype>
#include <ctime>
#include <string>

#include "error.h"
#include "sqlite_job_store.h"
#ifdef LSM_HAVE_LIBPQ
#include "postgres_job_store.h"
#endif

namespace lsm::serve {

namespace {

std::string format_time(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

}  // namespace

const char* const kJobColumns =
    "id, process, status, message, progress, created, started, finished, updated, request, client_fault, node, owner";

const char* const kStatusChangeSet =
    "SET status = $2, message = $3, updated = $4, "
    "started = CASE WHEN $2 = 'running' THEN $4 ELSE started END, "
    "finished = CASE WHEN $2 IN ('successful', 'failed', 'dismissed') THEN $4 ELSE finished END, "
    "progress = CASE WHEN $2 = 'successful' THEN 100 ELSE progress END, client_fault = CAST($5 AS INTEGER) ";

std::string filter_sql(const JobFilter& filter, std::vector<std::string>& params,
                       const std::function<std::string(const std::string&, const std::string&)>& seconds_between) {
  std::vector<std::string> terms;
  const auto next = [&](const std::string& value) {
    params.push_back(value);
    return "$" + std::to_string(params.size());
  };
  if (filter.none) terms.push_back("1 = 0");
  if (filter.owner) terms.push_back("owner = " + next(*filter.owner));
  const auto any_of = [&](const char* column, const std::vector<std::string>& values) {
    if (values.empty()) return;
    std::string term = std::string(column) + " IN (";
    for (size_t i = 0; i < values.size(); ++i) term += (i ? ", " : "") + next(values[i]);
    terms.push_back(term + ")");
  };
  any_of("process", filter.processes);
  any_of("status", filter.statuses);
  if (!filter.created_from.empty()) terms.push_back("created >= " + next(filter.created_from));
  if (!filter.created_to.empty()) terms.push_back("created <= " + next(filter.created_to));
  if (filter.min_seconds || filter.max_seconds) {
    // Running jobs run until now; a job that never started has no duration.
    const std::string duration =
        seconds_between("(CASE WHEN finished = '' THEN " + next(now_rfc3339()) + " ELSE finished END)", "started");
    terms.push_back("started <> ''");
    if (filter.min_seconds) terms.push_back(duration + " >= " + std::to_string(*filter.min_seconds));
    if (filter.max_seconds) terms.push_back(duration + " <= " + std::to_string(*filter.max_seconds));
  }
  std::string sql;
  for (size_t i = 0; i < terms.size(); ++i) sql += (i ? " AND " : " WHERE ") + terms[i];
  return sql;
}

std::optional<std::string> normalized_rfc3339(const std::string& text) {
  // date "T" time [fraction] ("Z" | ±hh:mm), RFC 3339 section 5.6 (T and Z in either case).
  int y, mo, d, h, mi, sec, consumed = 0;
  if (text.size() > 64 ||
      std::sscanf(text.c_str(), "%4d-%2d-%2d%*1[Tt]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6 ||
      consumed != 19)
    return std::nullopt;
  size_t i = 19;
  double fraction = 0;
  if (i < text.size() && text[i] == '.') {
    size_t digits = i + 1;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (digits == i + 1) return std::nullopt;
    fraction = std::stod("0" + text.substr(i, digits - i));
    i = digits;
  }
  int offset_minutes = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    int oh = 0, om = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59) return std::nullopt;
    offset_minutes = (text[i] == '-' ? -1 : 1) * (oh * 60 + om);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  std::tm t{};
  t.tm_year = y - 1900;
  t.tm_mon = mo - 1;
  t.tm_mday = d;
  t.tm_hour = h;
  t.tm_min = mi;
  t.tm_sec = sec;
  const int64_t seconds = static_cast<int64_t>(timegm(&t)) - int64_t(offset_minutes) * 60;
  const auto point = std::chrono::system_clock::time_point(
      std::chrono::milliseconds(seconds * 1000 + static_cast<int64_t>(fraction * 1000)));
  return format_time(point);
}

std::string now_rfc3339() { return format_time(std::chrono::system_clock::now()); }

std::string rfc3339_seconds_ago(double seconds_ago) {
  return format_time(std::chrono::system_clock::now() -
                     std::chrono::milliseconds(static_cast<int64_t>(seconds_ago * 1000)));
}

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::unique_ptr<JobStore> open_job_store(const std::string& spec, const std::string& work_dir) {
  if (spec.empty() || spec == "sqlite") return std::make_unique<SqliteJobStore>(work_dir + "/jobs.sqlite");
  if (spec.rfind("postgresql://", 0) == 0 || spec.rfind("postgres://", 0) == 0) {
#ifdef LSM_HAVE_LIBPQ
    return std::make_unique<PostgresJobStore>(spec);
#else
    throw Error(ErrorKind::BadInput,
                "--job-store postgresql://: this lsm was built without libpq (install libpq-dev and rebuild)");
#endif
  }
  // Only up to "://": what follows may hold a password.
  throw Error(ErrorKind::BadInput, "--job-store must be 'sqlite' or a postgresql:// URI (got '" +
                                       spec.substr(0, std::min<size_t>(spec.find("://"), 40)) + "')");
}

}  // namespace lsm::serve
