// The moving-window job (metrics/jobs/window_job.h): every value of every
// band equals the landscape job run on the window cut out as its own
// landscape (cells outside the window nodata), on random grids with
// nodata, background, both window shapes, both edge rules and a boundary
// edge share; a hand grid with values worked out by hand; the window
// shapes; bad options.
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>

#include "class_pair_table.h"
#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "test_helpers.h"
#include "window_brute_force.h"
#include "window_job.h"

namespace lsm::test {
namespace {

TEST(WindowJob, EveryValueEqualsTheWindowCutOutAsItsOwnLandscape) {
  std::mt19937 rng(48);
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t width = 9 + trial % 3 * 2, height = 8 + trial % 2 * 3;
    std::vector<int32_t> cells(static_cast<size_t>(width * height));
    // Clumps of four classes (so that windows hold like and unlike
    // neighbours), nodata sprinkled, class 4 as background in half the trials.
    std::uniform_int_distribution<int> pick(1, 4), percent(0, 99);
    for (int64_t i = 0; i < width * height; ++i) {
      const int64_t x = i % width;
      cells[static_cast<size_t>(i)] =
          percent(rng) < 55 && i > 0 && x > 0 ? cells[static_cast<size_t>(i - 1)]
          : percent(rng) < 45 && i >= width ? cells[static_cast<size_t>(i - width)]
                                            : pick(rng);
      if (percent(rng) < 7) cells[static_cast<size_t>(i)] = kNoClass;
    }
    WindowJobOptions o = every_metric(cells, 30);
    if (trial % 2) o.background = {4};
    o.boundary_edge = trial % 3 == 2 ? 0.5 : 0;
    o.shape = trial < 3 ? square_window(1 + trial % 2) : circular_window(2.5 * 30, 30, 30);
    o.edge = trial % 3 == 1 ? WindowEdge::Skip : WindowEdge::Clip;
    o.rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    expect_equal_to_cut_out_windows(cells, width, height, 30, o, "trial " + std::to_string(trial));
  }
}

// An edge depth file (.fdt) in windows: depths of 0 to 2 cells drawn per
// pair of classes (not symmetric), the window's edge taking the boundary's
// (class 999, or the background class 4): every core band equals the
// landscape job's on the window cut out with the same file.
TEST(WindowJob, EdgeDepthFileEqualsTheWindowCutOut) {
  std::mt19937 rng(4911);
  std::uniform_int_distribution<int> depth(0, 2);
  for (int trial = 0; trial < 4; ++trial) {
    const int64_t width = 13, height = 11;
    std::vector<int32_t> cells(static_cast<size_t>(width * height));
    std::uniform_int_distribution<int> pick(1, 4), percent(0, 99);
    for (int64_t i = 0; i < width * height; ++i) {
      cells[static_cast<size_t>(i)] = percent(rng) < 70 && i % width > 0 ? cells[static_cast<size_t>(i - 1)]
                                      : percent(rng) < 60 && i >= width ? cells[static_cast<size_t>(i - width)]
                                                                       : pick(rng);
      if (percent(rng) < 4) cells[static_cast<size_t>(i)] = kNoClass;
    }
    auto table = std::make_shared<ClassPairTable>();
    table->codes = {1, 2, 3, 4, 999};
    table->path = "test.fdt";
    for (int v = 0; v < 25; ++v) table->d.push_back(depth(rng) * 30.0);
    WindowJobOptions o;
    o.edge_depth_table = table;
    if (trial % 2) o.background = {4};
    o.core_areas = trial < 2 ? CoreAreaRule::Fragstats : CoreAreaRule::All;
    o.class_metrics = {"TCA", "CPLAND", "NDCA", "DCAD", "CORE_MN", "CAI_AM", "DCORE_SD"};
    o.landscape_metrics = {"TCA", "NDCA", "DCAD", "CORE_CV", "CAI_MN"};
    o.shape = trial % 2 ? circular_window(3 * 30, 30, 30) : square_window(3);
    expect_equal_to_cut_out_windows(cells, width, height, 30, o, "trial " + std::to_string(trial));
  }
}

// Rows are computed a block at a time, the block's rows shared among
// threads: the values are the same bits with one thread or several, with
// blocks of one row (a memory limit that allows no more) or many, and when
// the rows are asked for strip by strip (the GDAL driver's way).
TEST(WindowJob, ValuesDoNotDependOnThreadsBlocksOrStrips) {
  std::mt19937 rng(4848);
  const int64_t width = 31, height = 29;
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  std::uniform_int_distribution<int> pick(1, 5), percent(0, 99);
  for (int64_t i = 0; i < width * height; ++i) {
    cells[static_cast<size_t>(i)] = percent(rng) < 60 && i % width > 0 ? cells[static_cast<size_t>(i - 1)] : pick(rng);
    if (percent(rng) < 4) cells[static_cast<size_t>(i)] = kNoClass;
  }
  MemoryClassRaster raster(width, height, cells);
  WindowJobOptions o = every_metric(cells);
  o.shape = circular_window(3 * 30, 30, 30);
  const auto bits = [](const KeptRows& kept) {
    std::vector<uint64_t> out;
    for (const std::vector<double>& row : kept.rows)
      for (double v : row) {
        uint64_t b = 0;
        std::memcpy(&b, &v, sizeof b);
        out.push_back(std::isnan(v) ? 1 : b);
      }
    return out;
  };
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const KeptRows one = run(raster, o);
  omp_set_num_threads(4);
  const KeptRows four = run(raster, o);
  const WindowPlan plan = plan_window_job(raster, o);
  WindowJobOptions single_rows = o;
  // Room for the band of rows and one row of values, not for two.
  single_rows.memory_limit = static_cast<uint64_t>(1.5 * static_cast<double>(width) * static_cast<double>(plan.bands.size()) * 8) + 20000;
  const KeptRows blocks_of_one = run(raster, single_rows);
  KeptRows strips;
  strips.width = width;
  strips.begin(plan);
  for (int64_t y = 0; y < height; y += 7) run_window_rows(raster, o, plan, y, std::min<int64_t>(7, height - y), strips);
  omp_set_num_threads(threads);
  ASSERT_EQ(one.rows.size(), static_cast<size_t>(height));
  EXPECT_TRUE(bits(one) == bits(four)) << "4 threads differ from 1";
  EXPECT_TRUE(bits(one) == bits(blocks_of_one)) << "blocks of one row differ";
  EXPECT_TRUE(bits(one) == bits(strips)) << "strips of 7 rows differ";
}

// NP, PD, LPI, DIVISION, MESH and SPLIT alone in a square window come from
// merged column ranges, not from labeling each window
// (window_range_patches.h): every value equals the cut-out window's, and the
// same bits as when a band that needs the labeler (COHESION) runs beside
// them — windows wider than the raster's blocks of columns, patches that
// wind across range seams (both neighbour rules), background, nodata, both
// edge rules.
// Classes 1..`classes`, clumped along rows and diagonals (patches snake
// across columns), `nodata` percent of the cells nodata.
std::vector<int32_t> snaking_grid(std::mt19937& rng, int64_t width, int64_t height, int classes, int nodata) {
  std::uniform_int_distribution<int> pick(1, classes), percent(0, 99);
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  for (int64_t i = 0; i < width * height; ++i) {
    const int64_t x = i % width;
    cells[static_cast<size_t>(i)] = percent(rng) < 35 && x > 0                  ? cells[static_cast<size_t>(i - 1)]
                                    : percent(rng) < 35 && i > width && x > 0 ? cells[static_cast<size_t>(i - width - 1)]
                                                                              : pick(rng);
    if (percent(rng) < nodata) cells[static_cast<size_t>(i)] = kNoClass;
  }
  return cells;
}

TEST(WindowJob, PatchCountsByColumnRangesEqualTheCutOutWindowsAndTheLabeler) {
  std::mt19937 rng(4852);
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t width = 17 + trial, height = 12;
    const std::vector<int32_t> cells = snaking_grid(rng, width, height, 3, 5);
    WindowJobOptions o;
    o.class_metrics = {"NP", "PD", "LPI", "DIVISION", "MESH", "SPLIT"};
    o.landscape_metrics = o.class_metrics;
    o.shape = square_window(1 + trial % 3 * 2);  // 3 x 3, 7 x 7, 11 x 11
    o.rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    o.edge = trial == 4 ? WindowEdge::Skip : WindowEdge::Clip;
    if (trial == 3) o.background = {3};
    const std::string what = "range trial " + std::to_string(trial);
    expect_equal_to_cut_out_windows(cells, width, height, 10, o, what);
    MemoryClassRaster raster(width, height, cells, 10, 10);
    WindowPlan plan;
    const KeptRows ranges = run(raster, o, &plan);
    WindowJobOptions labeled = o;
    labeled.landscape_metrics.push_back("COHESION");
    const KeptRows labeler = run(raster, labeled);
    size_t compared = 0;
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x)
        for (size_t b = 0; b < plan.bands.size(); ++b) {
          const double a = ranges.at(x, y, b), l = labeler.at(x, y, b);
          EXPECT_TRUE((std::isnan(a) && std::isnan(l)) || a == l)
              << what << " " << plan.bands[b].description() << " at " << x << "," << y << ": " << a << " vs " << l;
          compared += std::isfinite(a) ? 1 : 0;
        }
    EXPECT_GT(compared, static_cast<size_t>(width * height));
  }
}

