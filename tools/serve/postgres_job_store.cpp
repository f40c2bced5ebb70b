#include "postgres_job_store.h"

#include <cstdlib>

#include "error.h"

namespace lsm::serve {

namespace {

constexpr Oid kTextOid = 25;  // every parameter is sent as text; the SQL casts where a column is not
// Any number: the key of the advisory lock that makes the queue limit's
// count and insertion one step across nodes, and the table's creation one.
constexpr const char* kQueueLock = "7431051";
constexpr const char* kSchemaLock = "7431052";

// libpq's reason on one line: its lines ("…failed: Connection refused\n\tIs
// the server running…") joined by "; ".
std::string why(PGconn* c) {
  std::string text;
  bool line_break = false;
  for (const char* p = PQerrorMessage(c); *p; ++p) {
    if (*p == '\n' || *p == '\t' || *p == '\r') {
      line_break = line_break || *p == '\n';
      continue;
    }
    if (line_break && !text.empty()) text += "; ";
    line_break = false;
    text += *p;
  }
  return text;
}

// A new (or reset) connection's settings. False when they cannot be made.
bool set_up(PGconn* c) {
  // NOTICEs ("relation … already exists, skipping") are for people at psql, not a node's log.
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
  // As the SQLite store's synchronous=NORMAL: a commit does not wait for
  // the disk. A crash of the database may lose its last fraction of a
  // second of commits, never corrupts; a job's updates then need no flush
  // of the write-ahead log each (a job records a dozen).
  PGresult* r = PQexec(c, "SET synchronous_commit TO off");
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  return ok;
}

}  // namespace

class PostgresJobStore::Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  ~Result() { PQclear(r_); }
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  PGresult* raw() const { return r_; }
  int rows() const { return PQntuples(r_); }
  std::string text(int row, int column) const { return PQgetvalue(r_, row, column); }
  int64_t integer(int row, int column) const { return std::strtoll(PQgetvalue(r_, row, column), nullptr, 10); }
  int64_t changed() const { return std::strtoll(PQcmdTuples(r_), nullptr, 10); }
  JobRecord record(int row) const {
    JobRecord j;
    j.id = text(row, 0);
    j.process = text(row, 1);
    j.status = text(row, 2);
    j.message = text(row, 3);
    j.progress = static_cast<int>(integer(row, 4));
    j.created = text(row, 5);
    j.started = text(row, 6);
    j.finished = text(row, 7);
    j.updated = text(row, 8);
    j.request = text(row, 9);
    j.client_fault = integer(row, 10) != 0;
    j.node = text(row, 11);
    j.owner = text(row, 12);
    return j;
  }

 private:
  PGresult* r_;
};

// A pooled connection for one operation; statements run on it with every
// parameter as text. A connection found broken is reset once, then the
// statement is tried again.
class PostgresJobStore::Lease {
 public:
  explicit Lease(const PostgresJobStore& store) : store_(store), c_(store.borrow()) {}
  ~Lease() { store_.give_back(c_); }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  Result run(const std::string& sql, const std::vector<std::string>& params = {}) {
    for (int attempt = 0;; ++attempt) {
      std::vector<const char*> values;
      for (const std::string& p : params) values.push_back(p.c_str());
      const std::vector<Oid> types(params.size(), kTextOid);
      Result r(PQexecParams(c_, sql.c_str(), static_cast<int>(params.size()), types.data(), values.data(), nullptr,
                            nullptr, 0));
      const ExecStatusType status = PQresultStatus(r.raw());
      if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
      if (attempt == 0 && PQstatus(c_) == CONNECTION_BAD) {
        PQreset(c_);
        if (PQstatus(c_) == CONNECTION_OK && set_up(c_)) continue;
      }
      throw Error(ErrorKind::Io, "job store (PostgreSQL): " + why(c_));
    }
  }

 private:
  const PostgresJobStore& store_;
  PGconn* c_;
};

namespace {

std::string text_of(int64_t v) { return std::to_string(v); }

std::vector<std::string> insert_params(const JobRecord& j) {
  return {j.id, j.process, j.status, j.message, text_of(j.progress), j.created, j.started, j.finished, j.updated,
          j.request, "", j.owner};
}

// Seconds between two RFC 3339 texts, in PostgreSQL.
std::string seconds_between(const std::string& later, const std::string& earlier) {
  return "EXTRACT(EPOCH FROM (CAST(" + later + " AS TIMESTAMPTZ) - CAST(" + earlier + " AS TIMESTAMPTZ)))";
}

const char* kInsert =
    "INSERT INTO lsm_jobs (id, process, status, message, progress, created, started, finished, updated, request, owner) ";

}  // namespace

