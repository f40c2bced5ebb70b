#include "sqlite_job_store.h"

#include <algorithm>

#include "error.h"

namespace lsm::serve {

namespace {

// The shared SQL (job_store.h) with SQLite's ?N for PostgreSQL's $N.
std::string sqlite_sql(std::string sql) {
  std::replace(sql.begin(), sql.end(), '$', '?');
  return sql;
}

// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sqlite_sql(sql).c_str(), -1, &s_, nullptr) != SQLITE_OK)
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
  Statement& real(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(ErrorKind::Io, std::string("job store: ") + sqlite3_errmsg(db_));
  }
  std::string column_text(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t column_integer(int i) const { return sqlite3_column_int64(s_, i); }
  JobRecord record() const {
    JobRecord j;
    j.id = column_text(0);
    j.process = column_text(1);
    j.status = column_text(2);
    j.message = column_text(3);
    j.progress = static_cast<int>(column_integer(4));
    j.created = column_text(5);
    j.started = column_text(6);
    j.finished = column_text(7);
    j.updated = column_text(8);
    j.request = column_text(9);
    j.client_fault = column_integer(10) != 0;
    j.node = column_text(11);
    j.owner = column_text(12);
    return j;
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

const char* kInsert =
    "INSERT INTO jobs (id, process, status, message, progress, created, started, finished, updated, request, owner) ";

void bind_insert(Statement& s, const JobRecord& j) {
  s.text(1, j.id).text(2, j.process).text(3, j.status).text(4, j.message).integer(5, j.progress).text(6, j.created);
  s.text(7, j.started).text(8, j.finished).text(9, j.updated).text(10, j.request).text(12, j.owner);
}

// Seconds between two RFC 3339 texts, in SQLite (julianday reads them, Z included).
std::string seconds_between(const std::string& later, const std::string& earlier) {
  return "((julianday(" + later + ") - julianday(" + earlier + ")) * 86400.0)";
}

}  // namespace

SqliteJobStore::SqliteJobStore(const std::string& path) : path_(path) {
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
  // Stores made by earlier versions gain the columns they lack.
  std::vector<std::string> columns;
  {
    Statement table(db_, "PRAGMA table_info(jobs)");
    while (table.step()) columns.push_back(table.column_text(1));
  }
  const auto has = [&](const char* c) { return std::find(columns.begin(), columns.end(), c) != columns.end(); };
  if (!has("client_fault")) exec("ALTER TABLE jobs ADD COLUMN client_fault INTEGER NOT NULL DEFAULT 0");
  if (!has("node")) exec("ALTER TABLE jobs ADD COLUMN node TEXT NOT NULL DEFAULT ''");
  if (!has("lease_until")) exec("ALTER TABLE jobs ADD COLUMN lease_until REAL NOT NULL DEFAULT 0");
  if (!has("owner")) exec("ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT ''");
}

SqliteJobStore::~SqliteJobStore() { sqlite3_close(db_); }

void SqliteJobStore::exec(const std::string& sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    throw Error(ErrorKind::Io, "job store: " + why);
  }
}

void SqliteJobStore::insert(const JobRecord& j) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, std::string(kInsert) + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12)");
  bind_insert(s, j);
  s.step();
}

bool SqliteJobStore::insert_within(const JobRecord& j, int64_t max_accepted) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, std::string(kInsert) +
                       "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12 "
                       "WHERE (SELECT COUNT(*) FROM jobs WHERE status = 'accepted') < $11");
  bind_insert(s, j);
  s.integer(11, max_accepted).step();
  return sqlite3_changes(db_) == 1;
}

std::optional<JobRecord> SqliteJobStore::claim(const std::string& node, double lease_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  // One connection, serialized: the oldest accepted job is this worker's alone.
  Statement s(db_, std::string("UPDATE jobs ") + kStatusChangeSet +
                       ", node = $6, lease_until = $7 WHERE id = (SELECT id FROM jobs WHERE status = 'accepted' "
                       "ORDER BY created, id LIMIT 1) RETURNING " + kJobColumns);
  s.text(2, "running").text(3, "running").text(4, now_rfc3339()).integer(5, 0).text(6, node);
  s.real(7, unix_seconds_now() + lease_s);
  if (!s.step()) return std::nullopt;
  JobRecord job = s.record();
  while (s.step()) {
  }
  return job;
}

