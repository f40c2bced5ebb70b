// FRAGSTATS' edge depths per pair of classes (an edge depth file, .fdt;
// class_pair_table.h, pair_depth_core.h): a hand grid worked out below, the
// same tables as --edge-depth when every depth is that depth, random grids
// with asymmetric depths, nodata and background against a brute force over
// every cell, tile invariance, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "class_pair_table.h"
#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "metric_table_checks.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// Edge depths (m) of `codes`, row i the patch's class, column k the class beyond.
std::shared_ptr<const ClassPairTable> depths(const std::vector<int32_t>& codes, const std::vector<double>& metres) {
  auto t = std::make_shared<ClassPairTable>();
  t->codes = codes;
  t->d = metres;
  t->path = "test.fdt";
  return t;
}

FragstatsMetrics run(ClassRasterSource& raster, LandscapeJobOptions o) {
  o.backend = Backend::Cpu;
  return run_landscape_job(raster, o).metrics;
}

TEST(PairEdgeDepths, HandGrid) {
  // 10 m cells: a class 1 patch 5 cells wide beside a class 2 patch 2 wide.
  MemoryClassRaster raster = grid({"1111122", "1111122", "1111122", "1111122", "1111122"}, 10);
  LandscapeJobOptions o;
  o.selection = MetricSelection("CORE,NCORE");
  // Class 2 reaches 20 m (2 cells) into class 1, class 1 not at all into
  // class 2; the landscape boundary (class 999) reaches 10 m into class 2
  // only.
  o.edge_depth_table = depths({1, 2, 999}, {0, 20, 0,  //
                                            0, 0, 10,  //
                                            0, 0, 0});
  const FragstatsMetrics m = run(raster, o);
  const size_t core = column(m.patch, "CORE"), ncore = column(m.patch, "NCORE");
  ASSERT_EQ(m.patch.rows.size(), 2u);
  // Class 1: the columns 2 and 1 cells from class 2 (x = 3, 4) are edge,
  // x = 0..2 core whatever the raster's edge: 15 cells of 100 m2.
  EXPECT_DOUBLE_EQ(m.patch.rows[0].values[core], 0.15);
  EXPECT_EQ(m.patch.rows[0].values[ncore], 1);
  // Class 2: the raster's edge 1 cell away: only x = 5, y = 1..3 are core.
  EXPECT_DOUBLE_EQ(m.patch.rows[1].values[core], 0.03);
  EXPECT_EQ(m.patch.rows[1].values[ncore], 1);
  // A uniform depth of 1 cell instead: 9 cells of class 1, none of class 2.
  o.edge_depth_table = nullptr;
  const FragstatsMetrics uniform = run(raster, o);
  EXPECT_DOUBLE_EQ(uniform.patch.rows[0].values[core], 0.09);
  EXPECT_EQ(uniform.patch.rows[1].values[core], 0);
}

// Every depth D x the cell size: the same tables, to the bit, as --edge-depth D.
TEST(PairEdgeDepths, OneDepthForEveryPairIsTheEdgeDepth) {
  for (int depth : {1, 2, 3}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    MemoryClassRaster raster = random_landscape(61, 47, 4, 100 + depth, 0.05);
    LandscapeJobOptions o;
    o.background = {4};
    o.edge_depth = depth;
    const FragstatsMetrics expected = run(raster, o);
    o.edge_depth = 1;
    o.edge_depth_table = depths({1, 2, 3, 4, 999}, std::vector<double>(25, depth * raster.info().cell_width));
    const FragstatsMetrics got = run(raster, o);
    expect_same_tables(got, expected);
    EXPECT_GT(got.patch.rows.size() * got.patch.columns.size(), 1000u);
  }
}

