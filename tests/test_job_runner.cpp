// The service's job states (issue 47, "every job ends in exactly one true
// state"): the store's status changes are compare-and-set, so that of a
// dismissal and the end of a run only one wins, and the runner never runs a
// job dismissed before it started nor keeps the folder of a dismissed one.
// Operations here are stand-ins whose runs the test steps through.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "job_runner.h"
#include "job_store.h"

namespace lsm::serve {
namespace {

namespace fs = std::filesystem;

class JobStates : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lsm_job_states_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "jobs");
    store_ = std::make_unique<JobStore>((dir_ / "jobs.db").string());
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  void insert(const std::string& id) {
    JobRecord job;
    job.id = id;
    job.process = "stand-in";
    job.status = "accepted";
    job.message = "queued";
    job.request = "{}";
    store_->insert(job);
  }
  std::string status(const std::string& id) const { return store_->find(id)->status; }
  std::string jobs_dir() const { return (dir_ / "jobs").string(); }

  fs::path dir_;
  std::unique_ptr<JobStore> store_;
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

TEST_F(JobStates, StoreChangesStatusOnlyFromTheStatesGiven) {
  insert("a");
  EXPECT_FALSE(store_->transition("a", {"running"}, "successful", "done"));
  EXPECT_EQ(status("a"), "accepted");
  EXPECT_TRUE(store_->transition("a", {"accepted", "running"}, "dismissed", "dismissed by the client"));
  // A worker that picks the job up now, or a run that ends now, changes nothing.
  EXPECT_FALSE(store_->transition("a", {"accepted"}, "running", "running"));
  EXPECT_FALSE(store_->transition("a", {"running"}, "successful", "done"));
  EXPECT_FALSE(store_->transition("a", {"accepted", "running", "successful", "failed"}, "dismissed", "again"));
  const JobRecord a = *store_->find("a");
  EXPECT_EQ(a.status, "dismissed");
  EXPECT_EQ(a.message, "dismissed by the client");
  EXPECT_NE(a.finished, "");
  EXPECT_EQ(a.started, "");
  EXPECT_FALSE(store_->transition("no such job", {"accepted"}, "running", "running"));
}

TEST_F(JobStates, JobDismissedWhileQueuedNeverRuns) {
  Steps first_steps, second_steps;
  const ops::Operation first = stand_in(first_steps), second = stand_in(second_steps);
  JobRunner runner(*store_, 1, 0, jobs_dir(), 1 << 20);
  insert("first");
  insert("second");
  runner.submit("first", first, ops::ParameterValues(first.spec, ops::kService));
  first_steps.wait_until(first_steps.started);  // the only worker is busy
  runner.submit("second", second, ops::ParameterValues(second.spec, ops::kService));
  EXPECT_TRUE(runner.dismiss("second"));
  EXPECT_FALSE(runner.dismiss("second")) << "a second dismissal is refused";
  first_steps.set(first_steps.may_finish);
  ASSERT_TRUE(runner.wait("first", std::chrono::seconds(20)));
  ASSERT_TRUE(runner.wait("second", std::chrono::seconds(20)));
  EXPECT_EQ(second_steps.runs, 0);
  EXPECT_EQ(status("second"), "dismissed");
  EXPECT_EQ(status("first"), "successful");
  EXPECT_TRUE(fs::exists(fs::path(runner.folder("first")) / "result.tif"));
  EXPECT_FALSE(fs::exists(runner.folder("second")));
}

TEST_F(JobStates, RunThatEndsAfterItsDismissalStaysDismissedWithoutResults) {
  Steps steps;
  const ops::Operation op = stand_in(steps);
  JobRunner runner(*store_, 1, 0, jobs_dir(), 1 << 20);
  insert("j");
  runner.submit("j", op, ops::ParameterValues(op.spec, ops::kService));
  steps.wait_until(steps.started);
  EXPECT_EQ(status("j"), "running");
  EXPECT_TRUE(runner.dismiss("j"));
  EXPECT_EQ(status("j"), "dismissed");
  steps.set(steps.may_finish);  // the run ends normally after all
  ASSERT_TRUE(runner.wait("j", std::chrono::seconds(20)));
  EXPECT_EQ(status("j"), "dismissed");
  EXPECT_FALSE(fs::exists(runner.folder("j"))) << "the dismissed job's result was kept";
}

TEST_F(JobStates, FinishedJobDismissedLosesItsResults) {
  Steps steps;
  const ops::Operation op = stand_in(steps);
  JobRunner runner(*store_, 1, 0, jobs_dir(), 1 << 20);
  insert("j");
  steps.may_finish = true;
  runner.submit("j", op, ops::ParameterValues(op.spec, ops::kService));
  ASSERT_TRUE(runner.wait("j", std::chrono::seconds(20)));
  ASSERT_EQ(status("j"), "successful");
  ASSERT_TRUE(fs::exists(runner.folder("j")));
  EXPECT_TRUE(runner.dismiss("j"));
  EXPECT_EQ(status("j"), "dismissed");
  EXPECT_FALSE(fs::exists(runner.folder("j")));
}

}  // namespace
}  // namespace lsm::serve
