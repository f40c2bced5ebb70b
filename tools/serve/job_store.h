#pragma once
// The service's job store: the truth about every job and the queue itself.
// A job's row is written when it is accepted; a worker of any node claims
// it (accepted -> running, with the node's name and a lease), renews the
// lease while it runs and records its end. The HTTP handlers read only from
// here, so what a client sees survives a restart and is the same through
// every node. Two kinds (docs/SCALING.md):
// - SQLite (sqlite_job_store.h): one file in the work folder, one node;
// - PostgreSQL (postgres_job_store.h): one database shared by several
//   `lsm serve` nodes, jobs claimed exactly once (FOR UPDATE SKIP LOCKED).
// Every method is thread-safe and throws lsm::Error(Io) when the store
// cannot answer.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lsm::serve {

/// One job as OGC API - Processes' statusInfo describes it.
struct JobRecord {
  std::string id;       ///< a UUID
  std::string process;  ///< the operation's name
  std::string status;   ///< accepted, running, successful, failed, dismissed
  std::string message;  ///< the error of a failed job, else a short state
  int progress = 0;     ///< 0..100
  std::string created, started, finished, updated;  ///< RFC 3339 UTC, "" when not yet
  std::string request;  ///< the execute request, JSON
  /// A failed job failed on what the client sent (an unusable input or
  /// value: lsm::Error BadInput), not on the server: a 4xx, not a 5xx.
  bool client_fault = false;
  std::string node;  ///< the node that claimed it ("" while accepted)
  std::string owner;  ///< the user who submitted it ("" where the service has no tokens)
};

/// Which jobs a list or count takes (OGC API - Processes' job list: its
/// processID and status parameters; and the user's own jobs).
struct JobFilter {
  std::optional<std::string> owner;    ///< only this user's jobs (nullopt: everybody's)
  std::vector<std::string> processes;  ///< any of these processes (empty: any)
  std::vector<std::string> statuses;   ///< any of these statuses (empty: any)
  /// Created within [created_from, created_to] (RFC 3339 as now_rfc3339()
  /// writes it; "" = open): the job list's datetime.
  std::string created_from, created_to;
  /// Ran at least / at most this many seconds (started to finished, or to
  /// now while running); jobs that never started are left out: the job
  /// list's minDuration and maxDuration.
  std::optional<double> min_seconds, max_seconds;
  /// No job matches (the job list's type, where it names only types other
  /// than "process", the one type of job here).
  bool none = false;
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  /// Inserts `job` as it is (tests; the service uses insert_within()).
  virtual void insert(const JobRecord& job) = 0;
  /// Inserts `job` (accepted) only while fewer than `max_accepted` jobs are
  /// accepted: the count and the insertion are one step, so that concurrent
  /// submissions, through any node, cannot overfill the queue. True when inserted.
  virtual bool insert_within(const JobRecord& job, int64_t max_accepted) = 0;
  /// Claims the oldest accepted job for `node`: its status becomes running
  /// (started = now) with a lease of `lease_s` seconds, in one step that no
  /// other worker or node can also take. nullopt when none is waiting.
  virtual std::optional<JobRecord> claim(const std::string& node, double lease_s) = 0;
  /// Extends the leases of `node`'s running jobs to `lease_s` seconds from now.
  virtual void renew_leases(const std::string& node, double lease_s) = 0;
  /// Running jobs whose node is gone become failed with `message`: on a
  /// store of one node (SQLite, its work folder locked) every running job
  /// at start; on a shared store those whose lease expired. Their IDs.
  virtual std::vector<std::string> fail_orphans(const std::string& message) = 0;
  /// Sets status and message (started/finished by status, progress 100 when
  /// successful; updated = now) only while the job's status is one of
  /// `from`: one atomic step, so that a dismissal and the end of a run
  /// cannot both win. True when it changed.
  virtual bool transition(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                          const std::string& message, bool client_fault = false) = 0;
  /// Dismisses job `id` unless it already is: the status it had before
  /// (accepted, running, successful, failed), or nullopt when there is no
  /// such job or it was dismissed already. One atomic step.
  virtual std::optional<std::string> dismiss(const std::string& id, const std::string& message) = 0;
  virtual void set_progress(const std::string& id, int progress) = 0;
  virtual std::optional<JobRecord> find(const std::string& id) const = 0;
  /// The jobs `filter` takes, newest first, `limit` from `offset`.
  virtual std::vector<JobRecord> list(const JobFilter& filter, int64_t offset, int64_t limit) const = 0;
  virtual int64_t count(const JobFilter& filter) const = 0;
  virtual int64_t count_with_status(const std::string& status) const = 0;
  virtual void remove(const std::string& id) = 0;
  /// Jobs that ended (successful, failed, dismissed) before `cutoff` (RFC 3339).
  virtual std::vector<std::string> ended_before(const std::string& cutoff) const = 0;
  /// Whether several nodes may share this store (and so the work folder).
  virtual bool shared() const = 0;
  /// What the store is, for the log (no password).
  virtual std::string describe() const = 0;
};

/// The store `spec` names: "" or "sqlite" = jobs.sqlite in `work_dir`;
/// "postgresql://…" or "postgres://…" = a PostgreSQL database (libpq's URI:
/// host, port, database, user; the password from ~/.pgpass or PGPASSWORD
/// rather than the command line). Throws lsm::Error(BadInput) for another
/// spec or a build without libpq, Error(Io) when it cannot connect.
std::unique_ptr<JobStore> open_job_store(const std::string& spec, const std::string& work_dir);

/// Now as RFC 3339 UTC with milliseconds ("2026-11-25T10:58:00.123Z").
std::string now_rfc3339();
/// `seconds_ago` before now, as above.
std::string rfc3339_seconds_ago(double seconds_ago);
/// Seconds since the Unix epoch, now (leases on a store of one node).
double unix_seconds_now();

/// SQL both stores share, with PostgreSQL's $N parameters (the SQLite store
/// writes them ?N). The columns of a JobRecord, in record order:
extern const char* const kJobColumns;
/// "SET …" of a status change and the times that go with it ($2 status,
/// $3 message, $4 now, $5 client fault as 0/1).
extern const char* const kStatusChangeSet;
/// " WHERE …" for `filter` ("" when it takes every job), its values
/// appended to `params` as $N from N = params.size() + 1.
/// `seconds_between(later, earlier)` is the store's SQL for the seconds
/// between two RFC 3339 texts.
std::string filter_sql(const JobFilter& filter, std::vector<std::string>& params,
                       const std::function<std::string(const std::string&, const std::string&)>& seconds_between);
/// A client's RFC 3339 date-time ("2026-11-28T10:00:00+01:00", any
/// fraction) as now_rfc3339() writes it (UTC, milliseconds); nullopt when it
/// is not one.
std::optional<std::string> normalized_rfc3339(const std::string& text);

}  // namespace lsm::serve
