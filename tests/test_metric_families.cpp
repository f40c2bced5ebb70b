// Hand-made grids with hand-computed values for each metric family (shape,
// core, isolation, aggregation, diversity), and the second pass checked
// against brute-force references on random landscapes for every tile size
// and both backends.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <map>
#include <random>

#include "cell_neighbourhood.h"
#include "error.h"
#include "fragstats_metrics.h"
#include "patch_records.h"
#include "patch_row_metrics.h"
#include "streamed_distribution.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

struct Computed {
  PatchTable table;
  PatchRowResults rows;
  FragstatsMetrics m;
};

Computed compute(MemoryClassRaster raster, NeighbourRule rule = NeighbourRule::Eight, int edge_depth = 1,
                 int64_t tile = 0, Backend backend = Backend::Cpu, MetricOptions options = {},
                 bool labels_in_memory = false, bool with_counter = false,
                 GyrateRule gyrate = GyrateRule::Fragstats, CoreAreaRule core_areas = CoreAreaRule::Fragstats) {
  auto labeler = make_labeler(backend);
  ScanOptions o;
  o.rule = rule;
  o.tile_width = o.tile_height = tile;
  o.keep_patch_ids = true;
  // In memory: the second pass reads the scan's labels; else it relabels tile by tile.
  o.keep_labels_max_bytes = labels_in_memory ? int64_t(1) << 40 : 0;
  Computed c;
  c.table = scan_patches(raster, *labeler, o);
  RowMetricOptions ro;
  ro.edge_depth = edge_depth;
  ro.gyrate = gyrate;
  ro.core_areas = core_areas;
  // The per-cell tests on the backend's NeighbourhoodCounter (always on CUDA,
  // as lsm metrics does), or inside the row visitors.
  std::unique_ptr<NeighbourhoodCounter> counter;
  if (with_counter || backend == Backend::Cuda) counter = make_neighbourhood_counter(backend);
  ro.counter = counter.get();
  c.rows = compute_patch_row_metrics(raster, *labeler, c.table, ro);
  c.m = compute_fragstats_metrics(c.table, c.rows, options);
  return c;
}

double value(const MetricTable& t, size_t row, const std::string& column) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i] == column) return t.rows.at(row).values[i];
  ADD_FAILURE() << "no column " << column;
  return 0;
}

// 1 1
// 1 2     10 m cells
TEST(MetricFamilies, ShapeOfAnLAndOfOneCell) {
  const Computed c = compute(grid({"11", "12"}, 10.0));
  const MetricTable& p = c.m.patch;
  // FRAGSTATS' GYRATE: area medians 0.25 on both axes (rows {0,0,1}: the
  // first row holds 2 of 3 cells, so the median lies 1.5/2 into it, -0.5 +
  // 0.75); distances sqrt(0.125) and sqrt(0.625) twice. With 30 m cells this
  // is FRAGSTATS' printed 19.3469 m.
  EXPECT_DOUBLE_EQ(value(p, 0, "GYRATE"), (std::sqrt(0.125) + 2 * std::sqrt(0.625)) / 3 * 10);
  EXPECT_NEAR(value(compute(grid({"11", "12"}, 30.0)).m.patch, 0, "GYRATE"), 19.3469, 0.5e-4);
  // The documented GYRATE (--gyrate centroid): centroid (1/3, 1/3),
  // distances sqrt(2)/3 and sqrt(5)/3 twice; one cell 0.
  const Computed centroid = compute(grid({"11", "12"}, 10.0), NeighbourRule::Eight, 1, 0, Backend::Cpu, {}, false,
                                    false, GyrateRule::Centroid);
  EXPECT_DOUBLE_EQ(value(centroid.m.patch, 0, "GYRATE"), (std::sqrt(2.0) + 2 * std::sqrt(5.0)) / 9 * 10);
  EXPECT_DOUBLE_EQ(value(centroid.m.patch, 1, "GYRATE"), 0.0);
  EXPECT_DOUBLE_EQ(value(p, 0, "PARA"), 80 / 0.03);                   // m per ha
  EXPECT_DOUBLE_EQ(value(p, 0, "SHAPE"), 1.0);                        // 8 sides = minimum for 3 cells
  EXPECT_DOUBLE_EQ(value(p, 0, "FRAC"), 2 * std::log(20.0) / std::log(300.0));
  // Longest corner-to-corner extent 2*sqrt(2) cells -> radius sqrt(2) * 10 m.
  EXPECT_NEAR(value(p, 0, "CIRCLE"), 1 - 300 / (3.1415 * 200), 1e-12);
  // CONTIG: 3 cells, 2 edge pairs (weight 2, both ways), 1 corner pair (weight 1, both ways).
  EXPECT_DOUBLE_EQ(value(p, 0, "CONTIG"), ((3 + 8 + 2) / 3.0 - 1) / 12);
  // One cell: GYRATE half a cell width (as FRAGSTATS prints), CIRCLE 0, FRAC 1, CONTIG 0.
  EXPECT_DOUBLE_EQ(value(p, 1, "GYRATE"), 5.0);
  EXPECT_DOUBLE_EQ(value(p, 1, "CIRCLE"), 0.0);
  EXPECT_DOUBLE_EQ(value(p, 1, "FRAC"), 1.0);
  EXPECT_DOUBLE_EQ(value(p, 1, "CONTIG"), 0.0);
  EXPECT_DOUBLE_EQ(value(p, 1, "PARA"), 40 / 0.01);
}

// Two 3x3 blocks joined by a one-cell corridor, inside class 2:
// 222222222
// 211121112
// 211111112
// 211121112
// 222222222
TEST(MetricFamilies, CoreAreasOfADumbbell) {
  const auto g = grid({"222222222", "211121112", "211111112", "211121112", "222222222"}, 10.0);
  for (int64_t tile : {0, 3, 1}) {
    const Computed c = compute(g, NeighbourRule::Eight, 1, tile);
    // PID 1 = class 2 (first cell), PID 2 = class 1.
    // Core (all 4 edge neighbours in the patch): (2,2),(3,2) and (5,2),(6,2): 2 areas of 2 cells.
    EXPECT_DOUBLE_EQ(value(c.m.patch, 1, "CORE"), 0.04) << tile;
    EXPECT_DOUBLE_EQ(value(c.m.patch, 1, "NCORE"), 2) << tile;
    EXPECT_DOUBLE_EQ(value(c.m.patch, 1, "CAI"), 4.0 / 19 * 100) << tile;
    EXPECT_DOUBLE_EQ(value(c.m.patch, 0, "CORE"), 0) << tile;
    EXPECT_DOUBLE_EQ(value(c.m.cls, 0, "NDCA"), 2) << tile;
    EXPECT_DOUBLE_EQ(value(c.m.cls, 0, "DCORE_MN"), 0.02) << tile;
    EXPECT_DOUBLE_EQ(value(c.m.cls, 0, "TCA"), 0.04) << tile;
  }
}