PostgresJobStore::PostgresJobStore(const std::string& uri, int connections) {
  for (int i = 0; i < connections; ++i) {
    PGconn* c = PQconnectdb(uri.c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      const std::string reason = why(c);
      PQfinish(c);
      for (PGconn* open : all_) PQfinish(open);
      throw Error(ErrorKind::Io, "cannot connect to the job store (PostgreSQL): " + reason);
    }
    all_.push_back(c);
    if (!set_up(c)) {
      const std::string reason = why(c);
      for (PGconn* open : all_) PQfinish(open);
      throw Error(ErrorKind::Io, "cannot set up the job store's connection (PostgreSQL): " + reason);
    }
  }
  idle_ = all_;
  description_ = std::string("PostgreSQL database '") + PQdb(all_[0]) + "' on " + PQhost(all_[0]) + ":" +
                 PQport(all_[0]);
  Lease c(*this);
  // Nodes that start together create the table once (CREATE … IF NOT
  // EXISTS alone can collide in the catalogue).
  c.run(std::string("SELECT pg_advisory_lock(") + kSchemaLock + ")");
  try {
    c.run("CREATE TABLE IF NOT EXISTS lsm_jobs (id TEXT PRIMARY KEY, process TEXT NOT NULL, status TEXT NOT NULL, "
          "message TEXT NOT NULL DEFAULT '', progress INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL, "
          "started TEXT NOT NULL DEFAULT '', finished TEXT NOT NULL DEFAULT '', updated TEXT NOT NULL, "
          "request TEXT NOT NULL DEFAULT '', client_fault INTEGER NOT NULL DEFAULT 0, "
          "node TEXT NOT NULL DEFAULT '', lease_until DOUBLE PRECISION NOT NULL DEFAULT 0, "
          "owner TEXT NOT NULL DEFAULT '')");
    c.run("CREATE INDEX IF NOT EXISTS lsm_jobs_by_created ON lsm_jobs (created)");
    // The queue: workers look for the oldest accepted job many times a second.
    c.run("CREATE INDEX IF NOT EXISTS lsm_jobs_accepted ON lsm_jobs (created, id) WHERE status = 'accepted'");
  } catch (...) {
    c.run(std::string("SELECT pg_advisory_unlock(") + kSchemaLock + ")");
    throw;
  }
  c.run(std::string("SELECT pg_advisory_unlock(") + kSchemaLock + ")");
}

PostgresJobStore::~PostgresJobStore() {
  for (PGconn* c : all_) PQfinish(c);
}

PGconn* PostgresJobStore::borrow() const {
  std::unique_lock<std::mutex> lock(mutex_);
  returned_.wait(lock, [&] { return !idle_.empty(); });
  PGconn* c = idle_.back();
  idle_.pop_back();
  return c;
}

void PostgresJobStore::give_back(PGconn* c) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(c);
  }
  returned_.notify_one();
}

void PostgresJobStore::insert(const JobRecord& j) {
  Lease c(*this);
  c.run(std::string(kInsert) + "VALUES ($1, $2, $3, $4, CAST($5 AS INTEGER), $6, $7, $8, $9, $10, $12)", insert_params(j));
}

bool PostgresJobStore::insert_within(const JobRecord& j, int64_t max_accepted) {
  Lease c(*this);
  std::vector<std::string> params = insert_params(j);
  params[10] = text_of(max_accepted);  // $11
  c.run("BEGIN");
  try {
    // Held to the commit: the count below sees every insertion before it.
    c.run(std::string("SELECT pg_advisory_xact_lock(") + kQueueLock + ")");
    const Result r = c.run(std::string(kInsert) +
                               "SELECT $1, $2, $3, $4, CAST($5 AS INTEGER), $6, $7, $8, $9, $10, $12 "
                               "WHERE (SELECT COUNT(*) FROM lsm_jobs WHERE status = 'accepted') < CAST($11 AS BIGINT)",
                           params);
    c.run("COMMIT");
    return r.changed() == 1;
  } catch (...) {
    try {
      c.run("ROLLBACK");
    } catch (...) {  // the connection is gone: so is its transaction
    }
    throw;
  }
}

std::optional<JobRecord> PostgresJobStore::claim(const std::string& node, double lease_s) {
  Lease c(*this);
  const Result r = c.run(std::string("UPDATE lsm_jobs ") + kStatusChangeSet +
                             ", node = $6, lease_until = EXTRACT(EPOCH FROM clock_timestamp()) + CAST($7 AS DOUBLE "
                             "PRECISION) WHERE id = (SELECT id FROM lsm_jobs WHERE status = 'accepted' ORDER BY "
                             "created, id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING " + kJobColumns,
                         {"", "running", "running", now_rfc3339(), "0", node, std::to_string(lease_s)});
  if (r.rows() == 0) return std::nullopt;
  return r.record(0);
}

