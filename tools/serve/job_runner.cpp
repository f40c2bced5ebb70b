#include "job_runner.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "common_parameters.h"
#include "error.h"

namespace lsm::serve {

namespace fs = std::filesystem;

namespace {

// Whether `name` is a COG's staging GeoTIFF or one of its side files
// (".lsm-staging.tif", geotiff_output.cpp): scratch on the way to an output,
// not an output. Its tiles are padded (a 400 x 300 UInt32 raster stages as
// 1 MiB), and each raster's size is checked before it is staged.
bool staging_file(const std::string& name) { return name.find(".lsm-staging.tif") != std::string::npos; }

// Bytes of the output files under `folder` (0 where it cannot be read).
uint64_t folder_bytes(const std::string& folder) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_error;
    if (it->is_regular_file(size_error) && !staging_file(it->path().filename().string())) {
      const uintmax_t size = it->file_size(size_error);
      if (!size_error) bytes += size;
    }
  }
  return bytes;
}

bool ended(const std::string& status) {
  return status == "successful" || status == "failed" || status == "dismissed";
}

}  // namespace

JobRunner::JobRunner(JobStore& store, JobPreparer prepare, RunnerSettings settings)
    : store_(store), prepare_(std::move(prepare)), settings_(std::move(settings)),
      last_renewal_(std::chrono::steady_clock::now()) {
  for (int i = 0; i < settings_.workers; ++i) threads_.emplace_back([this] { work(); });
  threads_.emplace_back([this] { watch_jobs(); });
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

std::string JobRunner::folder(const std::string& id) const { return (fs::path(settings_.jobs_dir) / id).string(); }

ops::RunContext JobRunner::job_context(const std::string& id) const {
  ops::RunContext context;
  context.quiet = true;
  context.raster_format.driver = "COG";  // results GDAL and QGIS read over HTTP
  context.raster_format.creation_options = {"COMPRESS=DEFLATE"};
  context.raster_format.staging_dir = folder(id);  // COG is copy-only: its staging GeoTIFF stays in the job's folder
  context.budget.memory_bytes = settings_.job_memory;
  context.budget.temp_dir = folder(id);  // on the work dir's disk, and gone with the job
  context.memory_ceiling = settings_.job_memory;
  context.raster_format.max_bytes = settings_.max_output_bytes;
  return context;
}

void JobRunner::remove_folder(const std::string& id) const {
  std::error_code ec;
  fs::remove_all(folder(id), ec);
}

void JobRunner::log(const std::string& line) const noexcept {
  if (!settings_.log_jobs) return;
  try {
    std::cout << "lsm serve: " << line << std::endl;
  } catch (...) {  // a closed stdout does not stop a worker
  }
}

void JobRunner::wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++wakeups_;
  }
  queued_.notify_one();
}

bool JobRunner::dismiss(const std::string& id) {
  // The store decides first, in one step: of a dismissal and the end of a
  // run, only one changes the status.
  const std::optional<std::string> before = store_.dismiss(id, "dismissed by the client");
  if (!before) return false;
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
  // A job a worker here still holds loses its folder when the worker lets
  // go (work()); one running on another node, when that node's watcher
  // sees the dismissal and its worker lets go.
  if (!held && *before != "running") remove_folder(id);
  ended_.notify_all();
  return true;
}

bool JobRunner::wait(const std::string& id, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const auto poll = std::chrono::milliseconds(static_cast<int64_t>(settings_.poll_s * 1000) + 1);
  for (;;) {
    const std::optional<JobRecord> job = store_.find(id);
    if (!job || ended(job->status)) return true;
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopping_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    // Woken when a job ends here; a job on another node is seen at the next poll.
    ended_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(poll, deadline - now));
  }
}

std::optional<JobRecord> JobRunner::claim() noexcept {
  try {
    std::optional<JobRecord> job = store_.claim(settings_.node, settings_.lease_s);
    std::lock_guard<std::mutex> lock(mutex_);
    last_store_error_.clear();
    return job;
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_store_error_ != e.what()) {  // a store that is down is said once, not at every poll
      last_store_error_ = e.what();
      std::fprintf(stderr, "lsm serve: cannot take a job from the store: %s\n", e.what());
    }
    return std::nullopt;
  }
}

void JobRunner::work() {
  const auto poll = std::chrono::milliseconds(static_cast<int64_t>(settings_.poll_s * 1000) + 1);
  for (;;) {
    uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      seen = wakeups_;
    }
    const std::optional<JobRecord> claimed = claim();
    if (!claimed) {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_.wait_for(lock, poll, [&] { return stopping_ || wakeups_ != seen; });
      continue;
    }
    auto job = std::make_shared<Job>(claimed->id);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      active_[job->id] = job;
      if (stopping_) job->cancel = true;
    }
    log("job " + job->id + " (" + claimed->process + ") started on " + settings_.node);
    run(*job, *claimed);
    bool dismissed = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      active_.erase(job->id);
      dismissed = job->dismissed;  // set under this lock by dismiss() or the watcher, who left the folder to us
    }
    if (dismissed) remove_folder(job->id);
    ended_.notify_all();
  }
}

