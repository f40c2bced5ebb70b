// FRAGSTATS' landscape border (negative class codes; landscape_border.h):
// outside the landscape, but the boundary beside a border cell is true edge,
// no edge or background edge by the class the cell gives, for TE, ED,
// CWED, TECI, ECON and the core cells. A hand grid worked out in the
// comments, random grids against a brute force over every cell side and
// every cell within the edge depth, tile invariance, and the CUDA backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "array_view_raster.h"
#include "class_pair_table.h"
#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "metric_table_checks.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

std::shared_ptr<const ClassPairTable> pair_table(const std::vector<int32_t>& codes, const std::vector<double>& d) {
  auto t = std::make_shared<ClassPairTable>();
  t->codes = codes;
  t->d = d;
  t->path = "test.fce";
  return t;
}

LandscapeResults run(ClassRasterSource& raster, LandscapeJobOptions o) {
  if (o.backend == Backend::Auto) o.backend = Backend::Cpu;
  return run_landscape_job(raster, o);
}

// 10 m cells (N: nodata):
//   -1 -1 -2 -2
//   -1  1  1  2
//   -2  1  2  2
// Class 1 (one patch of 3 cells) meets class 2 along 3 sides (30 m); the
// border gives class 1 beside it along 2 sides (no edge) and class 2 along
// 2 sides (true edge, 20 m); its last side is on the raster's edge (10 m,
// boundary without border). Class 2 meets the border's class 2 along 1
// side (no edge) and the raster's edge along 4 (40 m).
MemoryClassRaster hand_grid() {
  return MemoryClassRaster(4, 3, {-1, -1, -2, -2, -1, 1, 1, 2, -2, 1, 2, 2}, 10, 10);
}

TEST(LandscapeBorder, HandGridEdges) {
  MemoryClassRaster raster = hand_grid();
  LandscapeJobOptions o;
  o.selection = MetricSelection("TA,NP,PERIM,TE,ED,CORE");
  const LandscapeResults r = run(raster, o);
  ASSERT_TRUE(r.border);
  const FragstatsMetrics& m = r.metrics;
  // The border is outside the landscape: 6 cells of 100 m2, two patches.
  EXPECT_DOUBLE_EQ(value(m.land, 0, "TA"), 0.06);
  EXPECT_EQ(value(m.land, 0, "NP"), 2);
  // PERIM counts every side, true edge or not: 8 sides each.
  EXPECT_EQ(value(m.patch, 0, "PERIM"), 80);
  EXPECT_EQ(value(m.patch, 1, "PERIM"), 80);
  // TE: 30 + 20 m for class 1, 30 m for class 2, 30 + 20 m in the landscape.
  EXPECT_EQ(value(m.cls, 0, "TE"), 50);
  EXPECT_EQ(value(m.cls, 1, "TE"), 30);
  EXPECT_EQ(value(m.land, 0, "TE"), 50);
  EXPECT_DOUBLE_EQ(value(m.land, 0, "ED"), 50 / 0.06);
  // Core (depth 1): the cell of class 1 in the corner has the border's class
  // 1 above and to the left: core. Nothing else.
  EXPECT_DOUBLE_EQ(value(m.patch, 0, "CORE"), 0.01);
  EXPECT_EQ(value(m.patch, 1, "CORE"), 0);
  // --boundary-edge 1 adds the boundary without border (10 and 40 m), not
  // the border's class 1 or 2 beside the same class.
  o.boundary_edge = 1;
  const FragstatsMetrics all = run(raster, o).metrics;
  EXPECT_EQ(value(all.cls, 0, "TE"), 60);
  EXPECT_EQ(value(all.cls, 1, "TE"), 70);
  EXPECT_EQ(value(all.land, 0, "TE"), 100);
}

