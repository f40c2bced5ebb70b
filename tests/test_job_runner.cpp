// The service's job stores and runner (issue 47, "every job ends in exactly
// one true state"; issue 52, service nodes on one PostgreSQL store): status
// changes are compare-and-set, so that of a dismissal and the end of a run
// only one wins; a job is claimed by exactly one worker of one node; the
// queue limit holds under concurrent submissions; a node's expired lease
// fails its job; a runner never runs a job dismissed before it started nor
// keeps the folder of a dismissed one. Each test runs on SQLite and, where
// LSM_TEST_PG names a database (ctest's PostgreSQL variant runs these tests
// in a throwaway cluster), on PostgreSQL. Operations here are stand-ins
// whose runs the test steps through.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "error.h"
#include "job_runner.h"
#include "job_store.h"
#ifdef LSM_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

namespace lsm::serve {
namespace {

namespace fs = std::filesystem;

const char* postgres_uri() { return std::getenv("LSM_TEST_PG"); }

class JobStates : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lsm_job_states_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "jobs");
    if (GetParam() == "postgresql") {
#ifndef LSM_HAVE_LIBPQ
      GTEST_SKIP() << "built without libpq (libpq-dev)";
#else
      if (!postgres_uri()) GTEST_SKIP() << "LSM_TEST_PG names no PostgreSQL database (ctest's JobStore.PostgreSqlInAThrowawayCluster does)";
      // Each test on an empty table.
      PGconn* c = PQconnectdb(postgres_uri());
      ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
      PQclear(PQexec(c, "DROP TABLE IF EXISTS lsm_jobs"));
      PQfinish(c);
#endif
    }
    store_ = open_store();
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  // A store of the kind under test; on PostgreSQL each call is a node of its own.
  std::unique_ptr<JobStore> open_store() const {
    return open_job_store(GetParam() == "postgresql" ? postgres_uri() : "sqlite", dir_.string());
  }
  void insert(const std::string& id, const std::string& created = "") {
    JobRecord job;
    job.id = id;
    job.process = "stand-in";
    job.status = "accepted";
    job.message = "queued";
    job.created = created;
    job.request = "{}";
    store_->insert(job);
  }
  std::string status(const std::string& id) const { return store_->find(id)->status; }

  // A runner on `store` whose jobs run the stand-ins registered in `runs`.
  std::unique_ptr<JobRunner> runner(JobStore& store, const std::string& node = "node-a", double lease_s = 30) {
    RunnerSettings s;
    s.workers = 1;
    s.jobs_dir = (dir_ / "jobs").string();
    s.job_memory = 1 << 20;
    s.node = node;
    s.lease_s = lease_s;
    s.poll_s = 0.05;
    return std::make_unique<JobRunner>(
        store,
        [this](const JobRecord& job) {
          std::lock_guard<std::mutex> lock(runs_mutex_);
          const auto it = runs_.find(job.id);
          if (it == runs_.end()) throw Error(ErrorKind::BadInput, "no stand-in for job " + job.id);
          return PreparedJob(*it->second, ops::ParameterValues(it->second->spec, ops::kService));
        },
        s);
  }
  // Job `id` runs `op` (registered before it is inserted: a worker may claim it at once).
  void submit(JobRunner& r, const std::string& id, const ops::Operation& op, const std::string& created = "") {
    {
      std::lock_guard<std::mutex> lock(runs_mutex_);
      runs_[id] = &op;
    }
    insert(id, created);
    r.wake();
  }

  fs::path dir_;
  std::unique_ptr<JobStore> store_;
  std::mutex runs_mutex_;
  std::map<std::string, const ops::Operation*> runs_;
};

// One step at a time of a stand-in operation's run, driven by the test.
struct Steps {
  std::mutex mutex;
  std::condition_variable changed;
  int runs = 0;
  bool started = false, may_finish = false;
  void wait_until(bool& flag) {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(20), [&] { return flag; }));
  }
  void set(bool& flag) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      flag = true;
    }
    changed.notify_all();
  }
};

// Runs: says it started, waits until allowed, writes a result into its job
// folder and returns normally, whatever its cancel flag says (as a run
// does whose last step is past its last cancel check).
ops::Operation stand_in(Steps& steps) {
  ops::Operation op;
  op.spec.name = "stand-in";
  op.run = [&steps](const ops::ParameterValues&, const ops::RunContext& context) {
    {
      std::lock_guard<std::mutex> lock(steps.mutex);
      ++steps.runs;
    }
    steps.set(steps.started);
    steps.wait_until(steps.may_finish);
    std::ofstream(fs::path(context.budget.temp_dir) / "result.tif") << "done";
  };
  return op;
}