// A run whose bands read less (no cell sides: CA, PLAND, PR, the diversity
// indices; patch counts without sizes: NP, PD) takes shortcuts (uncounted
// sides, counts-only range merges, no logarithms): its values are the bits
// of the same bands in a run that also reads everything (TE, LPI, AI,
// CONTAG), both neighbour rules, square windows wider than their blocks of
// columns, nodata.
TEST(WindowJob, BandsThatReadLessGiveTheBitsOfAFullRun) {
  std::mt19937 rng(5310);
  for (int trial = 0; trial < 4; ++trial) {
    const int64_t width = 29 + trial, height = 14;
    const std::vector<int32_t> cells = snaking_grid(rng, width, height, 4, 4);
    MemoryClassRaster raster(width, height, cells, 10, 10);
    WindowJobOptions lean;
    lean.class_metrics = {"CA", "PLAND", "NP", "PD"};
    lean.landscape_metrics = {"TA", "NP", "PD", "PR", "SHDI", "SIDI", "MSIDI", "SHEI", "SIEI", "MSIEI"};
    lean.shape = square_window(trial < 2 ? 2 : 4);
    lean.rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    WindowJobOptions full = lean;
    full.class_metrics.push_back("TE");
    full.class_metrics.push_back("LPI");
    full.landscape_metrics.push_back("AI");
    full.landscape_metrics.push_back("CONTAG");
    full.landscape_metrics.push_back("LPI");
    WindowPlan lean_plan, full_plan;
    const KeptRows a = run(raster, lean, &lean_plan), b = run(raster, full, &full_plan);
    size_t compared = 0;
    for (size_t i = 0; i < lean_plan.bands.size(); ++i) {
      const std::string name = lean_plan.bands[i].description();
      size_t k = 0;
      while (k < full_plan.bands.size() && full_plan.bands[k].description() != name) ++k;
      ASSERT_LT(k, full_plan.bands.size()) << name;
      for (int64_t y = 0; y < height; ++y)
        for (int64_t x = 0; x < width; ++x) {
          const double u = a.at(x, y, i), v = b.at(x, y, k);
          EXPECT_TRUE((std::isnan(u) && std::isnan(v)) || std::memcmp(&u, &v, sizeof u) == 0)
              << "trial " << trial << " " << name << " at " << x << "," << y << ": " << u << " vs " << v;
          compared += std::isfinite(u) ? 1 : 0;
        }
    }
    EXPECT_GT(compared, static_cast<size_t>(width * height * 10));
  }
}