// Class 1 (one patch, 8-cell rule) with class 2 cells:
// 111112
// 112121
// 211111      core cells (all 4 edge neighbours in the patch): (row 2, col 3),
// 111112      (3, 3) and, alone, (3, 1)
// 112111
TEST(MetricFamilies, CoreAreaBeforeTheResumePoint) {
  const auto g = grid({"111112", "112121", "211111", "111112", "112111"}, 10.0);
  for (int64_t tile : {0, 4, 1}) {
    // FRAGSTATS' scan meets (2,3) first, floods it and (3,3) (popped last),
    // and goes on from (3,3): the area {(3,1)} lies before it and is never
    // counted, nor are its cells.
    const Computed fs = compute(g, NeighbourRule::Eight, 1, tile);
    EXPECT_EQ(fs.rows.patches[0].core_cells, 2u) << tile;
    EXPECT_DOUBLE_EQ(value(fs.m.patch, 0, "NCORE"), 1) << tile;
    EXPECT_DOUBLE_EQ(value(fs.m.patch, 0, "CORE"), 0.02) << tile;
    EXPECT_DOUBLE_EQ(value(fs.m.cls, 0, "NDCA"), 1) << tile;
    // --core-areas all: both 8-connected core areas.
    const Computed all = compute(g, NeighbourRule::Eight, 1, tile, Backend::Cpu, {}, tile == 4, false,
                                 GyrateRule::Fragstats, CoreAreaRule::All);
    EXPECT_EQ(all.rows.patches[0].core_cells, 3u) << tile;
    EXPECT_DOUBLE_EQ(value(all.m.patch, 0, "NCORE"), 2) << tile;
    EXPECT_DOUBLE_EQ(value(all.m.cls, 0, "DCORE_MN"), 0.015) << tile;
  }
}

// FRAGSTATS' scan on bitmaps and on the runs alone (the path of patches
// whose bounding box is too large for bitmaps) finds the same areas, in the
// same order, on random core-cell masks; and it misses areas on them. The
// shortcut for core cells that form one 8-connected component (no flood)
// gives what the flood gives: with a geometry (areas summed in the flood's
// order) the scan always floods. So does the shortcut for components whose
// spans in raster order do not overlap (each counted whole, no flood).
TEST(MetricFamilies, FragstatsCoreScanOnBitmapsAndRunsAgree) {
  std::mt19937_64 random(3);
  RasterInfo planar;
  planar.width = planar.height = 100;
  const CellGeometry flooded(planar);
  size_t missed = 0, single = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int w = 5 + int(random() % 60), h = 1 + int(random() % 40), density = 2 + int(random() % 6);
    std::vector<CellRun> runs;
    uint64_t cells = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if (random() % 10 >= uint64_t(density)) continue;
        ++cells;
        if (!runs.empty() && runs.back().row == y + 7 && runs.back().x1 == x + 2) ++runs.back().x1;
        else runs.push_back(CellRun{y + 7, x + 3, x + 3});  // away from the origin
      }
    const std::vector<CountedCoreArea> bitmap = fragstats_core_areas(runs, nullptr);
    const std::vector<CountedCoreArea> sparse = fragstats_core_areas(runs, nullptr, 0);
    const std::vector<CountedCoreArea> flood = fragstats_core_areas(runs, &flooded);
    ASSERT_EQ(bitmap.size(), sparse.size()) << "trial " << trial;
    ASSERT_EQ(bitmap.size(), flood.size()) << "trial " << trial;
    for (size_t i = 0; i < flood.size(); ++i) EXPECT_EQ(bitmap[i].cells, flood[i].cells) << "trial " << trial;
    single += bitmap.size() == 1 && bitmap[0].cells == cells;
    uint64_t counted = 0;
    for (size_t i = 0; i < bitmap.size(); ++i) {
      EXPECT_EQ(bitmap[i].cells, sparse[i].cells) << "trial " << trial << " area " << i;
      counted += bitmap[i].cells;
    }
    EXPECT_LE(counted, cells);
    missed += cells - counted;
  }
  EXPECT_GT(missed, 0u);
  EXPECT_GT(single, 10u) << "masks of one component, the shortcut's case";
  // Masks of a few solid blocks, some in bands of rows of their own (spans
  // disjoint in raster order: the shortcut counts every block, no flood),
  // some side by side (spans overlap: the flood decides).
  size_t several_whole = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::vector<uint8_t>> mask(60, std::vector<uint8_t>(60, 0));
    const int blocks = 2 + int(random() % 4);
    for (int b = 0; b < blocks; ++b) {
      const int y0 = int(random() % 50), x0 = int(random() % 50), bh = 1 + int(random() % 8), bw = 1 + int(random() % 10);
      for (int y = y0; y < y0 + bh && y < 60; ++y)
        for (int x = x0; x < x0 + bw && x < 60; ++x) mask[size_t(y)][size_t(x)] = 1;
    }
    std::vector<CellRun> runs;
    uint64_t cells = 0;
    for (int y = 0; y < 60; ++y)
      for (int x = 0; x < 60; ++x) {
        if (!mask[size_t(y)][size_t(x)]) continue;
        ++cells;
        if (!runs.empty() && runs.back().row == y && runs.back().x1 == x - 1) ++runs.back().x1;
        else runs.push_back(CellRun{y, x, x});
      }
    const std::vector<CountedCoreArea> fast = fragstats_core_areas(runs, nullptr);
    const std::vector<CountedCoreArea> flood = fragstats_core_areas(runs, &flooded);
    ASSERT_EQ(fast.size(), flood.size()) << "blocks, trial " << trial;
    uint64_t counted = 0;
    for (size_t i = 0; i < flood.size(); ++i) {
      EXPECT_EQ(fast[i].cells, flood[i].cells) << "blocks, trial " << trial << " area " << i;
      counted += fast[i].cells;
    }
    several_whole += fast.size() >= 2 && counted == cells;
  }
  EXPECT_GT(several_whole, 30u) << "masks of several components all counted";
}