TEST(LandscapeBorder, HandGridContrast) {
  MemoryClassRaster raster = hand_grid();
  LandscapeJobOptions o;
  o.selection = MetricSelection("ECON,CWED,TECI");
  // d(1,2) = 0.5; the boundary without border (background 999): 1 for
  // class 1, 0.2 for class 2.
  o.contrast = pair_table({1, 2, 999}, {0, 0.5, 1, 0.5, 0, 0.2, 1, 0.2, 0});
  const FragstatsMetrics m = run(raster, o).metrics;
  // ECON, patch 1: 3 sides x 0.5 with class 2, 2 border sides of class 2 x
  // 0.5, 2 of class 1 x 0, 1 on the raster's edge x 1: 3.5 of 8 sides.
  EXPECT_DOUBLE_EQ(value(m.patch, 0, "ECON"), 3.5 / 8 * 100);
  // Patch 2: 3 x 0.5, 1 border side of class 2 x 0, 4 on the edge x 0.2.
  EXPECT_DOUBLE_EQ(value(m.patch, 1, "ECON"), 2.3 / 8 * 100);
  // CWED of class 1: 30 m x 0.5 + 20 m x 0.5 + 10 m x 1 = 35 m over
  // 0.06 ha; TECI: 35 of the 60 m of edge (the border's class 1 is none).
  EXPECT_DOUBLE_EQ(value(m.cls, 0, "CWED"), 35 / 0.06);
  EXPECT_DOUBLE_EQ(value(m.cls, 0, "TECI"), 35.0 / 60 * 100);
  // Class 2: 30 x 0.5 + 40 x 0.2 = 23 m of the 70 m of edge.
  EXPECT_DOUBLE_EQ(value(m.cls, 1, "TECI"), 23.0 / 70 * 100);
  // Landscape: 15 + 10 + 10 + 8 = 43 m over 30 + 20 + 10 + 40 m.
  EXPECT_DOUBLE_EQ(value(m.land, 0, "CWED"), 43 / 0.06);
  EXPECT_DOUBLE_EQ(value(m.land, 0, "TECI"), 43.0 / 100 * 100);
  // A class the border gives must have its weights.
  o.contrast = pair_table({1, 999}, {0, 1, 1, 0});
  o.selection = MetricSelection("CWED");
  MemoryClassRaster only_one(3, 2, {-1, -2, -1, -1, 1, 1}, 10, 10);
  try {
    run(only_one, o);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    EXPECT_NE(std::string(e.what()).find("lists no class 2"), std::string::npos) << e.what();
  }
}

// A reader that maps the border in its own loop (the array and GDAL
// readers) and one that holds codes as given (the in-memory raster, mapped
// by the job) give the same tables; the array reader still refuses the
// border for jobs that do not ask, and reads it as asked.
TEST(LandscapeBorder, ReadersThatMapTheBorderGiveTheSameTables) {
  std::vector<int32_t> cells = random_landscape(40, 30, 4, 9, 0.03).cells();
  for (int64_t y = 0; y < 30; ++y)
    for (int64_t x = 0; x < 40; ++x)
      if ((y < 3 || x >= 37) && cells[static_cast<size_t>(y * 40 + x)] != kNoClass)
        cells[static_cast<size_t>(y * 40 + x)] = -cells[static_cast<size_t>(y * 40 + x)];
  MemoryClassRaster memory(40, 30, cells, 10, 10);
  ArrayViewClassRaster array(cells.data(), ArrayCellType::Int32, 40, 30, 40, 10, 10, std::nullopt);
  LandscapeJobOptions o;
  o.edge_depth = 2;
  const LandscapeResults a = run(memory, o), b = run(array, o);
  ASSERT_TRUE(a.border && b.border);
  EXPECT_EQ(a.border->cells_kept(), b.border->cells_kept());
  expect_same_tables(b.metrics, a.metrics);
  std::vector<int32_t> row(40);
  EXPECT_THROW(array.read(Window{0, 0, 40, 1}, row.data()), Error);  // the job has let go: refused again
  EXPECT_TRUE(array.take_border_codes(ClassRasterSource::BorderCodes::AsNodata));
  array.read(Window{0, 0, 40, 1}, row.data());
  EXPECT_TRUE(array.met_border_codes());
  EXPECT_TRUE(std::all_of(row.begin(), row.end(), [](int32_t v) { return v == kNoClass || v >= 0; }));
  array.take_border_codes(ClassRasterSource::BorderCodes::AsRead);
  array.read(Window{0, 0, 40, 1}, row.data());
  EXPECT_TRUE(std::equal(row.begin(), row.end(), cells.begin()));
}