// The patch distributions and PAFRAC in windows busy enough that PAFRAC is
// defined (10 patches or more): every value equals the cut-out window's,
// under both neighbour rules, with background and with a circular window.
TEST(WindowJob, DistributionsAndPafracOfBusyWindowsEqualTheCutOutWindows) {
  std::mt19937 rng(4810);
  std::uniform_int_distribution<int> pick(1, 5), percent(0, 99);
  const int64_t width = 16, height = 13;
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  for (int64_t i = 0; i < width * height; ++i) {
    const int64_t x = i % width;
    cells[static_cast<size_t>(i)] = percent(rng) < 30 && x > 0 ? cells[static_cast<size_t>(i - 1)] : pick(rng);
    if (percent(rng) < 4) cells[static_cast<size_t>(i)] = kNoClass;
  }
  for (int trial = 0; trial < 3; ++trial) {
    WindowJobOptions o;
    o.contrast = contrast_table_for(cells);  // ECON's distributions
    o.search_radius = 30;                    // PROX's and SIMI's
    o.similarity = similarity_table_for(cells);
    for (const std::string& m : window_class_metrics())
      if (m.find('_') != std::string::npos || m == "PAFRAC") o.class_metrics.push_back(m);
    o.landscape_metrics = o.class_metrics;
    o.shape = trial == 2 ? circular_window(4.2 * 10, 10, 10) : square_window(3);
    o.rule = trial == 1 ? NeighbourRule::Four : NeighbourRule::Eight;
    if (trial == 2) o.background = {5};
    expect_equal_to_cut_out_windows(cells, width, height, 10, o, "busy trial " + std::to_string(trial));
    // PAFRAC was defined somewhere (the windows hold 10 patches or more).
    MemoryClassRaster raster(width, height, cells, 10, 10);
    WindowPlan plan;
    const KeptRows kept = run(raster, o, &plan);
    bool defined = false;
    for (size_t b = 0; b < plan.bands.size(); ++b)
      if (plan.bands[b].metric == "PAFRAC" && !plan.bands[b].class_code)
        for (int64_t y = 0; y < height; ++y)
          for (int64_t x = 0; x < width; ++x) defined = defined || std::isfinite(kept.at(x, y, b));
    EXPECT_TRUE(defined) << "trial " << trial;
  }
}

