#pragma once
// The service's job store: one SQLite database (WAL mode) in the work
// folder, the truth about every job. A job's row is written when it is
// accepted and updated as it starts, progresses and ends; the HTTP handlers
// read only from here, so what a client sees survives a restart. Thread-safe
// (one connection, serialized).
#include <sqlite3.h>

#include <cstdint>
#include <mutex>
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
};

class JobStore {
 public:
  /// Opens (creating) `path`. Throws lsm::Error(Io) when it cannot.
  explicit JobStore(const std::string& path);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  void insert(const JobRecord& job);
  /// Inserts `job` (accepted) only while fewer than `max_accepted` jobs are
  /// accepted: the count and the insertion are one step, so that concurrent
  /// submissions cannot overfill the queue. True when inserted.
  bool insert_within(const JobRecord& job, int64_t max_accepted);
  /// Sets status and message (and started/finished by status); updated = now.
  void set_status(const std::string& id, const std::string& status, const std::string& message);
  /// Sets status and message as set_status() does, but only while the job's
  /// status is one of `from`: one atomic step, so that a dismissal and the
  /// end of a run cannot both win (a dismissed job never turns successful, a
  /// job dismissed before it started never turns running). True when it changed.
  bool transition(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                  const std::string& message, bool client_fault = false);
  void set_progress(const std::string& id, int progress);
  std::optional<JobRecord> find(const std::string& id) const;
  /// Newest first.
  std::vector<JobRecord> list(int64_t offset, int64_t limit) const;
  int64_t count() const;
  int64_t count_with_status(const std::string& status) const;
  void remove(const std::string& id);
  /// Jobs that ended (successful, failed, dismissed) before `cutoff` (RFC 3339).
  std::vector<std::string> ended_before(const std::string& cutoff) const;
  /// After a restart: jobs left accepted or running are marked failed (the
  /// process that ran them is gone); returns their IDs.
  std::vector<std::string> fail_interrupted(const std::string& message);

 private:
  void exec(const std::string& sql) const;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;
};

/// Now as RFC 3339 UTC with milliseconds ("2026-11-25T10:58:00.123Z").
std::string now_rfc3339();
/// `seconds_ago` before now, as above.
std::string rfc3339_seconds_ago(double seconds_ago);

}  // namespace lsm::serve