// Random grids, both neighbour rules, nodata and a background class,
// depths 0 to 3 cells drawn per pair (not symmetric): each patch's core
// cells equal a brute force over every cell within reach, for any tile grid.
TEST(PairEdgeDepths, RandomGridsEqualABruteForce) {
  std::mt19937 rng(53);
  std::uniform_int_distribution<int> cells(0, 3);
  for (int trial = 0; trial < 6; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t w = 39 + trial, h = 28 + trial % 3;
    const NeighbourRule rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    // Classes 1..4 (class 4 the background), 30 m cells, 5 % nodata.
    MemoryClassRaster raster = random_landscape(w, h, 4, 200 + static_cast<uint64_t>(trial), 0.05);
    const std::vector<int32_t> codes{1, 2, 3, 4, 999};
    std::vector<double> metres(25);
    for (double& m : metres) m = cells(rng) * 30.0;
    const auto table = depths(codes, metres);
    const auto depth = [&](int32_t i, int32_t k) { return static_cast<int64_t>(table->weight(i, k) / 30); };
    // The brute force: a class-4 cell is background (no patch), the raster's
    // edge, nodata and background take the boundary class 4 (the single
    // background class).
    const Reference ref = brute_force(raster, rule);
    const std::vector<int32_t>& c = raster.cells();
    std::map<uint32_t, uint64_t> core;  // brute-force PID (background patches skipped) -> core cells
    std::vector<uint32_t> pid_of_label(ref.patches.size() + 1, 0);
    uint32_t pid = 0;
    for (size_t l = 1; l <= ref.patches.size(); ++l)
      if (ref.patches[l - 1].class_code != 4) pid_of_label[l] = ++pid;
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const uint32_t p = ref.labels[static_cast<size_t>(y * w + x)];
        if (!p || !pid_of_label[p]) continue;
        const int32_t i = c[static_cast<size_t>(y * w + x)];
        bool is_core = true;
        for (int64_t yy = y - 3; yy <= y + 3; ++yy)
          for (int64_t xx = x - 3; xx <= x + 3; ++xx) {
            const bool inside = xx >= 0 && yy >= 0 && xx < w && yy < h;
            const size_t n = static_cast<size_t>(yy * w + xx);
            if (inside && ref.labels[n] == p) continue;
            const int32_t k = !inside || c[n] == kNoClass || c[n] == 4 ? 4 : c[n];
            const int64_t d = depth(i, k);
            if ((xx - x) * (xx - x) + (yy - y) * (yy - y) <= d * d) is_core = false;
          }
        core[pid_of_label[p]] += is_core;
      }
    LandscapeJobOptions o;
    o.rule = rule;
    o.background = {4};
    o.edge_depth_table = table;
    o.core_areas = CoreAreaRule::All;  // CORE = every core cell (FRAGSTATS' scan leaves some out of its core areas)
    o.selection = MetricSelection("CORE");
    const FragstatsMetrics got = run(raster, o);
    o.tile_width = o.tile_height = 4;
    const FragstatsMetrics tiled = run(raster, o);
    const size_t col = column(got.patch, "CORE");
    ASSERT_EQ(got.patch.rows.size(), static_cast<size_t>(pid));
    uint64_t some = 0;
    for (size_t r = 0; r < got.patch.rows.size(); ++r) {
      const double cell_ha = 30.0 * 30.0 / 10000;
      EXPECT_DOUBLE_EQ(got.patch.rows[r].values[col], static_cast<double>(core[static_cast<uint32_t>(r + 1)]) * cell_ha)
          << "patch " << r + 1;
      EXPECT_EQ(got.patch.rows[r].values[col], tiled.patch.rows[r].values[col]) << "patch " << r + 1;
      some += core[static_cast<uint32_t>(r + 1)];
    }
    EXPECT_GT(some, 0u);  // the trial tests something
  }
}

// Depths up to 12 cells on a landscape of large patches: the runs of a
// patch are stepped over, not the disc's cells (pair_depth_core.h), with
// the brute force's core cells.
TEST(PairEdgeDepths, LargeDepthsEqualABruteForce) {
  std::mt19937 rng(71);
  std::uniform_int_distribution<int> cells(0, 12);
  const int64_t w = 90, h = 70;
  // Blocks of 30 x 25 cells of classes 1..3, with 1 % of cells of a random class or nodata.
  std::vector<int32_t> grid_cells(static_cast<size_t>(w * h));
  std::uniform_int_distribution<int> percent(0, 99), noise(0, 3);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      int32_t v = static_cast<int32_t>((x / 30 + y / 25) % 3 + 1);
      if (percent(rng) == 0) v = noise(rng) == 0 ? kNoClass : noise(rng) % 3 + 1;
      grid_cells[static_cast<size_t>(y * w + x)] = v;
    }
  MemoryClassRaster raster(w, h, grid_cells, 30, 30);
  std::vector<double> metres(16);
  for (double& m : metres) m = cells(rng) * 30.0;
  const auto table = depths({1, 2, 3, 999}, metres);
  const auto depth = [&](int32_t i, int32_t k) { return static_cast<int64_t>(table->weight(i, k) / 30); };
  const Reference ref = brute_force(raster, NeighbourRule::Eight);
  const std::vector<int32_t>& c = raster.cells();
  std::vector<uint64_t> core(ref.patches.size() + 1, 0);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      const uint32_t p = ref.labels[static_cast<size_t>(y * w + x)];
      if (!p) continue;
      const int32_t i = c[static_cast<size_t>(y * w + x)];
      bool is_core = true;
      for (int64_t yy = y - 12; is_core && yy <= y + 12; ++yy)
        for (int64_t xx = x - 12; xx <= x + 12; ++xx) {
          const bool inside = xx >= 0 && yy >= 0 && xx < w && yy < h;
          const size_t n = static_cast<size_t>(yy * w + xx);
          if (inside && ref.labels[n] == p) continue;
          const int64_t d = depth(i, !inside || c[n] == kNoClass ? 999 : c[n]);
          if ((xx - x) * (xx - x) + (yy - y) * (yy - y) <= d * d) is_core = false;
        }
      core[p] += is_core;
    }
  LandscapeJobOptions o;
  o.edge_depth_table = table;
  o.core_areas = CoreAreaRule::All;
  o.selection = MetricSelection("CORE");
  const FragstatsMetrics got = run(raster, o);
  const size_t col = column(got.patch, "CORE");
  ASSERT_EQ(got.patch.rows.size(), ref.patches.size());
  uint64_t some = 0;
  for (size_t r = 0; r < got.patch.rows.size(); ++r) {
    EXPECT_DOUBLE_EQ(got.patch.rows[r].values[col], static_cast<double>(core[r + 1]) * 0.09) << "patch " << r + 1;
    some += core[r + 1];
  }
  EXPECT_GT(some, 50u);  // deep cores exist: the test reaches far
}