// A ring two cells wide (7x7, hole 3x3) inside class 2: core cells only at
// its four inner corners, four areas by either rule; GYRATE to the centre
// (the area median and the centroid coincide).
TEST(MetricFamilies, CoreAndGyrateOfARing) {
  const auto g = grid({"222222222", "211111112", "211111112", "211222112", "211222112", "211222112", "211111112",
                       "211111112", "222222222"},
                      10.0);
  double sum = 0;  // distances of the ring's 40 cells to (4, 4)
  for (int y = 1; y <= 7; ++y)
    for (int x = 1; x <= 7; ++x)
      if (!(y >= 3 && y <= 5 && x >= 3 && x <= 5)) sum += std::hypot(x - 4.0, y - 4.0);
  for (const bool documented : {false, true}) {
    const Computed c = compute(g, NeighbourRule::Eight, 1, 0, Backend::Cpu, {}, false, false,
                               documented ? GyrateRule::Centroid : GyrateRule::Fragstats,
                               documented ? CoreAreaRule::All : CoreAreaRule::Fragstats);
    // PID 1 = class 2 outside, 2 = the ring, 3 = class 2 in the hole.
    EXPECT_EQ(c.rows.patches[1].core_cells, 4u);
    EXPECT_DOUBLE_EQ(value(c.m.patch, 1, "NCORE"), 4);
    EXPECT_NEAR(value(c.m.patch, 1, "GYRATE"), sum / 40 * 10, 1e-12);
  }
}

TEST(MetricFamilies, CoreShrinksWithEdgeDepth) {
  // A 5x5 block of class 1 inside class 2 (7x7).
  const auto g = grid({"2222222", "2111112", "2111112", "2111112", "2111112", "2111112", "2222222"});
  EXPECT_EQ(compute(g, NeighbourRule::Eight, 1).rows.patches[1].core_cells, 9u);
  // Depth 2: every cell within 2 cells (Euclidean, centre to centre) must be in the patch: the centre only.
  EXPECT_EQ(compute(g, NeighbourRule::Eight, 2).rows.patches[1].core_cells, 1u);
  EXPECT_EQ(compute(g, NeighbourRule::Eight, 3).rows.patches[1].core_cells, 0u);
  EXPECT_THROW(compute(g, NeighbourRule::Eight, 0), Error);
}

// Class 1 cells at (0,0), (4,0) and (3,4) in a 5x5 field of class 2, 10 m cells.
TEST(MetricFamilies, NearestNeighbourDistances) {
  const auto g = grid({"12221", "22222", "22222", "22222", "22212"}, 10.0);
  const Computed c = compute(g);
  std::map<std::pair<int64_t, int64_t>, double> enn;
  for (size_t i = 0; i < c.table.patches.size(); ++i) {
    const PatchStats& p = c.table.patches[i];
    if (p.class_code == 1) enn[{int64_t(p.first_cell % 5), int64_t(p.first_cell / 5)}] = c.rows.patches[i].enn_m;
    else EXPECT_TRUE(std::isnan(c.rows.patches[i].enn_m)) << "one patch of class 2: ENN undefined";
  }
  EXPECT_DOUBLE_EQ((enn[{0, 0}]), 40.0);
  EXPECT_DOUBLE_EQ((enn[{4, 0}]), 40.0);
  EXPECT_DOUBLE_EQ((enn[{3, 4}]), std::sqrt(17.0) * 10);
  // Non-square cells: 10 m wide, 20 m high.
  MemoryClassRaster tall(5, 5, std::vector<int32_t>(g.cells()), 10.0, 20.0);
  const Computed t = compute(tall);
  for (size_t i = 0; i < t.table.patches.size(); ++i)
    if (t.table.patches[i].first_cell == 23) EXPECT_DOUBLE_EQ(t.rows.patches[i].enn_m, std::hypot(10.0, 80.0));
}

// Left half class 1, right half class 2 (4x4).
TEST(MetricFamilies, AggregationOfTwoHalves) {
  const Computed c = compute(grid({"1122", "1122", "1122", "1122"}));
  const MetricTable& k = c.m.cls;
  // Like adjacencies of class 1: 10 pairs = 20 (double count); 4 to class 2; 8 sides on the boundary.
  EXPECT_EQ(c.rows.adjacency.at(0, 0), 20u);
  EXPECT_EQ(c.rows.adjacency.at(0, 1), 4u);
  EXPECT_DOUBLE_EQ(value(k, 0, "PLADJ"), 20.0 / 32 * 100);
  EXPECT_DOUBLE_EQ(value(k, 0, "AI"), 100.0);  // 10 of at most 10 like adjacencies
  EXPECT_DOUBLE_EQ(value(k, 0, "CLUMPY"), 1.0);  // G = 20 / (32 - 12) = 1, P = 0.5
  EXPECT_DOUBLE_EQ(value(k, 0, "LSI"), 1.0);     // 12 sides, minimum 12
  EXPECT_TRUE(std::isnan(value(k, 0, "IJI")));   // needs 3 classes
  EXPECT_DOUBLE_EQ(value(k, 0, "COHESION"), (1 - 12 / (12 * std::sqrt(8.0))) / (1 - 1 / 4.0) * 100);
  EXPECT_DOUBLE_EQ(value(k, 0, "DIVISION"), 0.75);
  EXPECT_DOUBLE_EQ(value(k, 0, "SPLIT"), 4.0);
  EXPECT_DOUBLE_EQ(value(k, 0, "MESH"), 64.0 / 16 / 10000);
  const MetricTable& l = c.m.land;
  EXPECT_DOUBLE_EQ(value(l, 0, "PLADJ"), 40.0 / 64 * 100);
  const double t = 0.5 * (20.0 / 24) * std::log(0.5 * 20 / 24) + 0.5 * (4.0 / 24) * std::log(0.5 * 4 / 24);
  EXPECT_NEAR(value(l, 0, "CONTAG"), (1 + 2 * t / (2 * std::log(2.0))) * 100, 1e-12);
  EXPECT_DOUBLE_EQ(value(l, 0, "AI"), 100.0);
}

