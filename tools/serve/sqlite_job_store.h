#pragma once
// The job store of one node: a SQLite database (WAL mode) in the work
// folder, which `lsm serve` locks, so every running job in it at start was
// left by a server that is gone. One connection, serialized.
#include <sqlite3.h>

#include <mutex>

#include "job_store.h"

namespace lsm::serve {

class SqliteJobStore final : public JobStore {
 public:
  /// Opens (creating) `path`. Throws lsm::Error(Io) when it cannot.
  explicit SqliteJobStore(const std::string& path);
  ~SqliteJobStore() override;
  SqliteJobStore(const SqliteJobStore&) = delete;
  SqliteJobStore& operator=(const SqliteJobStore&) = delete;

  void insert(const JobRecord& job) override;
  bool insert_within(const JobRecord& job, int64_t max_accepted) override;
  std::optional<JobRecord> claim(const std::string& node, double lease_s) override;
  void renew_leases(const std::string& node, double lease_s) override;
  std::vector<std::string> fail_orphans(const std::string& message) override;
  bool transition(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                  const std::string& message, bool client_fault = false) override;
  std::optional<std::string> dismiss(const std::string& id, const std::string& message) override;
  void set_progress(const std::string& id, int progress) override;
  std::optional<JobRecord> find(const std::string& id) const override;
  std::vector<JobRecord> list(const JobFilter& filter, int64_t offset, int64_t limit) const override;
  int64_t count(const JobFilter& filter) const override;
  int64_t count_with_status(const std::string& status) const override;
  void remove(const std::string& id) override;
  std::vector<std::string> ended_before(const std::string& cutoff) const override;
  bool shared() const override { return false; }
  std::string describe() const override { return "SQLite " + path_; }

 private:
  void exec(const std::string& sql) const;
  bool transition_locked(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                         const std::string& message, bool client_fault);
  std::string path_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;
};

}  // namespace lsm::serve