// IJI counts the border's classes among the patch types and the boundary
// beside them as edge between the two (FRAGSTATS 4.2, C/L IJI). 10 m cells:
//   -3 -3 -3
//    1  1  2
//    1  2  2
// Classes 1 and 2 share 30 m of edge; the border's class 3 makes 20 m of
// edge with class 1 and 10 m with class 2; m = 3 patch types.
TEST(LandscapeBorder, InterspersionCountsTheBordersClasses) {
  MemoryClassRaster raster(3, 3, {-3, -3, -3, 1, 1, 2, 1, 2, 2}, 10, 10);
  LandscapeJobOptions o;
  o.selection = MetricSelection("IJI");
  const FragstatsMetrics m = run(raster, o).metrics;
  const auto h = [](std::vector<double> e) {
    double total = 0, sum = 0;
    for (double x : e) total += x;
    for (double x : e) sum -= x / total * std::log(x / total);
    return sum;
  };
  EXPECT_NEAR(value(m.cls, 0, "IJI"), h({30, 20}) / std::log(2.0) * 100, 1e-9);
  EXPECT_NEAR(value(m.cls, 1, "IJI"), h({30, 10}) / std::log(2.0) * 100, 1e-9);
  EXPECT_NEAR(value(m.land, 0, "IJI"), h({30, 20, 10}) / std::log(3.0) * 100, 1e-9);
  // Without the border: two patch types, IJI is N/A.
  MemoryClassRaster none(3, 3, {kNoClass, kNoClass, kNoClass, 1, 1, 2, 1, 2, 2}, 10, 10);
  EXPECT_TRUE(std::isnan(value(run(none, o).metrics.land, 0, "IJI")));
}

// The raster with its border read as nodata: the same tables but for the
// metrics the border changes (and none of them when the border gives only
// background with no boundary share... here it gives classes).
TEST(LandscapeBorder, EverythingElseIsAsWithoutTheBorder) {
  MemoryClassRaster with = random_landscape(70, 50, 4, 7, 0.03);
  std::vector<int32_t> cells = with.cells(), as_nodata = with.cells();
  for (int64_t y = 0; y < 50; ++y)
    for (int64_t x = 0; x < 70; ++x)
      if (x < 3 || y < 2 || x >= 66) {
        const size_t i = static_cast<size_t>(y * 70 + x);
        if (cells[i] != kNoClass) cells[i] = -cells[i];
        as_nodata[i] = kNoClass;
      }
  MemoryClassRaster border(70, 50, cells, 30, 30), none(70, 50, as_nodata, 30, 30);
  LandscapeJobOptions o;
  const FragstatsMetrics a = run(border, o).metrics, b = run(none, o).metrics;
  const std::set<std::string> changed = {"TE", "ED", "IJI", "CORE", "CAI", "NCORE", "TCA", "CPLAND", "NDCA", "DCAD"};
  auto border_metric = [&](const std::string& c) {
    for (const std::string& m : changed)
      if (c == m || c.rfind(m + "_", 0) == 0 || c.rfind("DCORE", 0) == 0) return true;
    return false;
  };
  int compared = 0, differ = 0;
  for (const auto& [x, y] : {std::pair{&a.patch, &b.patch}, {&a.cls, &b.cls}, {&a.land, &b.land}}) {
    ASSERT_EQ(x->columns, y->columns);
    ASSERT_EQ(x->rows.size(), y->rows.size());
    for (size_t r = 0; r < x->rows.size(); ++r)
      for (size_t c = 0; c < x->columns.size(); ++c) {
        const double u = x->rows[r].values[c], v = y->rows[r].values[c];
        const bool same = u == v || (std::isnan(u) && std::isnan(v));
        if (border_metric(x->columns[c])) {
          differ += !same;
          continue;
        }
        EXPECT_TRUE(same) << x->columns[c] << " row " << r << ": " << u << " " << v;
        ++compared;
      }
  }
  EXPECT_GT(compared, 500);
  EXPECT_GT(differ, 5);  // TE and core do see the border
}