TEST(MetricFamilies, InterspersionOfThreeClasses) {
  // 1 1 2 / 1 1 3: class 1 borders 2 once (vertical side) and 3 once; 2 borders 3 once.
  const Computed c = compute(grid({"112", "113"}));
  EXPECT_DOUBLE_EQ(value(c.m.cls, 0, "IJI"), 100.0);  // equal edge to both others
  EXPECT_DOUBLE_EQ(value(c.m.land, 0, "IJI"), 100.0);  // three equal edge types
}

TEST(MetricFamilies, Diversity) {
  const Computed c = compute(grid({"1123"}));
  const MetricTable& l = c.m.land;
  const double shdi = -(0.5 * std::log(0.5) + 2 * 0.25 * std::log(0.25));
  EXPECT_DOUBLE_EQ(value(l, 0, "PR"), 3);
  EXPECT_DOUBLE_EQ(value(l, 0, "SHDI"), shdi);
  EXPECT_DOUBLE_EQ(value(l, 0, "SIDI"), 0.625);
  EXPECT_DOUBLE_EQ(value(l, 0, "MSIDI"), -std::log(0.375));
  EXPECT_DOUBLE_EQ(value(l, 0, "SHEI"), shdi / std::log(3.0));
  EXPECT_DOUBLE_EQ(value(l, 0, "SIEI"), 0.625 / (2.0 / 3));
  EXPECT_DOUBLE_EQ(value(l, 0, "MSIEI"), -std::log(0.375) / std::log(3.0));
  EXPECT_TRUE(std::isnan(value(l, 0, "RPR")));
  MetricOptions o;
  o.max_richness = 6;
  EXPECT_DOUBLE_EQ(value(compute(grid({"1123"}), NeighbourRule::Eight, 1, 0, Backend::Cpu, o).m.land, 0, "RPR"), 50);
}

// 1 1 2 2
// 1 9 2 2     9 is background: inside the landscape (TA, PLAND, DIVISION,
// 1 1 1 2     CLUMPY's Pi count it), outside every "excluding background" base.
// Class 1: 6 cells, class 2: 5, background 1 of 12. Cell sides (each once):
// 1|1 5, 2|2 5, 1|2 3, 1|9 3, 2|9 1; 14 on the raster's edge, 8 of class 1.
// Values worked out from the FRAGSTATS 4.2 documentation of each metric.
TEST(MetricFamilies, BackgroundAsFragstatsDefinesIt) {
  MetricOptions o;
  o.background = {9};
  const Computed c = compute(grid({"1122", "1922", "1112"}), NeighbourRule::Eight, 1, 0, Backend::Cpu, o);
  const MetricTable& l = c.m.land;
  const MetricTable& k = c.m.cls;
  ASSERT_EQ(k.rows.size(), 2u);
  // Diversity (L4-L9): Pi excluding background, 6/11 and 5/11.
  const double p1 = 6.0 / 11, p2 = 5.0 / 11;
  const double shdi = -(p1 * std::log(p1) + p2 * std::log(p2)), simpson = p1 * p1 + p2 * p2;
  EXPECT_DOUBLE_EQ(value(l, 0, "PR"), 2);
  EXPECT_DOUBLE_EQ(value(l, 0, "SHDI"), shdi);
  EXPECT_DOUBLE_EQ(value(l, 0, "SIDI"), 60.0 / 121);
  EXPECT_DOUBLE_EQ(value(l, 0, "MSIDI"), -std::log(simpson));
  EXPECT_DOUBLE_EQ(value(l, 0, "SHEI"), shdi / std::log(2.0));
  EXPECT_DOUBLE_EQ(value(l, 0, "SIEI"), 120.0 / 121);
  EXPECT_DOUBLE_EQ(value(l, 0, "MSIEI"), -std::log(simpson) / std::log(2.0));
  // CONTAG (L1): background adjacencies ignored, Pi excluding background.
  // Class 1: 10 like (double count) + 3 to class 2 = 13; class 2 the same.
  double t = 0;
  for (double pi : {p1, p2})
    for (double g : {10.0, 3.0}) t += pi * g / 13 * std::log(pi * g / 13);
  EXPECT_NEAR(value(l, 0, "CONTAG"), (1 + t / (2 * std::log(2.0))) * 100, 1e-12);
  // PLADJ (L3): 20 like of 26 between classes + 4 background sides + 14 boundary sides.
  EXPECT_DOUBLE_EQ(value(l, 0, "PLADJ"), 20.0 / 44 * 100);
  // AI (L4): class AI 5/7 (5 like of at most 7 for 6 cells) and 5/5, weighted by 6/11 and 5/11.
  EXPECT_DOUBLE_EQ(value(k, 0, "AI"), 5.0 / 7 * 100);
  EXPECT_DOUBLE_EQ(value(k, 1, "AI"), 100.0);
  EXPECT_NEAR(value(l, 0, "AI"), 65.0 / 77 * 100, 1e-12);
  // COHESION (C7, L7): Z = 11 cells without background. Perimeters: class 1
  // 8 + 3 + 3 = 14 sides, class 2 6 + 3 + 1 = 10.
  const double z = 1 - 1 / std::sqrt(11.0);
  EXPECT_NEAR(value(k, 0, "COHESION"), (1 - 14 / (14 * std::sqrt(6.0))) / z * 100, 1e-12);
  EXPECT_NEAR(value(l, 0, "COHESION"), (1 - 24 / (14 * std::sqrt(6.0) + 10 * std::sqrt(5.0))) / z * 100, 1e-12);
  // With background (C4, C2, C10, L9): CLUMPY's Pi is 6/12; G = 10 / (24 - 10).
  EXPECT_DOUBLE_EQ(value(k, 0, "CLUMPY"), (10.0 / 14 - 0.5) / 0.5);
  EXPECT_DOUBLE_EQ(value(k, 0, "PLADJ"), 10.0 / 24 * 100);  // 8 boundary + 10 like + 3 to class 2 + 3 to background
  EXPECT_DOUBLE_EQ(value(k, 0, "PLAND"), 50.0);
  EXPECT_DOUBLE_EQ(value(l, 0, "DIVISION"), 1 - 61.0 / 144);
  EXPECT_DOUBLE_EQ(value(l, 0, "TA"), 12.0 / 10000);
}

