#pragma once
// Runs the service's jobs in-process, on `workers` threads, through the
// operation layer. The queue is the job store (job_store.h): an idle
// worker claims the oldest accepted job there, whichever node accepted it,
// so several nodes on one shared store share one queue. Each run gets a
// cancel flag (dismissal through any node, time-out, output limit) and
// reports its progress to the store; a watcher renews this node's leases
// and, on a shared store, fails the jobs of nodes whose leases expired.
// In-process and not a child process per job: the operations throw
// lsm::Error for every failure they meet and leave no output behind, so a
// failing job cannot harm the others; a crash of the engine would end the
// node, and its jobs then fail (at restart, or when their leases expire).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "job_store.h"
#include "operation_spec.h"

namespace lsm::serve {

/// What a claimed job runs: its operation and values, read again from the
/// stored request (any node may run a job any node accepted).
struct PreparedJob {
  PreparedJob(const ops::Operation& op, ops::ParameterValues v) : operation(&op), values(std::move(v)) {}
  const ops::Operation* operation;
  ops::ParameterValues values;
};
/// Builds a claimed job's run from its record; throws lsm::Error (BadInput:
/// the job fails as the client's fault) when the request cannot be run here.
using JobPreparer = std::function<PreparedJob(const JobRecord&)>;

struct RunnerSettings {
  int workers = 2;             ///< jobs run at once on this node (a GPU runs one at a time)
  double timeout_s = 0;        ///< 0 = none
  std::string jobs_dir;        ///< where each job's folder is (shared by the nodes of a shared store)
  uint64_t job_memory = 0;     ///< each job's run budget: its --memory-limit may ask for less, not more
  uint64_t max_output_bytes = 0;  ///< 0 = no limit (see JobRunner)
  std::string node = "local";  ///< this node's name in the store: unique per process
  double lease_s = 30;         ///< a running job's lease, renewed every third of it
  double poll_s = 0.2;         ///< how often an idle worker looks for a job accepted elsewhere
  bool log_jobs = false;       ///< a line on stdout as each job starts and ends
};

class JobRunner {
 public:
  /// Starts the workers and the watcher. Each job runs with its own folder
  /// as scratch folder and writes Cloud Optimized GeoTIFFs (job_context()).
  /// A job's outputs may take `max_output_bytes`: a raster that would hold
  /// more is refused before it is created (RasterFormat::max_bytes), and a
  /// job whose folder grows past it is cancelled and failed (watched four
  /// times a second).
  JobRunner(JobStore& store, JobPreparer prepare, RunnerSettings settings);
  ~JobRunner();  ///< cancels what runs, joins the threads
  /// What a failed job's message becomes before it is stored and shown to
  /// clients (the service takes its server paths out).
  void set_message_filter(std::function<std::string(const std::string&)> filter) { filter_ = std::move(filter); }
  /// Says a job was just accepted: an idle worker looks at once.
  void wake();

  /// Dismisses job `id`, queued, running or finished: the store's status
  /// becomes dismissed in one step with the check that it is not already
  /// (false, and nothing done, when it is or there is no such job); a queued
  /// job never runs, a running one is cancelled at its next tile (on another
  /// node within a quarter of a second), and its folder is removed once no
  /// thread uses it.
  bool dismiss(const std::string& id);
  /// Blocks until job `id` has ended, on any node (or `limit` passed); true when it ended.
  bool wait(const std::string& id, std::chrono::seconds limit);

  /// The folder of job `id`'s outputs.
  std::string folder(const std::string& id) const;
  /// What job `id` runs with besides its values: its output format, budget
  /// and memory ceiling (no progress, cancel flag or notes yet).
  ops::RunContext job_context(const std::string& id) const;

 private:
  struct Job {
    explicit Job(std::string job_id) : id(std::move(job_id)), started(std::chrono::steady_clock::now()) {}
    std::string id;
    std::atomic<bool> cancel{false};
    std::atomic<bool> dismissed{false};
    std::atomic<bool> timed_out{false};
    std::atomic<bool> too_large{false};  ///< its folder grew past max_output_bytes
    std::chrono::steady_clock::time_point started;
  };
  void work();
  void run(Job& job, const JobRecord& record);
  /// Of a status change: made, refused (the job is no longer in a status it
  /// may leave that way: dismissed meanwhile), or failed (the store cannot
  /// write: a full disk, a database error; said on stderr).
  enum class Recorded { Changed, Refused, Failed };
  /// Moves job `id` from one of `from` to `status` (JobStore::transition);
  /// never throws: a worker never ends the server.
  Recorded record(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                  const std::string& message, bool client_fault = false) noexcept;
  /// The oldest accepted job, now this node's; nullopt when none (or the
  /// store cannot answer: said on stderr once per new reason).
  std::optional<JobRecord> claim() noexcept;
  /// Cancels running jobs past the timeout or the output limit, or no
  /// longer running in the store (dismissed through another node); renews
  /// leases; fails other nodes' expired jobs.
  void watch_jobs();
  /// The store's view of this node's running jobs and of the others' leases.
  void look_at_store(const std::vector<std::shared_ptr<Job>>& running);
  void remove_folder(const std::string& id) const;
  void log(const std::string& line) const noexcept;

  std::function<std::string(const std::string&)> filter_ = [](const std::string& m) { return m; };
  JobStore& store_;
  JobPreparer prepare_;
  RunnerSettings settings_;
  std::mutex mutex_;
  std::condition_variable queued_, ended_;
  uint64_t wakeups_ = 0;  // counts wake(): a worker that found nothing waits for a change or its poll
  std::map<std::string, std::shared_ptr<Job>> active_;  // running on this node
  bool stopping_ = false;
  std::string last_store_error_;
  std::chrono::steady_clock::time_point last_renewal_;
  std::vector<std::thread> threads_;
  std::mutex gpu_;  // a GPU runs one job at a time
};

}  // namespace lsm::serve
