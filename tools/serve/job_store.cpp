#include "job_store.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

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

std::string filter_sql(const JobFilter& filter, std::vector<std::string>& params) {
  std::vector<std::string> terms;
  const auto next = [&](const std::string& value) {
    params.push_back(value);
    return "$" + std::to_string(params.size());
  };
  if (filter.owner) terms.push_back("owner = " + next(*filter.owner));
  const auto any_of = [&](const char* column, const std::vector<std::string>& values) {
    if (values.empty()) return;
    std::string term = std::string(column) + " IN (";
    for (size_t i = 0; i < values.size(); ++i) term += (i ? ", " : "") + next(values[i]);
    terms.push_back(term + ")");
  };
  any_of("process", filter.processes);
  any_of("status", filter.statuses);
  std::string sql;
  for (size_t i = 0; i < terms.size(); ++i) sql += (i ? " AND " : " WHERE ") + terms[i];
  return sql;
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