TEST(MetricFamilies, DistributionStatistics) {
  const Distribution d = distribution({1, 2, 3, 10}, {1, 1, 1, 1});
  EXPECT_DOUBLE_EQ(d.mn, 4);
  EXPECT_DOUBLE_EQ(d.md, 2.5);
  EXPECT_DOUBLE_EQ(d.ra, 9);
  EXPECT_DOUBLE_EQ(d.sd, std::sqrt((9 + 4 + 1 + 36) / 4.0));  // population SD
  EXPECT_DOUBLE_EQ(d.cv, d.sd / 4 * 100);
  EXPECT_DOUBLE_EQ(distribution({1, 3}, {3, 1}).am, 1.5);
  EXPECT_TRUE(std::isnan(distribution({}, {}).mn));
  EXPECT_EQ(min_perimeter_sides(1), 4u);
  EXPECT_EQ(min_perimeter_sides(3), 8u);
  EXPECT_EQ(min_perimeter_sides(7), 12u);
  EXPECT_EQ(max_like_adjacencies(4), 4u);
  EXPECT_EQ(max_like_adjacencies(3), 2u);
  EXPECT_EQ(max_like_adjacencies(6), 7u);
}

// The distributions computed in passes (no value kept) equal distribution()
// bit for bit: odd and even counts, ties, negative values, NaN left out.
TEST(MetricFamilies, StreamedDistributionEqualsInMemory) {
  std::mt19937_64 random(11);
  for (const size_t n : {1u, 2u, 3u, 10u, 101u, 1000u, 4096u}) {
    for (const int kind : {0, 1, 2}) {
      std::vector<double> v, w;
      for (size_t i = 0; i < n; ++i) {
        const double x = kind == 0 ? double(random() % 1000) / 7                // many ties
                         : kind == 1 ? (double(random()) / 1e18 - 9) * 1e-3     // negative and positive
                                     : std::exp(double(random() % 4000) / 100);  // wide range
        v.push_back(x);
        w.push_back(double(random() % 50) / 10);
      }
      std::vector<double> with_nan = v, with_nan_w = w;
      with_nan.insert(with_nan.begin() + static_cast<long>(n / 2), std::nan(""));
      with_nan_w.insert(with_nan_w.begin() + static_cast<long>(n / 2), 3.0);
      const PairReplay replay = [&](const std::function<void(double, double)>& fn) {
        for (size_t i = 0; i < with_nan.size(); ++i) fn(with_nan[i], with_nan_w[i]);
      };
      const Distribution ref = distribution(v, w);
      for (const uint64_t gathered : {uint64_t(0), uint64_t(1) << 20}) {
        const Distribution d = streamed_distribution(replay, true, gathered);
        EXPECT_EQ(d.mn, ref.mn) << n << " " << kind;
        EXPECT_EQ(d.am, ref.am) << n << " " << kind;
        EXPECT_EQ(d.md, ref.md) << n << " " << kind;
        EXPECT_EQ(d.ra, ref.ra) << n << " " << kind;
        EXPECT_EQ(d.sd, ref.sd) << n << " " << kind;
        EXPECT_EQ(d.cv, ref.cv) << n << " " << kind;
      }
    }
  }
}

// The patch table handed out in blocks, and the class and landscape
// statistics from the scratch file with (almost) no memory, equal the
// in-memory tables bit for bit.
TEST(MetricFamilies, StreamedTablesEqualInMemoryTables) {
  auto raster = random_landscape(900, 500, 9, 5, 0.05);
  const Computed c = compute(raster);
  ASSERT_GT(c.table.patches.size(), size_t(70000)) << "more patches than one block of the patch table";
  MetricOptions tiny;
  tiny.memory_limit = 64;  // scratch-file chunks of 512 values, every distribution in passes
  MetricTable streamed;
  const FragstatsMetrics m = compute_fragstats_metrics(c.table, c.rows, tiny, [&](const MetricTable& rows) {
    streamed.columns = rows.columns;
    streamed.rows.insert(streamed.rows.end(), rows.rows.begin(), rows.rows.end());
  });
  EXPECT_TRUE(m.patch.rows.empty());
  for (const auto& [mine, base] : {std::pair<const MetricTable*, const MetricTable*>{&streamed, &c.m.patch}, {&m.cls, &c.m.cls}, {&m.land, &c.m.land}}) {
    ASSERT_EQ(mine->columns, base->columns);
    ASSERT_EQ(mine->rows.size(), base->rows.size());
    for (size_t i = 0; i < mine->rows.size(); ++i) {
      EXPECT_EQ(mine->rows[i].pid, base->rows[i].pid);
      for (size_t k = 0; k < mine->columns.size(); ++k) {
        const double a = mine->rows[i].values[k], b = base->rows[i].values[k];
        EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << mine->columns[k] << " row " << i;
      }
    }
  }
}

// Closed patch records sent to a scratch file during the scan (and read back
// in PID order) give the same tables as records kept in memory, for tile
// grids that close patches far out of PID order; also when labels are kept.
TEST(MetricFamilies, RecordsOnFileGiveTheSameTables) {
  auto raster = random_landscape(300, 220, 6, 9, 0.05);
  const Computed base = compute(raster);
  for (const auto& [tile, in_memory] : {std::pair<int64_t, bool>{0, false}, {16, false}, {7, true}, {1, false}}) {
    auto labeler = make_cpu_labeler();
    ScanOptions o;
    o.tile_width = o.tile_height = tile;
    o.keep_patch_ids = true;
    o.keep_labels_max_bytes = in_memory ? int64_t(1) << 40 : 0;
    o.max_record_bytes = 2000;  // about 22 records, then the file
    const PatchTable t = scan_patches(raster, *labeler, o);
    ASSERT_TRUE(t.record_file) << tile;
    EXPECT_TRUE(t.patches.empty());
    EXPECT_EQ(patch_count(t), base.table.patches.size());
    size_t checked = 0;
    for_each_patch_block(t, 1000, [&](size_t first, const PatchStats* records, size_t count) {
      for (size_t i = 0; i < count; ++i) EXPECT_TRUE(records[i] == base.table.patches[first + i]) << "PID " << first + i + 1;
      checked += count;
    });
    EXPECT_EQ(checked, base.table.patches.size());
    const PatchRowResults rows = compute_patch_row_metrics(raster, *labeler, t, RowMetricOptions{});
    const FragstatsMetrics m = compute_fragstats_metrics(t, rows, MetricOptions{});
    for (const auto& [mine, ref] : {std::pair<const MetricTable*, const MetricTable*>{&m.patch, &base.m.patch},
                                    {&m.cls, &base.m.cls}, {&m.land, &base.m.land}}) {
      ASSERT_EQ(mine->rows.size(), ref->rows.size()) << tile;
      for (size_t i = 0; i < mine->rows.size(); ++i)
        for (size_t k = 0; k < mine->columns.size(); ++k) {
          const double a = mine->rows[i].values[k], b = ref->rows[i].values[k];
          EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << mine->columns[k] << " tile " << tile;
        }
    }
  }
}