// Runs until cancelled, writing into its folder meanwhile, then stops as an
// operation does: with "interrupted".
ops::Operation until_cancelled(Steps& steps) {
  ops::Operation op;
  op.spec.name = "stand-in";
  op.run = [&steps](const ops::ParameterValues&, const ops::RunContext& context) {
    std::ofstream(fs::path(context.budget.temp_dir) / "partial.tif") << "half";
    steps.set(steps.started);
    for (int i = 0; i < 2000 && !*context.cancel; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    throw Error(ErrorKind::Io, "interrupted");
  };
  return op;
}

bool eventually(const std::function<bool()>& condition) {
  for (int i = 0; i < 400; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

TEST_P(JobStates, StoreChangesStatusOnlyFromTheStatesGiven) {
  insert("a");
  EXPECT_FALSE(store_->transition("a", {"running"}, "successful", "done"));
  EXPECT_EQ(status("a"), "accepted");
  EXPECT_TRUE(store_->transition("a", {"accepted", "running"}, "dismissed", "dismissed by the client"));
  // A worker that picks the job up now, or a run that ends now, changes nothing.
  EXPECT_FALSE(store_->transition("a", {"accepted"}, "running", "running"));
  EXPECT_FALSE(store_->transition("a", {"running"}, "successful", "done"));
  EXPECT_FALSE(store_->claim("node", 30)) << "a dismissed job was claimed";
  EXPECT_FALSE(store_->transition("a", {"accepted", "running", "successful", "failed"}, "dismissed", "again"));
  const JobRecord a = *store_->find("a");
  EXPECT_EQ(a.status, "dismissed");
  EXPECT_EQ(a.message, "dismissed by the client");
  EXPECT_NE(a.finished, "");
  EXPECT_EQ(a.started, "");
  EXPECT_FALSE(store_->transition("no such job", {"accepted"}, "running", "running"));
}

TEST_P(JobStates, DismissalSaysWhatTheJobWasOnce) {
  insert("queued");
  insert("done");
  ASSERT_TRUE(store_->transition("done", {"accepted"}, "successful", "done"));
  EXPECT_EQ(store_->dismiss("queued", "dismissed by the client"), std::optional<std::string>("accepted"));
  EXPECT_EQ(store_->dismiss("done", "dismissed by the client"), std::optional<std::string>("successful"));
  EXPECT_EQ(store_->dismiss("done", "again"), std::nullopt);
  EXPECT_EQ(store_->dismiss("no such job", "x"), std::nullopt);
  EXPECT_EQ(store_->find("done")->message, "dismissed by the client");
  EXPECT_EQ(store_->count_with_status("dismissed"), 2);
}

TEST_P(JobStates, ListsAndCountsTheJobsAFilterTakesNewestFirst) {
  const struct {
    const char *id, *owner, *process, *status, *created;
  } jobs[] = {{"a1", "ana", "metrics", "successful", "2026-11-28T10:00:01.000Z"},
              {"a2", "ana", "label", "failed", "2026-11-28T10:00:02.000Z"},
              {"a3", "ana", "metrics", "accepted", "2026-11-28T10:00:03.000Z"},
              {"b1", "ben", "metrics", "successful", "2026-11-28T10:00:04.000Z"}};
  for (const auto& j : jobs) {
    JobRecord r;
    r.id = j.id;
    r.owner = j.owner;
    r.process = j.process;
    r.status = j.status;
    r.created = j.created;
    store_->insert(r);
  }
  const auto ids = [&](const JobFilter& f, int64_t offset = 0, int64_t limit = 10) {
    std::string out;
    for (const JobRecord& r : store_->list(f, offset, limit)) out += r.id + " ";
    return out;
  };
  EXPECT_EQ(ids({}), "b1 a3 a2 a1 ");
  EXPECT_EQ(store_->count({}), 4);
  JobFilter ana;
  ana.owner = "ana";
  EXPECT_EQ(ids(ana), "a3 a2 a1 ");
  EXPECT_EQ(ids(ana, 1, 1), "a2 ");
  EXPECT_EQ(store_->find("a1")->owner, "ana");
  JobFilter metrics_done;
  metrics_done.processes = {"metrics"};
  metrics_done.statuses = {"successful", "failed"};
  EXPECT_EQ(ids(metrics_done), "b1 a1 ");
  EXPECT_EQ(store_->count(metrics_done), 2);
  metrics_done.owner = "ana";
  EXPECT_EQ(ids(metrics_done), "a1 ");
  JobFilter nobody;
  nobody.owner = "carl";
  EXPECT_EQ(store_->count(nobody), 0);
  JobFilter none;  // a type of job this service has not
  none.none = true;
  EXPECT_EQ(ids(none), "");
  EXPECT_EQ(store_->count(none), 0);
}

TEST_P(JobStates, FiltersOnCreationTimeAndDuration) {
  // created, started, finished: durations 10 s, 100 s, running since
  // 2000-01-01 (years), and one that never started.
  const struct {
    const char *id, *status, *created, *started, *finished;
  } jobs[] = {{"short", "successful", "2026-11-28T10:00:00.000Z", "2026-11-28T10:00:00.000Z", "2026-11-28T10:00:10.000Z"},
              {"long", "failed", "2026-11-28T11:00:00.000Z", "2026-11-28T11:00:00.000Z", "2026-11-28T11:01:40.000Z"},
              {"running", "running", "2000-01-01T00:00:00.000Z", "2000-01-01T00:00:00.000Z", ""},
              {"queued", "accepted", "2026-11-28T12:00:00.000Z", "", ""}};
  for (const auto& j : jobs) {
    JobRecord r;
    r.id = j.id;
    r.process = "metrics";
    r.status = j.status;
    r.created = j.created;
    r.started = j.started;
    r.finished = j.finished;
    store_->insert(r);
  }
  const auto ids = [&](const JobFilter& f) {
    std::string out;
    for (const JobRecord& r : store_->list(f, 0, 10)) out += r.id + " ";
    return out;
  };
  JobFilter f;
  f.created_from = "2026-11-28T10:30:00.000Z";
  EXPECT_EQ(ids(f), "queued long ");
  f.created_to = "2026-11-28T11:00:00.000Z";
  EXPECT_EQ(ids(f), "long ");
  JobFilter at_least;
  at_least.min_seconds = 50;
  EXPECT_EQ(ids(at_least), "long running ") << "a running job runs until now; a queued one has no duration";
  JobFilter at_most;
  at_most.max_seconds = 50;
  EXPECT_EQ(ids(at_most), "short ");
  at_most.min_seconds = 10;
  EXPECT_EQ(store_->count(at_most), 1);
}

TEST(Rfc3339, ClientTimesBecomeTheStoresUtcMilliseconds) {
  EXPECT_EQ(normalized_rfc3339("2026-11-28T10:00:00Z"), std::optional<std::string>("2026-11-28T10:00:00.000Z"));
  EXPECT_EQ(normalized_rfc3339("2026-11-28t11:30:00.25+01:30"), std::optional<std::string>("2026-11-28T10:00:00.250Z"));
  EXPECT_EQ(normalized_rfc3339("2026-11-27T23:00:00-01:00"), std::optional<std::string>("2026-11-28T00:00:00.000Z"));
  for (const char* bad : {"2026-11-28", "2026-11-28T10:00:00", "2026-13-01T00:00:00Z", "2026-11-28T10:00:00+1",
                          "2026-11-28T10:00:00Zjunk", "yesterday", ""})
    EXPECT_EQ(normalized_rfc3339(bad), std::nullopt) << bad;
}

TEST_P(JobStates, ClaimTakesTheOldestAcceptedJobForOneNode) {
  insert("b", "2026-11-28T10:00:02.000Z");
  insert("a", "2026-11-28T10:00:01.000Z");
  insert("c", "2026-11-28T10:00:03.000Z");
  ASSERT_TRUE(store_->transition("c", {"accepted"}, "dismissed", "dismissed by the client"));
  const std::optional<JobRecord> first = store_->claim("node-1", 30);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->id, "a");
  EXPECT_EQ(first->status, "running");
  EXPECT_EQ(first->node, "node-1");
  EXPECT_NE(first->started, "");
  const std::optional<JobRecord> second = store_->claim("node-2", 30);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->id, "b");
  EXPECT_EQ(store_->find("b")->node, "node-2");
  EXPECT_FALSE(store_->claim("node-1", 30)) << "no accepted job is left";
}

TEST_P(JobStates, ConcurrentWorkersOfSeveralNodesClaimEachJobExactlyOnce) {
  const int jobs = 300, nodes = 3, workers = 4;
  for (int i = 0; i < jobs; ++i) insert("job-" + std::to_string(1000 + i));
  std::vector<std::unique_ptr<JobStore>> stores;
  for (int n = 0; n < nodes; ++n) stores.push_back(n == 0 || GetParam() == "sqlite" ? nullptr : open_store());
  std::mutex mutex;
  std::multiset<std::string> claimed;
  std::vector<std::thread> threads;
  for (int n = 0; n < nodes; ++n)
    for (int w = 0; w < workers; ++w)
      threads.emplace_back([&, n] {
        JobStore& store = stores[n] ? *stores[n] : *store_;  // SQLite: one store, one node's threads
        while (const std::optional<JobRecord> job = store.claim("node-" + std::to_string(n), 30)) {
          std::lock_guard<std::mutex> lock(mutex);
          claimed.insert(job->id);
        }
      });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(claimed.size(), static_cast<size_t>(jobs));
  EXPECT_EQ(std::set<std::string>(claimed.begin(), claimed.end()).size(), static_cast<size_t>(jobs))
      << "a job was claimed twice";
  EXPECT_EQ(store_->count_with_status("running"), jobs);
}

TEST_P(JobStates, QueueLimitHoldsUnderConcurrentSubmissions) {
  std::vector<std::unique_ptr<JobStore>> stores;
  for (int n = 0; n < 4; ++n) stores.push_back(GetParam() == "sqlite" ? nullptr : open_store());
  std::atomic<int> inserted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&, t] {
      JobStore& store = stores[t % 4] ? *stores[t % 4] : *store_;
      JobRecord job;
      job.id = "j" + std::to_string(t);
      job.process = "stand-in";
      job.status = "accepted";
      job.created = job.updated = now_rfc3339();
      if (store.insert_within(job, 5)) ++inserted;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(inserted.load(), 5);
  EXPECT_EQ(store_->count_with_status("accepted"), 5);
}

TEST_P(JobStates, OrphanedJobsFailAndQueuedOnesStay) {
  insert("queued", "2026-11-28T10:00:03.000Z");
  insert("kept", "2026-11-28T10:00:01.000Z");
  insert("lost", "2026-11-28T10:00:02.000Z");
  ASSERT_EQ(store_->claim("alive", 1.0)->id, "kept");
  ASSERT_EQ(store_->claim("gone", 1.0)->id, "lost");
  if (!store_->shared()) {
    // One node's store, read at its start: every running job was the last server's.
    EXPECT_EQ(store_->fail_orphans("the server stopped").size(), 2u);
    EXPECT_EQ(status("kept"), "failed");
    EXPECT_EQ(status("queued"), "accepted");
    return;
  }
  EXPECT_TRUE(store_->fail_orphans("lease expired").empty()) << "a lease was taken for expired early";
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  store_->renew_leases("alive", 1.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(store_->fail_orphans("the node stopped"), std::vector<std::string>{"lost"});
  EXPECT_EQ(status("lost"), "failed");
  EXPECT_EQ(store_->find("lost")->message, "the node stopped");
  EXPECT_EQ(status("kept"), "running") << "a renewed lease expired";
  EXPECT_EQ(status("queued"), "accepted");
}

TEST_P(JobStates, JobDismissedWhileQueuedNeverRuns) {
  Steps first_steps, second_steps;
  const ops::Operation first = stand_in(first_steps), second = stand_in(second_steps);
  std::unique_ptr<JobRunner> r = runner(*store_);
  submit(*r, "first", first, "2026-11-28T10:00:01.000Z");
  first_steps.wait_until(first_steps.started);  // the only worker is busy
  submit(*r, "second", second, "2026-11-28T10:00:02.000Z");
  EXPECT_TRUE(r->dismiss("second"));
  EXPECT_FALSE(r->dismiss("second")) << "a second dismissal is refused";
  first_steps.set(first_steps.may_finish);
  ASSERT_TRUE(r->wait("first", std::chrono::seconds(20)));
  ASSERT_TRUE(r->wait("second", std::chrono::seconds(20)));
  EXPECT_EQ(second_steps.runs, 0);
  EXPECT_EQ(status("second"), "dismissed");
  EXPECT_EQ(status("first"), "successful");
  EXPECT_TRUE(fs::exists(fs::path(r->folder("first")) / "result.tif"));
  EXPECT_FALSE(fs::exists(r->folder("second")));
}

TEST_P(JobStates, RunThatEndsAfterItsDismissalStaysDismissedWithoutResults) {
  Steps steps;
  const ops::Operation op = stand_in(steps);
  std::unique_ptr<JobRunner> r = runner(*store_);
  submit(*r, "j", op);
  steps.wait_until(steps.started);
  EXPECT_EQ(status("j"), "running");
  EXPECT_TRUE(r->dismiss("j"));
  EXPECT_EQ(status("j"), "dismissed");
  steps.set(steps.may_finish);  // the run ends normally after all
  ASSERT_TRUE(r->wait("j", std::chrono::seconds(20)));
  EXPECT_TRUE(eventually([&] { return !fs::exists(r->folder("j")); })) << "the dismissed job's result was kept";
  EXPECT_EQ(status("j"), "dismissed");
}

TEST_P(JobStates, FinishedJobDismissedLosesItsResults) {
  Steps steps;
  const ops::Operation op = stand_in(steps);
  std::unique_ptr<JobRunner> r = runner(*store_);
  steps.may_finish = true;
  submit(*r, "j", op);
  ASSERT_TRUE(r->wait("j", std::chrono::seconds(20)));
  ASSERT_EQ(status("j"), "successful");
  ASSERT_TRUE(fs::exists(r->folder("j")));
  EXPECT_TRUE(r->dismiss("j"));
  EXPECT_EQ(status("j"), "dismissed");
  EXPECT_FALSE(fs::exists(r->folder("j")));
}

TEST_P(JobStates, JobThatCannotBePreparedFailsAsTheClientsFault) {
  std::unique_ptr<JobRunner> r = runner(*store_);
  insert("unknown");  // no stand-in registered: its request cannot be run
  r->wake();
  ASSERT_TRUE(r->wait("unknown", std::chrono::seconds(20)));
  const JobRecord job = *store_->find("unknown");
  EXPECT_EQ(job.status, "failed");
  EXPECT_TRUE(job.client_fault);
  EXPECT_EQ(job.message, "no stand-in for job unknown");
  EXPECT_FALSE(fs::exists(r->folder("unknown")));
}

// Two nodes on one store: a job one node runs is dismissed through the
// other, which only writes the store; the running node sees it, stops the
// run and removes its folder.
TEST_P(JobStates, DismissalThroughAnotherNodeStopsTheRun) {
  if (!store_->shared()) GTEST_SKIP() << "a SQLite store has one node";
  Steps steps;
  const ops::Operation op = until_cancelled(steps);
  std::unique_ptr<JobRunner> running_node = runner(*store_, "node-a");
  std::unique_ptr<JobStore> other_store = open_store();
  submit(*running_node, "j", op);
  steps.wait_until(steps.started);
  ASSERT_TRUE(fs::exists(running_node->folder("j")));
  std::unique_ptr<JobRunner> other_node = runner(*other_store, "node-b");
  EXPECT_TRUE(other_node->dismiss("j"));
  ASSERT_TRUE(other_node->wait("j", std::chrono::seconds(20)));
  EXPECT_TRUE(eventually([&] { return !fs::exists(running_node->folder("j")); })) << "the run went on";
  EXPECT_EQ(status("j"), "dismissed");
}

// A node that stops renewing (killed) loses its job to another node's
// watcher once the lease expires: failed, not re-run, its folder gone.
TEST_P(JobStates, AnotherNodeFailsTheJobOfANodeWhoseLeaseExpired) {
  if (!store_->shared()) GTEST_SKIP() << "a SQLite store has one node";
  insert("orphan");
  ASSERT_TRUE(store_->claim("killed-node", 1.0));
  fs::create_directories(dir_ / "jobs" / "orphan");
  std::unique_ptr<JobStore> other_store = open_store();
  std::unique_ptr<JobRunner> watcher = runner(*other_store, "node-b", 2.0);  // looks every 2/3 s
  EXPECT_TRUE(eventually([&] { return status("orphan") == "failed"; }));
  EXPECT_NE(store_->find("orphan")->message.find("lease"), std::string::npos) << store_->find("orphan")->message;
  EXPECT_TRUE(eventually([&] { return !fs::exists(dir_ / "jobs" / "orphan"); }));
}

INSTANTIATE_TEST_SUITE_P(Stores, JobStates, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "sqlite" ? std::string("Sqlite") : std::string("PostgreSql");
                         });

}  // namespace
}  // namespace lsm::serve