JobRunner::Recorded JobRunner::record(const std::string& id, const std::vector<std::string>& from,
                                      const std::string& status, const std::string& message,
                                      bool client_fault) noexcept {
  try {
    const bool changed = store_.transition(id, from, status, message, client_fault);
    if (changed) log("job " + id + " " + status + (status == "failed" ? ": " + message : ""));
    return changed ? Recorded::Changed : Recorded::Refused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lsm serve: cannot record job %s as %s: %s\n", id.c_str(), status.c_str(), e.what());
    return Recorded::Failed;
  }
}

void JobRunner::run(Job& job, const JobRecord& claimed) {
  int last_percent = -1;
  auto last_write = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  ops::RunContext context = job_context(job.id);
  context.cancel = &job.cancel;
  context.progress = [&](double f) {
    const int percent = std::max(0, std::min(99, static_cast<int>(f * 100)));
    // A new percentage at most five times a second: each is a write to the
    // store (on PostgreSQL a round trip), and a short job passes a hundred.
    const auto now = std::chrono::steady_clock::now();
    if (percent != last_percent && now - last_write >= std::chrono::milliseconds(200)) {
      last_percent = percent;
      last_write = now;
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
    const PreparedJob prepared = prepare_(claimed);
    std::error_code ec;
    fs::create_directories(folder(job.id), ec);
    // A GPU runs one job at a time; CPU jobs share the cores.
    std::unique_lock<std::mutex> gpu(gpu_, std::defer_lock);
    if (ops::may_use_gpu(prepared.values)) gpu.lock();
    if (!job.cancel) prepared.operation->run(prepared.values, context);
  } catch (const Error& e) {
    failure = filter_(e.what());
    client_fault = e.kind() == ErrorKind::BadInput;  // the input or a value the client sent
  } catch (const std::exception& e) {
    failure = filter_(e.what());
  }
  const uint64_t limit = settings_.max_output_bytes;
  // Outputs that ended past the limit between two looks of the watcher.
  if (failure.empty() && !job.cancel && limit > 0 && folder_bytes(folder(job.id)) > limit) job.too_large = true;
  // Each end is a transition from running: refused when a dismissal came
  // first (its status stays dismissed), and then the results go.
  if (job.timed_out || job.too_large || !failure.empty() || job.cancel) {
    remove_folder(job.id);
    if (job.timed_out)
      record(job.id, {"running"}, "failed",
             "the job ran longer than --job-timeout (" + std::to_string(settings_.timeout_s) + " s)");
    else if (job.too_large)  // what the client asked for makes more than this server keeps
      record(job.id, {"running"}, "failed",
             "the job's outputs grew past --max-output-bytes (" + std::to_string(limit) + " bytes)", true);
    else if (!failure.empty())
      record(job.id, {"running"}, "failed", failure, client_fault);
    else  // cancelled without a reason of its own: the node is stopping
      record(job.id, {"running"}, "failed", "the server stopped before the job ended; it was not re-run");
  } else if (record(job.id, {"running"}, "successful", "done") != Recorded::Changed) {
    remove_folder(job.id);  // dismissed meanwhile, or results nobody can be told of
  }
}

void JobRunner::look_at_store(const std::vector<std::shared_ptr<Job>>& running) {
  try {
    // Dismissed through another node (or failed by one, when this node lost
    // its lease): the run stops, its end is refused by the store and its
    // folder goes (run()). A status this node wrote itself is seen only
    // after the run's end, when cancelling changes nothing.
    for (const std::shared_ptr<Job>& job : running) {
      if (job->cancel) continue;
      const std::optional<JobRecord> now = store_.find(job->id);
      if (!now || now->status != "running") job->cancel = true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_renewal_).count() < settings_.lease_s / 3) return;
    last_renewal_ = now;
    store_.renew_leases(settings_.node, settings_.lease_s);
    if (!store_.shared()) return;  // one node: nobody else's jobs to look after
    const std::string why = "the node running the job stopped (its lease of " +
                            std::to_string(static_cast<int64_t>(settings_.lease_s)) + " s expired); it was not re-run";
    for (const std::string& id : store_.fail_orphans(why)) {
      log("job " + id + " failed: " + why);
      remove_folder(id);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lsm serve: cannot look at the job store: %s\n", e.what());
  }
}

void JobRunner::watch_jobs() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    ended_.wait_for(lock, std::chrono::milliseconds(250));
    if (stopping_) return;
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<Job>> running;
    for (auto& [id, job] : active_) {
      if (settings_.timeout_s > 0 && std::chrono::duration<double>(now - job->started).count() > settings_.timeout_s) {
        job->timed_out = true;
        job->cancel = true;
      }
      running.push_back(job);
    }
    lock.unlock();  // the store and the disk are read without holding the runner
    look_at_store(running);
    if (settings_.max_output_bytes > 0)
      for (const std::shared_ptr<Job>& job : running)
        if (!job->cancel && folder_bytes(folder(job->id)) > settings_.max_output_bytes) {
          job->too_large = true;
          job->cancel = true;
        }
    lock.lock();
  }
}

}  // namespace lsm::serve