// ---- Brute-force references on random landscapes ----

// Core cells and disjunct core areas, cell by cell from the patch-ID raster.
void brute_core(const std::vector<uint32_t>& ids, int64_t w, int64_t h, int depth, size_t n_patches,
                std::vector<uint64_t>& core, std::vector<uint64_t>& ncore, std::vector<uint8_t>& is_core) {
  core.assign(n_patches, 0);
  ncore.assign(n_patches, 0);
  is_core.assign(ids.size(), 0);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      const uint32_t p = ids[y * w + x];
      if (!p) continue;
      bool ok = true;
      for (int dy = -depth; dy <= depth && ok; ++dy)
        for (int dx = -depth; dx <= depth && ok; ++dx) {
          if (dx * dx + dy * dy > depth * depth) continue;
          const int64_t nx = x + dx, ny = y + dy;
          ok = nx >= 0 && ny >= 0 && nx < w && ny < h && ids[ny * w + nx] == p;
        }
      if (ok) {
        is_core[y * w + x] = 1;
        ++core[p - 1];
      }
    }
  std::vector<uint8_t> seen(ids.size(), 0);
  for (int64_t i = 0; i < w * h; ++i) {
    if (!is_core[i] || seen[i]) continue;
    ++ncore[ids[i] - 1];
    std::vector<int64_t> stack{i};
    seen[i] = 1;
    while (!stack.empty()) {
      const int64_t c = stack.back();
      stack.pop_back();
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int64_t nx = c % w + dx, ny = c / w + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const int64_t n = ny * w + nx;
          if (is_core[n] && !seen[n] && ids[n] == ids[c]) {
            seen[n] = 1;
            stack.push_back(n);
          }
        }
    }
  }
}

