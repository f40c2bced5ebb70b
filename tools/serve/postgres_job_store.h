#pragma once
// The job store several `lsm serve` nodes share: one PostgreSQL database
// (libpq), table lsm_jobs in the connection's schema. Jobs are claimed with
// FOR UPDATE SKIP LOCKED (exactly once, and no worker waits on another's
// claim); the queue limit holds across nodes through a transaction-scoped
// advisory lock; leases and their expiry use the database's clock, so the
// nodes' clocks need not agree for them. A few connections are pooled; a
// connection that broke is reset once before an operation fails.
#include <libpq-fe.h>

#include <condition_variable>
#include <mutex>

#include "job_store.h"

namespace lsm::serve {

class PostgresJobStore final : public JobStore {
 public:
  /// Connects to `uri` (libpq's connection URI) and creates the table where
  /// it is missing. Throws lsm::Error(Io) with libpq's reason when it cannot.
  explicit PostgresJobStore(const std::string& uri, int connections = 4);
  ~PostgresJobStore() override;
  PostgresJobStore(const PostgresJobStore&) = delete;
  PostgresJobStore& operator=(const PostgresJobStore&) = delete;

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
  bool shared() const override { return true; }
  std::string describe() const override { return description_; }

  /// One statement's result, cleared on scope exit.
  class Result;

 private:
  class Lease;  // a connection borrowed from the pool
  PGconn* borrow() const;
  void give_back(PGconn* connection) const;

  std::string description_;
  mutable std::mutex mutex_;
  mutable std::condition_variable returned_;
  mutable std::vector<PGconn*> idle_;
  std::vector<PGconn*> all_;
};

}  // namespace lsm::serve