// The core area metrics in windows with room for core: clumps of three
// classes, edge depths 1 to 3, both ways of counting disjunct core areas,
// both neighbour rules, background; every value equals the cut-out window's,
// and some window had core (TCA above 0).
TEST(WindowJob, CoreAreaMetricsEqualTheCutOutWindows) {
  std::mt19937 rng(4811);
  std::uniform_int_distribution<int> pick(1, 3), percent(0, 99);
  const int64_t width = 17, height = 15;
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  for (int64_t i = 0; i < width * height; ++i) {
    const int64_t x = i % width;
    cells[static_cast<size_t>(i)] = percent(rng) < 75 && x > 0 ? cells[static_cast<size_t>(i - 1)]
                                    : percent(rng) < 75 && i >= width ? cells[static_cast<size_t>(i - width)]
                                                                      : pick(rng);
    if (percent(rng) < 2) cells[static_cast<size_t>(i)] = kNoClass;
  }
  for (int trial = 0; trial < 4; ++trial) {
    WindowJobOptions o;
    for (const std::string& m : window_class_metrics())
      if (m == "TCA" || m == "CPLAND" || m == "NDCA" || m == "DCAD" || m.rfind("CORE_", 0) == 0 ||
          m.rfind("DCORE_", 0) == 0 || m.rfind("CAI_", 0) == 0)
        o.class_metrics.push_back(m);
    for (const std::string& m : window_landscape_metrics())
      if (m == "TCA" || m == "NDCA" || m == "DCAD" || m.rfind("CORE_", 0) == 0 || m.rfind("DCORE_", 0) == 0 ||
          m.rfind("CAI_", 0) == 0)
        o.landscape_metrics.push_back(m);
    o.edge_depth = 1 + trial % 3;
    o.core_areas = trial % 2 ? CoreAreaRule::All : CoreAreaRule::Fragstats;
    o.rule = trial == 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    if (trial == 3) o.background = {3};
    o.shape = trial == 1 ? circular_window(5.5 * 10, 10, 10) : square_window(5);
    expect_equal_to_cut_out_windows(cells, width, height, 10, o, "core trial " + std::to_string(trial));
    MemoryClassRaster raster(width, height, cells, 10, 10);
    WindowPlan plan;
    const KeptRows kept = run(raster, o, &plan);
    bool core = false;
    for (size_t b = 0; b < plan.bands.size(); ++b)
      if (plan.bands[b].metric == "TCA" && !plan.bands[b].class_code)
        for (int64_t y = 0; y < height; ++y)
          for (int64_t x = 0; x < width; ++x) core = core || kept.at(x, y, b) > 0;
    EXPECT_TRUE(core) << "trial " << trial << ": no window had core";
  }
}