// FRAGSTATS' core-area count, written as FRAGSTATS runs it: per patch, a
// row-major scan of its bounding box whose loop position is overwritten by
// the flood (LIFO, pushes N E S W NE SE SW NW), so the scan goes on from the
// last cell popped. `core` and `ncore` hold the counted cells and areas.
void brute_fragstats_core(const std::vector<uint32_t>& ids, const std::vector<uint8_t>& is_core, int64_t w, int64_t h,
                          size_t n_patches, std::vector<uint64_t>& core, std::vector<uint64_t>& ncore) {
  core.assign(n_patches, 0);
  ncore.assign(n_patches, 0);
  std::vector<int64_t> x0(n_patches, w), x1(n_patches, -1), y0(n_patches, h), y1(n_patches, -1);
  for (int64_t i = 0; i < w * h; ++i)
    if (const uint32_t p = ids[i]) {
      x0[p - 1] = std::min(x0[p - 1], i % w);
      x1[p - 1] = std::max(x1[p - 1], i % w);
      y0[p - 1] = std::min(y0[p - 1], i / w);
      y1[p - 1] = std::max(y1[p - 1], i / w);
    }
  std::vector<uint8_t> seen(ids.size(), 0);
  const int dy[8] = {-1, 0, 1, 0, -1, 1, 1, -1}, dx[8] = {0, 1, 0, -1, 1, 1, -1, -1};
  for (size_t p = 1; p <= n_patches; ++p)
    for (int64_t row = y0[p - 1]; row <= y1[p - 1]; ++row)
      for (int64_t col = x0[p - 1]; col <= x1[p - 1]; ++col) {
        const int64_t i = row * w + col;
        if (ids[i] != p || !is_core[i] || seen[i]) continue;
        ++ncore[p - 1];
        std::vector<int64_t> stack{i};
        seen[i] = 1;
        while (!stack.empty()) {
          const int64_t c = stack.back();
          stack.pop_back();
          ++core[p - 1];
          row = c / w;  // FRAGSTATS' loop variables end on the last cell popped
          col = c % w;
          for (int k = 0; k < 8; ++k) {
            const int64_t ny = row + dy[k], nx = col + dx[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const int64_t n = ny * w + nx;
            if (ids[n] == p && is_core[n] && !seen[n]) {
              seen[n] = 1;
              stack.push_back(n);
            }
          }
        }
      }
}

// GYRATE of every patch by both rules, cell by cell from the patch-ID raster.
void brute_gyrate(const std::vector<uint32_t>& ids, int64_t w, int64_t h, double cw, double ch, size_t n_patches,
                  std::vector<double>& fragstats, std::vector<double>& centroid) {
  std::vector<std::map<int64_t, uint64_t>> rows(n_patches), cols(n_patches);
  std::vector<double> sx(n_patches, 0), sy(n_patches, 0), n(n_patches, 0);
  for (int64_t i = 0; i < w * h; ++i)
    if (const uint32_t p = ids[i]) {
      ++rows[p - 1][i / w];
      ++cols[p - 1][i % w];
      sx[p - 1] += double(i % w);
      sy[p - 1] += double(i / w);
      ++n[p - 1];
    }
  auto median = [](const std::map<int64_t, uint64_t>& counts, double cells) {
    double c = 0;
    for (const auto& [u, k] : counts) {
      if (c + double(k) >= cells / 2) return double(u) - 0.5 + (cells / 2 - c) / double(k);
      c += double(k);
    }
    return std::nan("");
  };
  fragstats.assign(n_patches, 0);
  centroid.assign(n_patches, 0);
  for (int64_t i = 0; i < w * h; ++i)
    if (const uint32_t p = ids[i]) {
      const double x = double(i % w), y = double(i / w);
      fragstats[p - 1] += std::hypot((x - median(cols[p - 1], n[p - 1])) * cw, (y - median(rows[p - 1], n[p - 1])) * ch);
      centroid[p - 1] += std::hypot((x - sx[p - 1] / n[p - 1]) * cw, (y - sy[p - 1] / n[p - 1]) * ch);
    }
  for (size_t p = 0; p < n_patches; ++p) {
    fragstats[p] = n[p] == 1 ? cw / 2 : fragstats[p] / n[p];
    centroid[p] /= n[p];
  }
}

// ENN by comparing every pair of cells of the same class in different patches.
std::vector<double> brute_enn(const MemoryClassRaster& r, const std::vector<uint32_t>& ids, size_t n_patches) {
  const int64_t w = r.info().width, h = r.info().height;
  std::vector<double> best(n_patches, std::numeric_limits<double>::infinity());
  for (int64_t i = 0; i < w * h; ++i)
    for (int64_t j = i + 1; j < w * h; ++j) {
      if (!ids[i] || !ids[j] || ids[i] == ids[j] || r.cells()[i] != r.cells()[j]) continue;
      const double d = std::hypot(double(i % w - j % w) * r.info().cell_width, double(i / w - j / w) * r.info().cell_height);
      best[ids[i] - 1] = std::min(best[ids[i] - 1], d);
      best[ids[j] - 1] = std::min(best[ids[j] - 1], d);
    }
  for (double& b : best)
    if (std::isinf(b)) b = std::nan("");
  return best;
}

class SecondPass : public ::testing::TestWithParam<int> {};

TEST_P(SecondPass, MatchesBruteForceForEveryTileSize) {
  const NeighbourRule rule = GetParam() == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
  auto raster = random_landscape(61, 47, 3, 7, 0.1);
  const Reference ref = brute_force(raster, rule);
  const std::vector<double> enn = brute_enn(raster, ref.labels, ref.patches.size());
  std::vector<double> gyrate_fragstats, gyrate_centroid;
  brute_gyrate(ref.labels, 61, 47, raster.info().cell_width, raster.info().cell_height, ref.patches.size(),
               gyrate_fragstats, gyrate_centroid);
  size_t lost_areas = 0;
  for (int depth : {1, 2, 3}) {
    std::vector<uint64_t> core_all, ncore_all, core_fs, ncore_fs;
    std::vector<uint8_t> is_core;
    brute_core(ref.labels, 61, 47, depth, ref.patches.size(), core_all, ncore_all, is_core);
    brute_fragstats_core(ref.labels, is_core, 61, 47, ref.patches.size(), core_fs, ncore_fs);
    for (size_t i = 0; i < ref.patches.size(); ++i) lost_areas += ncore_all[i] - ncore_fs[i];
    const Computed whole = compute(raster, rule, depth, 0);
    // Relabeled (0), labels kept (1), labels kept with the CPU NeighbourhoodCounter (2),
    // and the documented rules (--gyrate centroid, --core-areas all) relabeled (3) or kept (4).
    for (const auto& [tile, mode] : {std::pair<int64_t, int>{0, 0}, {16, 0}, {7, 0}, {1, 0}, {0, 1}, {16, 1}, {7, 1},
                                     {1, 1}, {0, 2}, {7, 2}, {0, 3}, {7, 3}, {16, 4}, {1, 4}}) {
      const bool documented = mode >= 3;
      const Computed c = compute(raster, rule, depth, tile, Backend::Cpu, {}, mode == 1 || mode == 2 || mode == 4,
                                 mode == 2, documented ? GyrateRule::Centroid : GyrateRule::Fragstats,
                                 documented ? CoreAreaRule::All : CoreAreaRule::Fragstats);
      ASSERT_EQ(c.table.tile_labels.empty(), mode == 0 || mode == 3);
      ASSERT_EQ(c.rows.patches.size(), ref.patches.size());
      const std::vector<uint64_t>& core = documented ? core_all : core_fs;
      const std::vector<uint64_t>& ncore = documented ? ncore_all : ncore_fs;
      const std::vector<double>& gyrate = documented ? gyrate_centroid : gyrate_fragstats;
      for (size_t i = 0; i < ref.patches.size(); ++i) {
        EXPECT_EQ(c.rows.patches[i].core_cells, core[i]) << "PID " << i + 1 << " depth " << depth << " tile " << tile;
        EXPECT_EQ(c.rows.patches[i].core_areas, ncore[i]) << "PID " << i + 1 << " depth " << depth << " tile " << tile;
        EXPECT_NEAR(c.rows.patches[i].gyrate_m, gyrate[i], 1e-9 * (1 + gyrate[i])) << "PID " << i + 1 << " mode " << mode;
        if (std::isnan(enn[i])) EXPECT_TRUE(std::isnan(c.rows.patches[i].enn_m));
        else EXPECT_DOUBLE_EQ(c.rows.patches[i].enn_m, enn[i]) << "PID " << i + 1;
      }
      if (documented) continue;  // the bit-for-bit comparison below is against the default rules
      // Every table, bit for bit, for every tile size.
      ASSERT_EQ(c.m.patch.rows.size(), whole.m.patch.rows.size());
      for (size_t i = 0; i < c.m.patch.rows.size(); ++i)
        for (size_t k = 0; k < c.m.patch.columns.size(); ++k) {
          const double a = c.m.patch.rows[i].values[k], b = whole.m.patch.rows[i].values[k];
          EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << c.m.patch.columns[k] << " tile " << tile;
        }
      for (const auto& [mine, base] : {std::pair{&c.m.cls, &whole.m.cls}, std::pair{&c.m.land, &whole.m.land}})
        for (size_t i = 0; i < mine->rows.size(); ++i)
          for (size_t k = 0; k < mine->columns.size(); ++k) {
            const double a = mine->rows[i].values[k], b = base->rows[i].values[k];
            EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << mine->columns[k] << " tile " << tile;
          }
      EXPECT_EQ(c.rows.adjacency.sides_h, whole.rows.adjacency.sides_h);
      EXPECT_EQ(c.rows.adjacency.sides_v, whole.rows.adjacency.sides_v);
    }
  }
  // The landscape is rough enough for FRAGSTATS' scan to miss core areas, so both rules are exercised.
  EXPECT_GT(lost_areas, 0u);
}

TEST_P(SecondPass, CudaMatchesCpu) {
  LSM_REQUIRE_CUDA();
  const NeighbourRule rule = GetParam() == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
  auto raster = random_landscape(700, 500, 5, 11, 0.1);
  const Computed cpu = compute(raster, rule, 2, 64, Backend::Cpu);
  for (const auto& [tile, in_memory] : {std::pair<int64_t, bool>{0, false}, {64, false}, {17, false}, {64, true}}) {
    const Computed gpu = compute(raster, rule, 2, tile, Backend::Cuda, {}, in_memory);
    ASSERT_EQ(gpu.m.patch.rows.size(), cpu.m.patch.rows.size());
    for (const auto& [mine, base] : {std::pair{&gpu.m.patch, &cpu.m.patch}, std::pair{&gpu.m.cls, &cpu.m.cls},
                                     std::pair{&gpu.m.land, &cpu.m.land}})
      for (size_t i = 0; i < mine->rows.size(); ++i)
        for (size_t k = 0; k < mine->columns.size(); ++k) {
          const double a = mine->rows[i].values[k], b = base->rows[i].values[k];
          EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << mine->columns[k] << " tile " << tile;
        }
  }
}

// GYRATE on the GPU (cuda/patch_rows_cuda.h) equals the CPU's bit for bit on
// patches large enough for the 128-bit sum to carry into its high word many
// times (a 400 x 300 field of one class with holes and a few other patches),
// with non-square cells; and both stay within rounding of the brute-force
// value (the CPU part runs everywhere).
TEST(MetricFamilies, GyrateOnTheGpuEqualsTheCpuForLargePatches) {
  std::string why;
  const bool cuda = cuda_available(&why);
  if (!cuda) std::cout << "GYRATE on the GPU not tested: " << why << "\n";
  std::vector<int32_t> v(400 * 300, 1);
  for (int64_t y = 0; y < 300; ++y)
    for (int64_t x = 0; x < 400; ++x) {
      if ((x * 7 + y * 13) % 97 == 0) v[static_cast<size_t>(y * 400 + x)] = kNoClass;                  // holes
      if (x > 150 && x < 220 && y > 40 && y < 260 && (x + y) % 5 != 0) v[static_cast<size_t>(y * 400 + x)] = 2;  // a big second patch
      if (y % 50 == 7 && x % 3 == 0) v[static_cast<size_t>(y * 400 + x)] = 3;                           // small ones
    }
  MemoryClassRaster raster(400, 300, v, 30.0, 27.5);
  const Computed cpu = compute(raster, NeighbourRule::Eight, 1, 0, Backend::Cpu, {}, true);
  std::optional<Computed> gpu;
  if (cuda) gpu.emplace(compute(raster, NeighbourRule::Eight, 1, 0, Backend::Cuda, {}, true));
  const Reference ref = brute_force(raster, NeighbourRule::Eight);
  std::vector<double> expected, centroid;
  brute_gyrate(ref.labels, 400, 300, 30.0, 27.5, ref.patches.size(), expected, centroid);
  if (gpu) ASSERT_EQ(gpu->rows.patches.size(), cpu.rows.patches.size());
  ASSERT_EQ(cpu.rows.patches.size(), expected.size());
  size_t large = 0;
  for (size_t i = 0; i < cpu.rows.patches.size(); ++i) {
    if (gpu) EXPECT_EQ(gpu->rows.patches[i].gyrate_m, cpu.rows.patches[i].gyrate_m) << "PID " << i + 1;
    EXPECT_NEAR(cpu.rows.patches[i].gyrate_m, expected[i], 1e-9 * (1 + expected[i])) << "PID " << i + 1;
    large += cpu.table.patches[i].cells > 10000;
  }
  EXPECT_GE(large, 2u);
}

// The neighbourhood tests alone: the CUDA counts equal the CPU reference's,
// for several edge depths and more classes than fit the kernel's shared memory.
TEST(NeighbourhoodCounter, CudaMatchesCpu) {
  LSM_REQUIRE_CUDA();
  for (const auto& [classes, depth] : {std::pair{5, 1}, std::pair{5, 3}, std::pair{60, 2}}) {
    auto raster = random_landscape(333, 251, classes, 13, 0.1);
    auto labeler = make_cpu_labeler();
    ScanOptions o;
    o.keep_patch_ids = true;
    o.keep_labels_max_bytes = int64_t(1) << 40;
    const PatchTable t = scan_patches(raster, *labeler, o);
    const std::vector<uint32_t> pids = assemble_patch_ids(t);
    std::vector<int32_t> codes;
    for (const PatchStats& p : t.patches) codes.push_back(p.class_code);
    std::sort(codes.begin(), codes.end());
    codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
    std::vector<uint32_t> class_of(t.patches.size() + 1, 0);
    for (size_t i = 0; i < t.patches.size(); ++i)
      class_of[i + 1] = static_cast<uint32_t>(std::lower_bound(codes.begin(), codes.end(), t.patches[i].class_code) - codes.begin());
    const PatchIdRaster in{pids.data(), 333, 251, &class_of, codes.size()};
    NeighbourhoodCounts cpu, gpu;
    make_neighbourhood_counter(Backend::Cpu)->count(in, depth, cpu);
    make_neighbourhood_counter(Backend::Cuda)->count(in, depth, gpu);
    EXPECT_EQ(gpu.diagonal_pairs, cpu.diagonal_pairs) << classes << " classes, depth " << depth;
    EXPECT_EQ(gpu.sides_h, cpu.sides_h) << classes << " classes, depth " << depth;
    EXPECT_EQ(gpu.sides_v, cpu.sides_v) << classes << " classes, depth " << depth;
    EXPECT_EQ(gpu.core, cpu.core) << classes << " classes, depth " << depth;
    EXPECT_GT(std::count(cpu.core.begin(), cpu.core.end(), 1), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(NeighbourRules, SecondPass, ::testing::Values(4, 8),
                         [](const auto& info) { return "rule" + std::to_string(info.param); });

}  // namespace
}  // namespace lsm::test