// On a GPU the core cells of an edge depth file are still decided on the
// CPU, beside the GPU's other second-pass stages: the same tables. SIMI and
// PROX (row sweeps on the CPU) ride along.
TEST(PairEdgeDepths, CudaGivesTheCpuTables) {
  LSM_REQUIRE_CUDA();
  MemoryClassRaster raster = random_landscape(300, 200, 5, 31, 0.03);
  LandscapeJobOptions o;
  std::vector<double> metres(36);
  for (size_t i = 0; i < metres.size(); ++i) metres[i] = 30.0 * static_cast<double>((i * 7) % 4);
  o.edge_depth_table = depths({1, 2, 3, 4, 5, 999}, metres);
  o.search_radius = 150;
  std::vector<double> weights(25);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<double>((i * 3) % 5) / 4;
  auto similarity = std::make_shared<ClassPairTable>();
  similarity->codes = {1, 2, 3, 4, 5};
  similarity->d = weights;
  o.similarity = similarity;
  const FragstatsMetrics cpu = run(raster, o);
  o.backend = Backend::Cuda;
  const LandscapeResults gpu = run_landscape_job(raster, o);
  EXPECT_EQ(gpu.rows.plan.neighbourhood, StageRun::Device);
  EXPECT_EQ(gpu.rows.plan.core_areas, StageRun::Rows);
  expect_same_tables(gpu.metrics, cpu);
}

TEST(PairEdgeDepths, BadDepthsAreRefused) {
  MemoryClassRaster raster = grid({"1122", "1122"}, 30);
  const auto message = [&](std::shared_ptr<const ClassPairTable> t) {
    LandscapeJobOptions o;
    o.edge_depth_table = t;
    o.selection = MetricSelection("CORE");
    try {
      run(raster, o);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(depths({1, 2, 999}, {0, 45, 0, 0, 0, 0, 0, 0, 0})),
            "the edge depth file 'test.fdt': the depth 45 m of classes 1 and 2 is not a whole number of the raster's "
            "30 m cells (FRAGSTATS' edge depth on them is a multiple of the cell size, 0 to 1000 cells): give 30 or 60 m");
  EXPECT_EQ(message(depths({1, 999}, {0, 0, 0, 0})),
            "the edge depth file 'test.fdt' lists no class 2, which is in the raster: every edge needs its depth");
  EXPECT_EQ(message(depths({1, 2}, {0, 0, 0, 0})),
            "the edge depth file 'test.fdt' lists no class 999 (FRAGSTATS' background value, as no single background "
            "class is given), whose depths the landscape boundary takes (FRAGSTATS treats boundary segments like "
            "background)");
  // The same grid read as cells in degrees.
  struct Degrees final : ClassRasterSource {
    explicit Degrees(MemoryClassRaster& r) : inner(r) {}
    RasterInfo info() const override {
      RasterInfo i = inner.info();
      i.geodesic = std::make_shared<GeodesicRows>();
      return i;
    }
    using ClassRasterSource::read;
    void read(const Window& w, int32_t* out, int64_t stride) override { inner.read(w, out, stride); }
    MemoryClassRaster& inner;
  } degrees(raster);
  LandscapeJobOptions o;
  o.edge_depth_table = depths({1, 2, 999}, std::vector<double>(9, 0));
  try {
    run(degrees, o);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the edge depth file 'test.fdt' gives metres: it needs a projected raster; this "
                                     "one has cells in degrees");
  }
}

}  // namespace
}  // namespace lsm::test