// Worked by hand: a 5 x 3 grid, 3 x 3 window at the centre.
//   1 1 2 2 2
//   1 1 2 2 2      window around (2,1): columns 1..3 = 1 2 2 / 1 2 2 / 1 2 2
//   1 1 2 2 2
TEST(WindowJob, HandGridCentreWindow) {
  MemoryClassRaster raster = grid({"11222", "11222", "11222"}, 10.0);
  WindowJobOptions o;
  o.shape = square_window(1);
  o.class_metrics = {"PLAND", "PLADJ"};
  o.landscape_metrics = {"TE", "SHDI", "PR"};
  WindowPlan plan;
  const KeptRows kept = run(raster, o, &plan);
  ASSERT_EQ(plan.bands.size(), 7u);
  EXPECT_EQ(plan.bands[0].description(), "PLAND class 1");
  EXPECT_EQ(plan.bands[1].description(), "PLAND class 2");
  EXPECT_EQ(plan.bands[6].description(), "PR");
  EXPECT_DOUBLE_EQ(kept.at(2, 1, 0), 100.0 / 3);  // 3 of 9 cells
  EXPECT_DOUBLE_EQ(kept.at(2, 1, 1), 200.0 / 3);
  // Class 1: no like adjacency among its 3 stacked cells? They share 2
  // top/bottom sides (like, counted twice: 4) of its 12 sides: 4/12.
  EXPECT_DOUBLE_EQ(kept.at(2, 1, 2), 100.0 * 4 / 12);
  // Class 2: 6 cells, like sides 3 in rows + 4 between rows = 7, twice: 14 of 24.
  EXPECT_DOUBLE_EQ(kept.at(2, 1, 3), 100.0 * 14 / 24);
  EXPECT_DOUBLE_EQ(kept.at(2, 1, 4), 30.0);  // three 10 m sides between the columns
  const double p1 = 1.0 / 3, p2 = 2.0 / 3;
  EXPECT_NEAR(kept.at(2, 1, 5), -(p1 * std::log(p1) + p2 * std::log(p2)), 1e-12);
  EXPECT_DOUBLE_EQ(kept.at(2, 1, 6), 2);
  // At (4,1) the window holds only class 2: class 1 covers none of it, and
  // its PLADJ is N/A there.
  EXPECT_DOUBLE_EQ(kept.at(4, 1, 0), 0);
  EXPECT_TRUE(std::isnan(kept.at(4, 1, 2)));
  EXPECT_DOUBLE_EQ(kept.at(4, 1, 1), 100);
  EXPECT_DOUBLE_EQ(kept.at(4, 1, 6), 1);
}

