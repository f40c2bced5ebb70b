#include "job_store.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "error.h"

namespace lsm::serve {

namespace {

// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
      throw Error(ErrorKind::Io, std::string("job store: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement& text(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& integer(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  bool step(sqlite3* db) {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(ErrorKind::Io, std::string("job store: ") + sqlite3_errmsg(db));
  }
  std::string column_text(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t column_integer(int i) const { return sqlite3_column_int64(s_, i); }

 private:
  sqlite3_stmt* s_ = nullptr;
};

const char* kColumns =
    "id, process, status, message, progress, created, started, finished, updated, request, client_fault";

JobRecord record_of(const Statement& s) {
  JobRecord j;
  j.id = s.column_text(0);
  j.process = s.column_text(1);
  j.status = s.column_text(2);
  j.message = s.column_text(3);
  j.progress = static_cast<int>(s.column_integer(4));
  j.created = s.column_text(5);
  j.started = s.column_text(6);
  j.finished = s.column_text(7);
  j.updated = s.column_text(8);
  j.request = s.column_text(9);
  j.client_fault = s.column_integer(10) != 0;
  return j;
}

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

std::string now_rfc3339() { return format_time(std::chrono::system_clock::now()); }

std::string rfc3339_seconds_ago(double seconds_ago) {
  return format_time(std::chrono::system_clock::now() -
                     std::chrono::milliseconds(static_cast<int64_t>(seconds_ago * 1000)));
}

JobStore::JobStore(const std::string& path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw Error(ErrorKind::Io, "cannot open the job store '" + path + "': " + why);
  }
  sqlite3_busy_timeout(db_, 5000);
  // WAL: readers never wait for the writer; NORMAL sync is durable across a
  // process crash (a power loss may lose the last commits, not corrupt).
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  exec("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, process TEXT NOT NULL, status TEXT NOT NULL, "
       "message TEXT NOT NULL DEFAULT '', progress INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL, "
       "started TEXT NOT NULL DEFAULT '', finished TEXT NOT NULL DEFAULT '', updated TEXT NOT NULL, "
       "request TEXT NOT NULL DEFAULT '')");
  exec("CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs (created)");
  // Stores made before client faults were told apart gain the column.
  bool has_client_fault = false;
  {
    Statement columns(db_, "PRAGMA table_info(jobs)");
    while (columns.step(db_)) has_client_fault = has_client_fault || columns.column_text(1) == "client_fault";
  }
  if (!has_client_fault) exec("ALTER TABLE jobs ADD COLUMN client_fault INTEGER NOT NULL DEFAULT 0");
}

JobStore::~JobStore() { sqlite3_close(db_); }

void JobStore::exec(const std::string& sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    throw Error(ErrorKind::Io, "job store: " + why);
  }
}

void JobStore::insert(const JobRecord& j) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "INSERT INTO jobs (id, process, status, message, progress, created, started, finished, updated, "
                   "request) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  s.text(1, j.id).text(2, j.process).text(3, j.status).text(4, j.message).integer(5, j.progress).text(6, j.created);
  s.text(7, j.started).text(8, j.finished).text(9, j.updated).text(10, j.request).step(db_);
}

bool JobStore::insert_within(const JobRecord& j, int64_t max_accepted) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "INSERT INTO jobs (id, process, status, message, progress, created, started, finished, updated, "
                   "request) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10 "
                   "WHERE (SELECT COUNT(*) FROM jobs WHERE status = 'accepted') < ?11");
  s.text(1, j.id).text(2, j.process).text(3, j.status).text(4, j.message).integer(5, j.progress).text(6, j.created);
  s.text(7, j.started).text(8, j.finished).text(9, j.updated).text(10, j.request).integer(11, max_accepted).step(db_);
  return sqlite3_changes(db_) == 1;
}

void JobStore::set_status(const std::string& id, const std::string& status, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string now = now_rfc3339();
  Statement s(db_,
              "UPDATE jobs SET status = ?2, message = ?3, updated = ?4, "
              "started = CASE WHEN ?2 = 'running' THEN ?4 ELSE started END, "
              "finished = CASE WHEN ?2 IN ('successful', 'failed', 'dismissed') THEN ?4 ELSE finished END, "
              "progress = CASE WHEN ?2 = 'successful' THEN 100 ELSE progress END WHERE id = ?1");
  s.text(1, id).text(2, status).text(3, message).text(4, now).step(db_);
}

bool JobStore::transition(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                          const std::string& message, bool client_fault) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string now = now_rfc3339();
  std::string allowed;
  for (size_t i = 0; i < from.size(); ++i) allowed += (i ? ", ?" : "?") + std::to_string(6 + i);
  const std::string sql =
      "UPDATE jobs SET status = ?2, message = ?3, updated = ?4, "
      "started = CASE WHEN ?2 = 'running' THEN ?4 ELSE started END, "
      "finished = CASE WHEN ?2 IN ('successful', 'failed', 'dismissed') THEN ?4 ELSE finished END, "
      "progress = CASE WHEN ?2 = 'successful' THEN 100 ELSE progress END, client_fault = ?5 "
      "WHERE id = ?1 AND status IN (" + allowed + ")";
  Statement s(db_, sql.c_str());
  s.text(1, id).text(2, status).text(3, message).text(4, now).integer(5, client_fault ? 1 : 0);
  for (size_t i = 0; i < from.size(); ++i) s.text(static_cast<int>(6 + i), from[i]);
  s.step(db_);
  return sqlite3_changes(db_) == 1;
}

void JobStore::set_progress(const std::string& id, int progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "UPDATE jobs SET progress = ?2, updated = ?3 WHERE id = ?1");
  s.text(1, id).integer(2, progress).text(3, now_rfc3339()).step(db_);
}

std::optional<JobRecord> JobStore::find(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, (std::string("SELECT ") + kColumns + " FROM jobs WHERE id = ?1").c_str());
  s.text(1, id);
  if (!s.step(db_)) return std::nullopt;
  return record_of(s);
}

std::vector<JobRecord> JobStore::list(int64_t offset, int64_t limit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, (std::string("SELECT ") + kColumns + " FROM jobs ORDER BY created DESC, id LIMIT ?1 OFFSET ?2").c_str());
  s.integer(1, limit).integer(2, offset);
  std::vector<JobRecord> jobs;
  while (s.step(db_)) jobs.push_back(record_of(s));
  return jobs;
}

int64_t JobStore::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM jobs");
  s.step(db_);
  return s.column_integer(0);
}

int64_t JobStore::count_with_status(const std::string& status) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM jobs WHERE status = ?1");
  s.text(1, status).step(db_);
  return s.column_integer(0);
}

void JobStore::remove(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "DELETE FROM jobs WHERE id = ?1");
  s.text(1, id).step(db_);
}

std::vector<std::string> JobStore::ended_before(const std::string& cutoff) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT id FROM jobs WHERE status IN ('successful', 'failed', 'dismissed') AND finished < ?1");
  s.text(1, cutoff);
  std::vector<std::string> ids;
  while (s.step(db_)) ids.push_back(s.column_text(0));
  return ids;
}

std::vector<std::string> JobStore::fail_interrupted(const std::string& message) {
  std::vector<std::string> ids;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Statement s(db_, "SELECT id FROM jobs WHERE status IN ('accepted', 'running')");
    while (s.step(db_)) ids.push_back(s.column_text(0));
  }
  for (const std::string& id : ids) set_status(id, "failed", message);
  return ids;
}

}  // namespace lsm::serve
