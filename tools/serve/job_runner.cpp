#include "job_runner.h"

#include <cstdio>

#include <filesystem>

#include "common_parameters.h"
#include "error.h"

namespace lsm::serve {

namespace fs = std::filesystem;

namespace {

// Bytes of the files under `folder` (0 where it cannot be read).
uint64_t folder_bytes(const std::string& folder) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_error;
    if (it->is_regular_file(size_error)) {
      const uintmax_t size = it->file_size(size_error);
      if (!size_error) bytes += size;
    }
  }
  return bytes;
}

}  // namespace

JobRunner::JobRunner(JobStore& store, int workers, double timeout_s, std::string jobs_dir, uint64_t job_memory,
                     uint64_t max_output_bytes)
    : store_(store), timeout_s_(timeout_s), jobs_dir_(std::move(jobs_dir)), job_memory_(job_memory),
      max_output_bytes_(max_output_bytes) {
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  if (timeout_s_ > 0 || max_output_bytes_ > 0) threads_.emplace_back([this] { watch_jobs(); });
}

JobRunner::~JobRunner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    for (auto& [id, job] : active_) job->cancel = true;
  }
  queued_.notify_all();
  ended_.notify_all();
  for (std::thread& t : threads_) t.join();
}

std::string JobRunner::folder(const std::string& id) const { return (fs::path(jobs_dir_) / id).string(); }

ops::RunContext JobRunner::job_context(const std::string& id) const {
  ops::RunContext context;
  context.quiet = true;
  context.raster_format.driver = "COG";  // results GDAL and QGIS read over HTTP
  context.raster_format.creation_options = {"COMPRESS=DEFLATE"};
  context.raster_format.staging_dir = folder(id);  // COG is copy-only: its staging GeoTIFF stays in the job's folder
  context.budget.memory_bytes = job_memory_;
  context.budget.temp_dir = folder(id);  // on the work dir's disk, and gone with the job
  context.memory_ceiling = job_memory_;
  context.raster_format.max_bytes = max_output_bytes_;
  return context;
}

void JobRunner::remove_folder(const std::string& id) const {
  std::error_code ec;
  fs::remove_all(folder(id), ec);
}

void JobRunner::submit(const std::string& id, const ops::Operation& operation, const ops::ParameterValues& values) {
  auto job = std::make_shared<Job>(id, &operation, values);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(job);
    active_[id] = job;
  }
  queued_.notify_one();
}

bool JobRunner::dismiss(const std::string& id) {
  // The store decides first, in one step: of a dismissal and the end of a
  // run, only one changes the status.
  if (!store_.transition(id, {"accepted", "running", "successful", "failed"}, "dismissed", "dismissed by the client"))
    return false;
  bool held = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = active_.find(id);
    if (it != active_.end()) {
      it->second->dismissed = true;
      it->second->cancel = true;
      held = true;
    }
  }
  // A job a worker still holds loses its folder when the worker lets go (work()).
  if (!held) remove_folder(id);
  ended_.notify_all();
  return true;
}

bool JobRunner::wait(const std::string& id, std::chrono::seconds limit) {
  std::unique_lock<std::mutex> lock(mutex_);
  return ended_.wait_for(lock, limit, [&] { return stopping_ || active_.count(id) == 0; });
}

void JobRunner::work() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = queue_.front();
      queue_.pop_front();
      job->running = true;
      job->started = std::chrono::steady_clock::now();
    }
    if (!job->dismissed) run(*job);
    bool dismissed = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      active_.erase(job->id);
      dismissed = job->dismissed;  // set under this lock by dismiss(), which then left the folder to us
    }
    if (dismissed) remove_folder(job->id);
    ended_.notify_all();
  }
}

JobRunner::Recorded JobRunner::record(const std::string& id, const std::vector<std::string>& from,
                                      const std::string& status, const std::string& message,
                                      bool client_fault) noexcept {
  try {
    return store_.transition(id, from, status, message, client_fault) ? Recorded::Changed : Recorded::Refused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lsm serve: cannot record job %s as %s: %s\n", id.c_str(), status.c_str(), e.what());
    return Recorded::Failed;
  }
}

void JobRunner::run(Job& job) {
  // Dismissed before it started, or a store that cannot take it: the job does not run.
  if (record(job.id, {"accepted"}, "running", "running") != Recorded::Changed) {
    remove_folder(job.id);
    return;
  }
  int last_percent = -1;
  ops::RunContext context = job_context(job.id);
  context.cancel = &job.cancel;
  context.progress = [&](double f) {
    const int percent = std::max(0, std::min(99, static_cast<int>(f * 100)));
    if (percent != last_percent) {
      last_percent = percent;
      try {
        store_.set_progress(job.id, percent);
      } catch (const std::exception&) {  // progress is advisory: a store that cannot take it does not stop the job
      }
    }
    return true;
  };
  std::string failure;
  bool client_fault = false;
  try {
    std::error_code ec;
    fs::create_directories(folder(job.id), ec);
    // A GPU runs one job at a time; CPU jobs share the cores.
    std::unique_lock<std::mutex> gpu(gpu_, std::defer_lock);
    if (ops::may_use_gpu(job.values)) gpu.lock();
    job.operation->run(job.values, context);
  } catch (const Error& e) {
    failure = filter_(e.what());
    client_fault = e.kind() == ErrorKind::BadInput;  // the input or a value the client sent
  } catch (const std::exception& e) {
    failure = filter_(e.what());
  }
  // Outputs that ended past the limit between two looks of the watcher.
  if (failure.empty() && !job.cancel && max_output_bytes_ > 0 && folder_bytes(folder(job.id)) > max_output_bytes_)
    job.too_large = true;
  // Each end is a transition from running: refused when a dismissal came
  // first (its status stays dismissed), and then the results go.
  if (job.timed_out || job.too_large || !failure.empty()) {
    remove_folder(job.id);
    if (job.timed_out)
      record(job.id, {"running"}, "failed", "the job ran longer than --job-timeout (" + std::to_string(timeout_s_) + " s)");
    else if (job.too_large)  // what the client asked for makes more than this server keeps
      record(job.id, {"running"}, "failed",
             "the job's outputs grew past --max-output-bytes (" + std::to_string(max_output_bytes_) + " bytes)", true);
    else
      record(job.id, {"running"}, "failed", failure, client_fault);
  } else if (record(job.id, {"running"}, "successful", "done") != Recorded::Changed) {
    remove_folder(job.id);  // dismissed meanwhile, or results nobody can be told of
  }
}

void JobRunner::watch_jobs() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    ended_.wait_for(lock, std::chrono::milliseconds(250));
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<Job>> running;
    for (auto& [id, job] : active_) {
      if (!job->running) continue;
      if (timeout_s_ > 0 && std::chrono::duration<double>(now - job->started).count() > timeout_s_) {
        job->timed_out = true;
        job->cancel = true;
      }
      running.push_back(job);
    }
    if (max_output_bytes_ == 0) continue;
    lock.unlock();  // sizes are read from the disk without holding the runner
    for (const std::shared_ptr<Job>& job : running)
      if (!job->cancel && folder_bytes(folder(job->id)) > max_output_bytes_) {
        job->too_large = true;
        job->cancel = true;
      }
    lock.lock();
  }
}

}  // namespace lsm::serve