// Random grids, both neighbour rules: a border 2 cells wide on three sides
// (codes of random classes, the background's too, some nodata), a
// background class inside. TE per class, ECON per patch and each patch's
// core cells (depth 1 and 2) equal a brute force over every cell side and
// every cell within the depth, for any tile grid.
TEST(LandscapeBorder, RandomGridsEqualABruteForce) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t w = 31 + trial, h = 23 + 2 * trial;
    const NeighbourRule rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    const int depth = 1 + trial % 2;
    std::vector<int32_t> cells = random_landscape(w, h, 4, 300 + static_cast<uint64_t>(trial), 0.04).cells();
    std::uniform_int_distribution<int> border_class(1, 4);
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        if ((x < 2 || y < 2 || x >= w - 2) && cells[static_cast<size_t>(y * w + x)] != kNoClass)
          cells[static_cast<size_t>(y * w + x)] = -border_class(rng);
    MemoryClassRaster raster(w, h, cells, 10, 10);
    // The reference: the border as nodata, labelled by brute force.
    std::vector<int32_t> inside = cells;
    for (int32_t& c : inside)
      if (c < 0) c = kNoClass;
    const Reference ref = brute_force(MemoryClassRaster(w, h, inside, 10, 10), rule);
    const int32_t background = 4;
    // Contrast weights of classes 1..4 and the boundary's 999 (background is
    // 4 here, the single background class, so the boundary takes 4's).
    std::vector<double> d(16);
    std::uniform_int_distribution<int> tenth(0, 10);
    for (size_t i = 0; i < 4; ++i)
      for (size_t k = 0; k <= i; ++k) d[i * 4 + k] = d[k * 4 + i] = i == k ? 0 : tenth(rng) / 10.0;
    const auto weight = [&](int32_t a, int32_t b) { return d[static_cast<size_t>((a - 1) * 4 + (b - 1))]; };
    const double share = 0.5;
    auto at = [&](int64_t x, int64_t y) {
      return x < 0 || y < 0 || x >= w || y >= h ? kNoClass : cells[static_cast<size_t>(y * w + x)];
    };
    // Brute force: TE by class (m), ECON's weighted sides by brute-force label, core cells by label.
    std::map<int32_t, double> te;
    std::vector<double> econ(ref.patches.size() + 1, 0);
    std::vector<uint64_t> core(ref.patches.size() + 1, 0);
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const int32_t c = at(x, y);
        if (c < 0) continue;  // nodata and the border: outside
        const uint32_t l = ref.labels[static_cast<size_t>(y * w + x)];
        const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int s = 0; s < 4; ++s) {
          const int32_t n = at(x + dx[s], y + dy[s]);
          if (n == c) continue;
          double edge;  // the side's share of edge in TE
          int32_t beyond;  // the class whose weight the side takes
          if (n == kNoClass) edge = share, beyond = background;           // no border: the boundary
          else if (n < 0 && -n == c) edge = 0, beyond = c;                // the border gives this class
          else if (n < 0) edge = -n == background ? share : 1, beyond = -n;
          else edge = n == background || c == background ? share : 1, beyond = n;
          te[c] += edge * 10;
          econ[l] += beyond == c ? 0 : weight(c, beyond);
        }
        bool is_core = true;
        for (int64_t yy = y - depth; yy <= y + depth; ++yy)
          for (int64_t xx = x - depth; xx <= x + depth; ++xx) {
            if ((xx - x) * (xx - x) + (yy - y) * (yy - y) > depth * depth) continue;
            const int32_t n = at(xx, yy);
            const bool inside_raster = xx >= 0 && yy >= 0 && xx < w && yy < h;
            if (inside_raster && n >= 0 && ref.labels[static_cast<size_t>(yy * w + xx)] == l) continue;
            if (n < 0 && n != kNoClass && -n == c) continue;  // the patch's class beyond the boundary
            is_core = false;
          }
        core[l] += is_core;
      }
    LandscapeJobOptions o;
    o.rule = rule;
    o.background = {background};
    o.boundary_edge = share;
    o.edge_depth = depth;
    o.contrast = pair_table({1, 2, 3, 4}, d);
    o.core_areas = CoreAreaRule::All;
    o.selection = MetricSelection("TE,ECON,CORE,PERIM");
    const FragstatsMetrics got = run(raster, o).metrics;
    o.tile_width = o.tile_height = 5;
    const FragstatsMetrics tiled = run(raster, o).metrics;
    // Class rows: classes 1..3 (4 is background) present in the landscape.
    for (const MetricTable::Row& row : got.cls.rows)
      EXPECT_NEAR(row.values[column(got.cls, "TE")], te[row.type], 1e-9) << "class " << row.type;
    // Patch rows: the brute force's patches in raster order, background left out.
    std::vector<uint32_t> labels;
    for (uint32_t l = 1; l <= ref.patches.size(); ++l)
      if (ref.patches[l - 1].class_code != background) labels.push_back(l);
    ASSERT_EQ(got.patch.rows.size(), labels.size());
    uint64_t some_core = 0;
    for (size_t r = 0; r < labels.size(); ++r) {
      const uint32_t l = labels[r];
      const double perim_sides = value(got.patch, r, "PERIM") / 10;
      EXPECT_NEAR(value(got.patch, r, "ECON"), econ[l] / perim_sides * 100, 1e-9) << "patch " << r + 1;
      EXPECT_DOUBLE_EQ(value(got.patch, r, "CORE"), static_cast<double>(core[l]) * 0.01) << "patch " << r + 1;
      some_core += core[l];
    }
    EXPECT_GT(some_core, 0u);
    expect_same_tables(tiled, got);
  }
}