void SqliteJobStore::renew_leases(const std::string& node, double lease_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "UPDATE jobs SET lease_until = $2 WHERE status = 'running' AND node = $1");
  s.text(1, node).real(2, unix_seconds_now() + lease_s).step();
}

std::vector<std::string> SqliteJobStore::fail_orphans(const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> ids;
  {
    Statement s(db_, "SELECT id FROM jobs WHERE status = 'running'");
    while (s.step()) ids.push_back(s.column_text(0));
  }
  for (const std::string& id : ids) transition_locked(id, {"running"}, "failed", message, false);
  return ids;
}

bool SqliteJobStore::transition(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                                const std::string& message, bool client_fault) {
  std::lock_guard<std::mutex> lock(mutex_);
  return transition_locked(id, from, status, message, client_fault);
}

bool SqliteJobStore::transition_locked(const std::string& id, const std::vector<std::string>& from,
                                       const std::string& status, const std::string& message, bool client_fault) {
  std::string allowed;
  for (size_t i = 0; i < from.size(); ++i) allowed += (i ? ", $" : "$") + std::to_string(6 + i);
  Statement s(db_, std::string("UPDATE jobs ") + kStatusChangeSet + "WHERE id = $1 AND status IN (" + allowed + ")");
  s.text(1, id).text(2, status).text(3, message).text(4, now_rfc3339()).integer(5, client_fault ? 1 : 0);
  for (size_t i = 0; i < from.size(); ++i) s.text(static_cast<int>(6 + i), from[i]);
  s.step();
  return sqlite3_changes(db_) == 1;
}

std::optional<std::string> SqliteJobStore::dismiss(const std::string& id, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string before;
  {
    Statement s(db_, "SELECT status FROM jobs WHERE id = $1");
    s.text(1, id);
    if (!s.step()) return std::nullopt;
    before = s.column_text(0);
  }
  if (before == "dismissed" || !transition_locked(id, {before}, "dismissed", message, false)) return std::nullopt;
  return before;
}

void SqliteJobStore::set_progress(const std::string& id, int progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "UPDATE jobs SET progress = $2, updated = $3 WHERE id = $1");
  s.text(1, id).integer(2, progress).text(3, now_rfc3339()).step();
}

std::optional<JobRecord> SqliteJobStore::find(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, std::string("SELECT ") + kJobColumns + " FROM jobs WHERE id = $1");
  s.text(1, id);
  if (!s.step()) return std::nullopt;
  return s.record();
}

std::vector<JobRecord> SqliteJobStore::list(const JobFilter& filter, int64_t offset, int64_t limit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> params = {"", ""};  // $1, $2: the limit and offset, bound as integers
  const std::string where = filter_sql(filter, params, seconds_between);
  Statement s(db_, std::string("SELECT ") + kJobColumns + " FROM jobs" + where +
                       " ORDER BY created DESC, id LIMIT $1 OFFSET $2");
  s.integer(1, limit).integer(2, offset);
  for (size_t i = 2; i < params.size(); ++i) s.text(static_cast<int>(i + 1), params[i]);
  std::vector<JobRecord> jobs;
  while (s.step()) jobs.push_back(s.record());
  return jobs;
}

int64_t SqliteJobStore::count(const JobFilter& filter) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> params;
  Statement s(db_, std::string("SELECT COUNT(*) FROM jobs") + filter_sql(filter, params, seconds_between));
  for (size_t i = 0; i < params.size(); ++i) s.text(static_cast<int>(i + 1), params[i]);
  s.step();
  return s.column_integer(0);
}

int64_t SqliteJobStore::count_with_status(const std::string& status) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM jobs WHERE status = $1");
  s.text(1, status).step();
  return s.column_integer(0);
}

void SqliteJobStore::remove(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "DELETE FROM jobs WHERE id = $1");
  s.text(1, id).step();
}

std::vector<std::string> SqliteJobStore::ended_before(const std::string& cutoff) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT id FROM jobs WHERE status IN ('successful', 'failed', 'dismissed') AND finished < $1");
  s.text(1, cutoff);
  std::vector<std::string> ids;
  while (s.step()) ids.push_back(s.column_text(0));
  return ids;
}

}  // namespace lsm::serve