TEST(WindowJob, Shapes) {
  EXPECT_EQ(square_window(2).cells(), 25);
  EXPECT_EQ(square_window(0).cells(), 1);
  // Radius 2 cells: rows of 1, 3, 5, 3, 1 cells... and (1,1) at 1.41, (2,1) at 2.24 > 2.
  const WindowShape c = circular_window(2, 1, 1);
  EXPECT_EQ(c.half_widths, (std::vector<int64_t>{0, 1, 2, 1, 0}));
  EXPECT_EQ(c.cells(), 13);
  // 30 m cells, 100 m radius: 3 rows up and down; the middle row +-3.
  const WindowShape d = circular_window(100, 30, 30);
  EXPECT_EQ(d.half_widths, (std::vector<int64_t>{1, 2, 3, 3, 3, 2, 1}));
  // Rectangular cells: 10 m wide, 20 m tall, 40 m radius.
  EXPECT_EQ(circular_window(40, 10, 20).half_widths, (std::vector<int64_t>{0, 3, 4, 3, 0}));
}

TEST(WindowJob, BadOptionsAreRefusedWithTheReason) {
  MemoryClassRaster raster = grid({"11222", "11222", "11222"}, 10.0);
  auto message = [&](const WindowJobOptions& o) {
    KeptRows kept;
    kept.width = 5;
    try {
      run_window_job(raster, o, kept);
    } catch (const Error& e) {
      EXPECT_TRUE(kept.rows.empty()) << "rows written before the error";
      return std::string(e.what());
    }
    return std::string("no error");
  };
  WindowJobOptions o;
  o.shape = square_window(1);
  EXPECT_EQ(message(o), "a moving window needs at least one metric");
  o.landscape_metrics = {"GISFRAG"};  // computed nowhere yet
  EXPECT_EQ(message(o), "GISFRAG is a FRAGSTATS metric that lsm does not compute yet");
  o.landscape_metrics = {"PROX_MN"};  // a distance or a table missing: said which
  EXPECT_EQ(message(o), "PROX needs FRAGSTATS' search radius (--search-radius METRES)");
  o.landscape_metrics = {"SIMI_MN"};
  o.search_radius = 90;
  EXPECT_EQ(message(o), "SIMI needs FRAGSTATS' similarity weights (--similarity-table FILE.fsq)");
  o.search_radius = 0;
  EXPECT_EQ(message(o), "the search radius must be a positive number of metres");
  o.search_radius.reset();
  o.landscape_metrics = {"CONNECT"};
  EXPECT_EQ(message(o), "CONNECT needs FRAGSTATS' threshold distance (--threshold-distance METRES)");
  o.landscape_metrics = {"TCA"};
  o.edge_depth = 0;
  EXPECT_EQ(message(o), "the edge depth must be at least 1 cell");
  o.edge_depth = 1;
  o.landscape_metrics = {"SHDII"};
  EXPECT_EQ(message(o), "'SHDII' is not a landscape metric; did you mean SHDI?");
  o.landscape_metrics = {"SHDI"};
  o.classes = {7};
  o.class_metrics = {"PLAND"};
  EXPECT_EQ(message(o), "class 7 is not in the raster");
  o.classes = {};
  o.shape = square_window(2);
  EXPECT_EQ(message(o), "the window (5 x 5 cells) is larger than the raster (5 x 3)");
  o.shape = square_window(1);
  o.boundary_edge = 2;
  EXPECT_EQ(message(o), "boundary edge proportion must be between 0 and 1");
  EXPECT_THROW(square_window(-1), Error);
  EXPECT_THROW(circular_window(0, 1, 1), Error);
  EXPECT_THROW(circular_window(std::nan(""), 1, 1), Error);
}

}  // namespace
}  // namespace lsm::test