// With CUDA labels the border's cells are still decided on the CPU: the same tables.
TEST(LandscapeBorder, CudaGivesTheCpuTables) {
  LSM_REQUIRE_CUDA();
  std::vector<int32_t> cells = random_landscape(300, 200, 5, 41, 0.03).cells();
  for (int64_t y = 0; y < 200; ++y)
    for (int64_t x = 0; x < 300; ++x)
      if ((x < 4 || y >= 196) && cells[static_cast<size_t>(y * 300 + x)] != kNoClass)
        cells[static_cast<size_t>(y * 300 + x)] = -cells[static_cast<size_t>(y * 300 + x)];
  MemoryClassRaster raster(300, 200, cells, 30, 30);
  LandscapeJobOptions o;
  o.edge_depth = 2;
  std::vector<double> d(36);
  for (size_t i = 0; i < 6; ++i)
    for (size_t k = 0; k < 6; ++k) d[i * 6 + k] = i == k ? 0 : static_cast<double>((i + k) % 4) / 4;
  o.contrast = pair_table({1, 2, 3, 4, 5, 999}, d);
  const FragstatsMetrics cpu = run(raster, o).metrics;
  o.backend = Backend::Cuda;
  const LandscapeResults gpu = run_landscape_job(raster, o);
  EXPECT_EQ(gpu.rows.plan.core_areas, StageRun::Rows);
  expect_same_tables(gpu.metrics, cpu);
}

}  // namespace
}  // namespace lsm::test
