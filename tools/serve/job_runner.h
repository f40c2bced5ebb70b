#pragma once
// Runs the service's jobs in-process, on `workers` threads, through the
// operation layer: each job's run gets a cancel flag (dismissal, time-out)
// and reports its progress to the job store. In-process and not a child
// process per job: the operations throw lsm::Error for every failure they
// meet and leave no output behind, so a failing job cannot harm the others;
// a crash of the engine would end the server, and a restart then marks the
// jobs it ran as failed (job_store.h).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "job_store.h"
#include "operation_spec.h"

namespace lsm::serve {

class JobRunner {
 public:
  /// `job_folder(id)` is where job `id`'s outputs are; `timeout_s` 0 = none.
  /// Each job runs with a budget of `job_memory` bytes (its --memory-limit
  /// may ask for less, not more) and its own folder as scratch folder, and
  /// writes Cloud Optimized GeoTIFFs (job_context()).
  /// A job's outputs may take `max_output_bytes` (0: no limit): a raster
  /// that would hold more is refused before it is created
  /// (RasterFormat::max_bytes), and a job whose folder grows past it is
  /// cancelled and failed (watched four times a second).
  JobRunner(JobStore& store, int workers, double timeout_s, std::string jobs_dir, uint64_t job_memory,
            uint64_t max_output_bytes = 0);
  ~JobRunner();  ///< cancels what runs, joins the threads
  /// What a failed job's message becomes before it is stored and shown to
  /// clients (the service takes its server paths out).
  void set_message_filter(std::function<std::string(const std::string&)> filter) { filter_ = std::move(filter); }

  /// Queues job `id` (its row already in the store, status accepted).
  void submit(const std::string& id, const ops::Operation& operation, const ops::ParameterValues& values);
  /// Dismisses job `id`, queued, running or finished: the store's status
  /// becomes dismissed in one step with the check that it is not already
  /// (false, and nothing done, when it is); a queued job never runs, a
  /// running one is cancelled at its next tile, and its folder is removed
  /// once no thread uses it.
  bool dismiss(const std::string& id);
  /// Blocks until job `id` has ended (or `limit` passed); true when it ended.
  bool wait(const std::string& id, std::chrono::seconds limit);

  /// The folder of job `id`'s outputs.
  std::string folder(const std::string& id) const;
  /// What job `id` runs with besides its values: its output format, budget
  /// and memory ceiling (no progress, cancel flag or notes yet).
  ops::RunContext job_context(const std::string& id) const;

 private:
  struct Job {
    Job(std::string job_id, const ops::Operation* op, ops::ParameterValues v)
        : id(std::move(job_id)), operation(op), values(std::move(v)) {}
    std::string id;
    const ops::Operation* operation;
    ops::ParameterValues values;
    std::atomic<bool> cancel{false};
    std::atomic<bool> dismissed{false};
    std::atomic<bool> timed_out{false};
    std::atomic<bool> too_large{false};  ///< its folder grew past max_output_bytes
    std::chrono::steady_clock::time_point started;
    bool running = false;
  };
  void work();
  void run(Job& job);
  /// Of a status change: made, refused (the job is no longer in a status it
  /// may leave that way: dismissed meanwhile), or failed (the store cannot
  /// write: a full disk, a database error; said on stderr).
  enum class Recorded { Changed, Refused, Failed };
  /// Moves job `id` from one of `from` to `status` (JobStore::transition);
  /// never throws: a worker never ends the server.
  Recorded record(const std::string& id, const std::vector<std::string>& from, const std::string& status,
                  const std::string& message, bool client_fault = false) noexcept;
  /// Cancels running jobs past the timeout or the output limit.
  void watch_jobs();
  void remove_folder(const std::string& id) const;

  std::function<std::string(const std::string&)> filter_ = [](const std::string& m) { return m; };
  JobStore& store_;
  double timeout_s_;
  std::string jobs_dir_;
  uint64_t job_memory_;
  uint64_t max_output_bytes_;
  std::mutex mutex_;
  std::condition_variable queued_, ended_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::map<std::string, std::shared_ptr<Job>> active_;  // queued or running
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::mutex gpu_;  // a GPU runs one job at a time
};

}  // namespace lsm::serve