void PostgresJobStore::renew_leases(const std::string& node, double lease_s) {
  Lease c(*this);
  c.run("UPDATE lsm_jobs SET lease_until = EXTRACT(EPOCH FROM clock_timestamp()) + CAST($2 AS DOUBLE PRECISION) "
        "WHERE status = 'running' AND node = $1",
        {node, std::to_string(lease_s)});
}

std::vector<std::string> PostgresJobStore::fail_orphans(const std::string& message) {
  Lease c(*this);
  const Result r = c.run(std::string("UPDATE lsm_jobs ") + kStatusChangeSet +
                             "WHERE status = 'running' AND lease_until < EXTRACT(EPOCH FROM clock_timestamp()) "
                             "RETURNING id",
                         {"", "failed", message, now_rfc3339(), "0"});
  std::vector<std::string> ids;
  for (int i = 0; i < r.rows(); ++i) ids.push_back(r.text(i, 0));
  return ids;
}

bool PostgresJobStore::transition(const std::string& id, const std::vector<std::string>& from,
                                  const std::string& status, const std::string& message, bool client_fault) {
  std::vector<std::string> params = {id, status, message, now_rfc3339(), client_fault ? "1" : "0"};
  std::string allowed;
  for (size_t i = 0; i < from.size(); ++i) {
    allowed += (i ? ", $" : "$") + std::to_string(6 + i);
    params.push_back(from[i]);
  }
  Lease c(*this);
  return c.run(std::string("UPDATE lsm_jobs ") + kStatusChangeSet + "WHERE id = $1 AND status IN (" + allowed + ")",
               params)
             .changed() == 1;
}

std::optional<std::string> PostgresJobStore::dismiss(const std::string& id, const std::string& message) {
  Lease c(*this);
  // The row is locked as it is read: the status returned is the one replaced.
  const Result r = c.run(std::string("UPDATE lsm_jobs ") + kStatusChangeSet +
                             "FROM (SELECT id AS job, status AS before FROM lsm_jobs WHERE id = $1 FOR UPDATE) old "
                             "WHERE lsm_jobs.id = old.job AND old.before <> 'dismissed' RETURNING old.before",
                         {id, "dismissed", message, now_rfc3339(), "0"});
  if (r.rows() == 0) return std::nullopt;
  return r.text(0, 0);
}

void PostgresJobStore::set_progress(const std::string& id, int progress) {
  Lease c(*this);
  c.run("UPDATE lsm_jobs SET progress = CAST($2 AS INTEGER), updated = $3 WHERE id = $1",
        {id, text_of(progress), now_rfc3339()});
}

std::optional<JobRecord> PostgresJobStore::find(const std::string& id) const {
  Lease c(*this);
  const Result r = c.run(std::string("SELECT ") + kJobColumns + " FROM lsm_jobs WHERE id = $1", {id});
  if (r.rows() == 0) return std::nullopt;
  return r.record(0);
}

std::vector<JobRecord> PostgresJobStore::list(const JobFilter& filter, int64_t offset, int64_t limit) const {
  std::vector<std::string> params = {text_of(limit), text_of(offset)};
  const std::string where = filter_sql(filter, params, seconds_between);
  Lease c(*this);
  const Result r = c.run(std::string("SELECT ") + kJobColumns + " FROM lsm_jobs" + where +
                             " ORDER BY created DESC, id LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)",
                         params);
  std::vector<JobRecord> jobs;
  for (int i = 0; i < r.rows(); ++i) jobs.push_back(r.record(i));
  return jobs;
}

int64_t PostgresJobStore::count(const JobFilter& filter) const {
  std::vector<std::string> params;
  const std::string where = filter_sql(filter, params, seconds_between);
  Lease c(*this);
  return c.run("SELECT COUNT(*) FROM lsm_jobs" + where, params).integer(0, 0);
}

int64_t PostgresJobStore::count_with_status(const std::string& status) const {
  Lease c(*this);
  return c.run("SELECT COUNT(*) FROM lsm_jobs WHERE status = $1", {status}).integer(0, 0);
}

void PostgresJobStore::remove(const std::string& id) {
  Lease c(*this);
  c.run("DELETE FROM lsm_jobs WHERE id = $1", {id});
}

std::vector<std::string> PostgresJobStore::ended_before(const std::string& cutoff) const {
  Lease c(*this);
  const Result r = c.run(
      "SELECT id FROM lsm_jobs WHERE status IN ('successful', 'failed', 'dismissed') AND finished < $1", {cutoff});
  std::vector<std::string> ids;
  for (int i = 0; i < r.rows(); ++i) ids.push_back(r.text(i, 0));
  return ids;
}

}  // namespace lsm::serve
