// lsm metrics in bounded memory: with a tiny --memory-limit every part that
// can go to a scratch file goes there (patch records, per-patch values, core
// areas, ENN's edge cells; the raster labeled again instead of kept, the
// distributions computed in passes), and the tables must be byte-identical
// to the default run's, for every tile size and both neighbour rules. The
// scratch files must leave nothing behind: after success, an error, SIGTERM.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <thread>

#include "cli_fixture.h"
#include "shared_data.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

class CliStreaming : public CliFixture {
 protected:
  // The four tables of a run with prefix `name`, concatenated.
  std::string tables(const std::string& name) {
    std::string all;
    for (const char* t : {".patch.csv", ".class.csv", ".land.csv", ".adj.csv"}) {
      const std::string text = slurp(path(name + t));
      EXPECT_FALSE(text.empty()) << name << t;
      all += std::string(t) + "\n" + text;
    }
    return all;
  }
  // A `w` x `h` random landscape as a GeoTIFF (UTM, 30 m cells), 9 classes.
  std::string random_tif(const std::string& name, int w, int h) {
    const MemoryClassRaster r = random_landscape(w, h, 9, 21, 0.02);
    return make_raster(name, w, h, 1, [&](int x, int y, int) {
      const int32_t c = r.cells()[static_cast<size_t>(y) * w + x];
      return c == kNoClass ? 0.0f : static_cast<float>(c);
    });
  }
};

extern "C" char** environ;

// Peak resident memory (kB) of one `lsm ARGS` run, from wait4 on the process
// itself (no shell between), or -1 when it fails.
long peak_kb_of_lsm(const std::vector<std::string>& args) {
  std::vector<std::string> all{LSM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, LSM_BINARY, &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) return -1;
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

// --memory-limit is a ceiling that the peak follows down: every operation
// that labels patches, on a 9 Mpx landscape, holds less at 16M (shorter
// strips, records and per-patch arrays on scratch files) than at the
// default 1G, and stays near the floor of GDAL's block cache and the program.
TEST_F(CliStreaming, PeakMemoryFollowsTheMemoryLimit) {
  if (std::getenv("LSM_ASAN_PRELOAD")) GTEST_SKIP() << "peak memory is not measured under AddressSanitizer";
  ASSERT_EQ(run_lsm("synth " + path("s.tif") + " --width 3000 --height 3000 -q").code, 0);
  const std::string in = path("s.tif");
  const std::vector<std::vector<std::string>> commands = {
      {"metrics", in, "--out", path("m")},
      {"label", in, path("l.tif")},
      {"patchmetric", in, path("pm.tif"), "--metric", "ENN"},
      {"patches", in, path("p.gpkg")},
  };
  for (const auto& command : commands) {
    std::filesystem::remove(path("p.gpkg"));
    auto with_limit = [&](const std::string& limit) {
      std::vector<std::string> args = command;
      args.insert(args.end(), {"--memory-limit", limit, "-q"});
      return peak_kb_of_lsm(args);
    };
    const long tight = with_limit("16M");
    std::filesystem::remove(path("p.gpkg"));
    const long roomy = with_limit("1G");
    ASSERT_GT(tight, 0) << command[0];
    ASSERT_GT(roomy, 0) << command[0];
    EXPECT_LT(tight, roomy - 30 * 1024) << command[0] << ": peak kB at 16M and at 1G";
    EXPECT_LT(tight, 256 * 1024) << command[0] << ": peak kB at 16M";
  }
}

TEST_F(CliStreaming, TinyMemoryLimitGivesTheSameTablesOnARealRaster) {
  const std::string augusta = shared_data_dir() + "/landcover/lsm_augusta_nlcd.tif";
  LSM_REQUIRE_SHARED_FILE(augusta);
  std::vector<std::string> backends{"cpu"};
  std::string why;
  if (cuda_available(&why)) backends.push_back("cuda");
  else std::cout << "  CUDA backend not compared: " << why << "\n";
  for (const char* rule : {"8", "4"}) {
    const CliRun base = run_lsm("metrics " + augusta + " -q -n " + rule + " --out " + path("base"));
    ASSERT_EQ(base.code, 0) << base.err;
    const std::string expected = tables("base");
    for (const std::string& backend : backends)
      for (const char* tile : {"", "64", "17"}) {
        const std::string args = std::string(" -n ") + rule + " --backend " + backend +
                                 (*tile ? std::string(" --tile-size ") + tile : std::string());
        const CliRun r = run_lsm("metrics " + augusta + " -q --memory-limit 1M --temp-dir " + path("") + args +
                                 " --out " + path("tiny"));
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(tables("tiny"), expected) << args;
      }
  }
}

TEST_F(CliStreaming, ScratchFilesLeaveNothingBehind) {
  const std::string input = random_tif("r.tif", 3000, 2000);
  std::filesystem::create_directories(path("scratch"));
  const std::string common = "metrics " + input + " -q --memory-limit 1M --temp-dir " + path("scratch");
  // Success.
  ASSERT_EQ(run_lsm(common + " --out " + path("m")).code, 0);
  EXPECT_TRUE(std::filesystem::is_empty(path("scratch")));
  for (const char* t : {".patch.csv", ".class.csv", ".land.csv", ".adj.csv"}) std::filesystem::remove(path(std::string("m") + t));
  // An error: a scratch folder that does not exist fails after the scan, with one line, writing nothing.
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + input + " -q --temp-dir " + path("no_such_folder") + " --out " + path("m")),
                       "cannot create a scratch file in", before);
  // SIGTERM in the middle of the run.
  const CliRun killed = run_shell("timeout -s TERM 0.5 " + std::string(LSM_BINARY) + " " + common + " --out " + path("k"));
  EXPECT_NE(killed.code, 0) << "the run ended before SIGTERM: make the raster larger";
  EXPECT_TRUE(std::filesystem::is_empty(path("scratch")));
  EXPECT_EQ(files(), before) << "no table, finished or half-written, after SIGTERM";
}

TEST_F(CliStreaming, BadMemoryLimits) {
  const std::string input = random_tif("r.tif", 40, 30);
  const auto before = files();
  for (const char* bad : {"lots", "0", "-5G", "12T", "512K"})
    expect_clean_failure(run_lsm("metrics " + input + " --memory-limit " + bad + " --out " + path("m")),
                         "--memory-limit must", before);
}

}  // namespace
}  // namespace lsm::test
