// The moving window on the GPU (window_count_pass.h): the count-based
// metrics, the patch-based NP ... SPLIT and CONTAG give the CPU's bits on
// random grids with nodata, background and a boundary edge share, square
// windows of 3 to 25 cells and round ones, both edge rules, blocks of many
// rows or few, rows asked for strip by strip and several GPUs where the
// machine has them; the CPU side of that promise (the formulas' own
// logarithm) and the refusals of the Cuda backend, which need no GPU.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "error.h"
#include "memory_raster.h"
#include "test_helpers.h"
#include "window_brute_force.h"
#include "window_count_formulas.h"
#include "window_count_program.h"
#include "window_job.h"

namespace lsm::test {
namespace {

// Distance in units in the last place between two finite doubles of one sign.
int64_t ulps(double a, double b) {
  int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  return ia > ib ? ia - ib : ib - ia;
}

TEST(WindowFormulas, LogarithmIsWithinTwoUlpOfTheLibrarys) {
  using window_formulas::det_log;
  EXPECT_EQ(det_log(1.0), 0.0);
  EXPECT_EQ(det_log(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(det_log(-1.0)));
  std::mt19937_64 rng(50);
  std::uniform_real_distribution<double> mantissa(0.5, 2.0);
  std::uniform_int_distribution<int> exponent(-60, 60);
  int64_t worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(mantissa(rng), exponent(rng));
    if (x == 1.0) continue;
    worst = std::max(worst, ulps(det_log(x), std::log(x)));
  }
  // The proportions the windows take logarithms of: n / N of a 21 x 21 window.
  for (int n = 1; n <= 441; ++n)
    if (n != 441) worst = std::max(worst, ulps(det_log(n / 441.0), std::log(n / 441.0)));
  EXPECT_LE(worst, 2);
}

// Clumps of `classes` classes, nodata sprinkled.
std::vector<int32_t> clumps(std::mt19937& rng, int64_t width, int64_t height, int classes) {
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  std::uniform_int_distribution<int> pick(1, classes), percent(0, 99);
  for (int64_t i = 0; i < width * height; ++i) {
    const int64_t x = i % width;
    cells[static_cast<size_t>(i)] = percent(rng) < 55 && x > 0        ? cells[static_cast<size_t>(i - 1)]
                                    : percent(rng) < 45 && i >= width ? cells[static_cast<size_t>(i - width)]
                                                                      : pick(rng);
    if (percent(rng) < 5) cells[static_cast<size_t>(i)] = kNoClass;
  }
  return cells;
}

// Every metric a GPU window computes, at both levels.
WindowJobOptions count_metrics() {
  WindowJobOptions o;
  o.class_metrics = {"CA",    "PLAND",    "NP",   "PD",    "LPI", "TE",     "ED",
                     "LSI",   "PLADJ",    "DIVISION", "MESH", "SPLIT", "AI",  "CLUMPY", "NLSI"};
  o.landscape_metrics = {"TA",       "NP",   "PD",    "LPI", "TE",  "ED",  "LSI",  "CONTAG", "PLADJ", "DIVISION",
                         "MESH",     "SPLIT", "AI",   "PR",  "PRD", "RPR", "SHDI", "SIDI",   "MSIDI", "SHEI",
                         "SIEI",     "MSIEI"};
  o.max_richness = 7;
  return o;
}

std::vector<uint64_t> bits(const KeptRows& kept) {
  std::vector<uint64_t> out;
  for (const std::vector<double>& row : kept.rows)
    for (double v : row) {
      uint64_t b = 0;
      std::memcpy(&b, &v, sizeof b);
      out.push_back(std::isnan(v) ? 1 : b);  // every NaN alike
    }
  return out;
}

TEST(WindowGpu, CountMetricsEqualTheCpusBits) {
  LSM_REQUIRE_CUDA();
  std::mt19937 rng(4850);
  struct Case {
    int64_t width, height, half;
    double radius = 0;  // > 0: a round window of this radius (m), cells 30 x 30 (or 30 x 20)
  };
  // 25 x 25 windows take the kernel for windows of up to 45 x 45 cells' patches.
  for (const Case& c : {Case{23, 19, 1}, Case{40, 37, 2}, Case{97, 61, 5}, Case{301, 257, 10}, Case{90, 71, 12},
                        Case{61, 53, 0, 75}, Case{120, 101, 0, 300}}) {
    for (int trial = 0; trial < 4; ++trial) {
      const std::vector<int32_t> cells = clumps(rng, c.width, c.height, 3 + trial);
      MemoryClassRaster raster(c.width, c.height, cells, 30, trial == 3 ? 20 : 30);
      WindowJobOptions o = count_metrics();
      o.shape = c.radius > 0 ? circular_window(c.radius, 30, trial == 3 ? 20 : 30) : square_window(c.half);
      if (trial % 2) o.background = {1};
      o.boundary_edge = trial == 2 ? 0.5 : 0;
      o.edge = trial == 1 ? WindowEdge::Skip : WindowEdge::Clip;
      o.rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
      const std::string what = std::to_string(c.width) + "x" + std::to_string(c.height) +
                               (c.radius > 0 ? " circle " + std::to_string(c.radius) + " m"
                                             : " window " + std::to_string(2 * c.half + 1)) +
                               " trial " + std::to_string(trial);
      ASSERT_TRUE(window_runs_on_gpu(plan_window_job(raster, o), o)) << what;
      o.backend = Backend::Cpu;
      const KeptRows cpu = run(raster, o);
      o.backend = Backend::Cuda;
      const KeptRows gpu = run(raster, o);
      ASSERT_EQ(gpu.rows.size(), static_cast<size_t>(c.height)) << what;
      const std::vector<uint64_t> want = bits(cpu), got = bits(gpu);
      size_t differ = 0;
      for (size_t i = 0; i < want.size(); ++i) differ += want[i] != got[i];
      EXPECT_EQ(differ, 0u) << what << ": of " << want.size() << " values";
    }
  }
}

// Blocks of a few rows (a small memory limit) and rows asked for strip by
// strip (the GDAL driver's way) give the bits of one block.
TEST(WindowGpu, ValuesDoNotDependOnBlocksOrStrips) {
  LSM_REQUIRE_CUDA();
  std::mt19937 rng(4851);
  const int64_t width = 157, height = 143;
  const std::vector<int32_t> cells = clumps(rng, width, height, 5);
  MemoryClassRaster raster(width, height, cells);
  for (const WindowShape& shape : {square_window(4), circular_window(4.5 * 30, 30, 30)}) {
    const std::string what = shape.half_widths.front() == 4 ? "square" : "circle";
    WindowJobOptions o = count_metrics();
    o.shape = shape;
    o.backend = Backend::Cuda;
    const KeptRows whole = run(raster, o);
    const WindowPlan plan = plan_window_job(raster, o);
    WindowJobOptions small = o;
    small.memory_limit = 2 * static_cast<uint64_t>(width) * plan.bands.size() * 8 * 3;  // a few rows a block
    const KeptRows blocks = run(raster, small);
    KeptRows strips;
    strips.width = width;
    strips.begin(plan);
    for (int64_t y = 0; y < height; y += 13) run_window_rows(raster, o, plan, y, std::min<int64_t>(13, height - y), strips);
    o.backend = Backend::Cpu;
    const KeptRows cpu = run(raster, o);
    EXPECT_TRUE(bits(whole) == bits(cpu)) << what << ": GPU differs from CPU";
    EXPECT_TRUE(bits(blocks) == bits(whole)) << what << ": small blocks differ";
    EXPECT_TRUE(bits(strips) == bits(whole)) << what << ": strips of 13 rows differ";
  }
}

// The CUDA backend says what it does not compute, before any GPU is asked.
TEST(WindowGpu, CudaBackendRefusesWhatTheGpuDoesNotCompute) {
  const std::vector<int32_t> cells(100, 1);
  MemoryClassRaster raster(10, 10, cells);
  WindowJobOptions o = count_metrics();
  auto refusal = [&]() -> std::string {
    try {
      plan_window_job(raster, o);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput) << e.what();
      return e.what();
    }
    return "no error";
  };
  o.backend = Backend::Cuda;
  o.shape = circular_window(60, 30, 30);  // round windows run on the GPU too
  EXPECT_EQ(refusal(), "no error");
  o.shape = square_window(1);
  o.landscape_metrics.push_back("IJI");
  EXPECT_NE(refusal().find("IJI (landscape level) is not computed on the GPU"), std::string::npos) << refusal();
  o.landscape_metrics.pop_back();
  o.class_metrics = {"COHESION"};
  EXPECT_NE(refusal().find("(--backend cpu or auto computes it on the CPU)"), std::string::npos) << refusal();
  const std::vector<int32_t> wide(50 * 50, 1);
  MemoryClassRaster large(50, 50, wide);
  o.class_metrics = {"NP"};
  o.shape = square_window(23);  // 47 x 47
  try {
    plan_window_job(large, o);
    ADD_FAILURE() << "NP in a 47 x 47 window taken by the GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SPLIT run on the GPU in windows of at most 2048 cells (45 x 45); this one has 2209"),
              std::string::npos)
        << e.what();
  }
  o.backend = Backend::Auto;  // the CPU takes it
  EXPECT_NO_THROW(plan_window_job(large, o));
  // CONTAG keeps k x k adjacencies per thread: at most 32 classes.
  std::vector<int32_t> many(40 * 40);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int32_t>(i % 33);
  MemoryClassRaster varied(40, 40, many);
  o.backend = Backend::Cuda;
  o.shape = square_window(1);
  o.class_metrics.clear();
  o.landscape_metrics = {"CONTAG"};
  try {
    plan_window_job(varied, o);
    ADD_FAILURE() << "CONTAG of 33 classes taken by the GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 32 classes; this one has 33"), std::string::npos) << e.what();
  }
}

TEST(WindowGpu, CountFormulasCoverTheirMetricsAtTheirLevelOnly) {
  EXPECT_TRUE(window_count_metric({"SHDI", std::nullopt}).has_value());
  EXPECT_FALSE(window_count_metric({"SHDI", 3}).has_value());  // not a class metric
  EXPECT_TRUE(window_count_metric({"CLUMPY", 3}).has_value());
  EXPECT_FALSE(window_count_metric({"CLUMPY", std::nullopt}).has_value());
  EXPECT_TRUE(window_count_metric({"NP", std::nullopt}).has_value());
  EXPECT_FALSE(window_count_metric({"COHESION", std::nullopt}).has_value());
  EXPECT_TRUE(window_count_metric({"CONTAG", std::nullopt}).has_value());
}

}  // namespace
}  // namespace lsm::test
