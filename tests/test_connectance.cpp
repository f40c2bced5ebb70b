// FRAGSTATS' connectance CONNECT (FRAGSTATS 4.2, C31 and L30) with a
// threshold distance (connectance_sweep.h): a hand grid worked out below,
// random grids against a brute force over every pair of cells, and the
// options' errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// The class and landscape CONNECT of `raster` (and the tables' rows).
struct Connect {
  std::map<int32_t, double> by_class;
  double landscape = 0;
};

Connect connect(MemoryClassRaster& raster, std::optional<double> threshold, NeighbourRule rule = NeighbourRule::Eight,
                int64_t tile = 0, std::set<int32_t> background = {}) {
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  o.rule = rule;
  o.tile_width = o.tile_height = tile;
  o.threshold_distance = threshold;
  o.background = std::move(background);
  o.selection = MetricSelection("CONNECT");
  const LandscapeResults r = run_landscape_job(raster, o);
  Connect c;
  for (const MetricTable::Row& row : r.metrics.cls.rows) c.by_class[row.type] = row.values.at(0);
  c.landscape = r.metrics.land.rows.at(0).values.at(0);
  return c;
}

TEST(Connectance, HandGrid) {
  // 30 m cells; class 1 has four one-cell patches A (0,0), B (2,0),
  // C (5,0) and D (0,2); class 2 is one patch.
  //   1 2 1 2 2 1
  //   2 2 2 2 2 2
  //   1 2 2 2 2 2
  // Edge-to-edge distances (cell centre to cell centre): A-B 60 m, A-D 60 m,
  // B-D 84.85 m, B-C 90 m, A-C 150 m, C-D 158.1 m.
  MemoryClassRaster raster = grid({"121221", "222222", "122222"}, 30);
  // 60 m: A-B and A-D joined (a distance equal to the threshold joins), 2 of 6 pairs.
  Connect c = connect(raster, 60);
  EXPECT_DOUBLE_EQ(c.by_class.at(1), 2.0 / 6 * 100);
  EXPECT_EQ(c.by_class.at(2), 0);  // one patch: no pair possible, 0 as FRAGSTATS reports
  EXPECT_DOUBLE_EQ(c.landscape, 2.0 / 6 * 100);  // (2 + 0) of (6 + 0) pairs
  EXPECT_EQ(connect(raster, 59.9).by_class.at(1), 0);
  EXPECT_DOUBLE_EQ(connect(raster, 85).by_class.at(1), 50);    // and B-D
  EXPECT_DOUBLE_EQ(connect(raster, 150).by_class.at(1), 500.0 / 6);  // and B-C, A-C
  EXPECT_EQ(connect(raster, 1000).by_class.at(1), 100);
  // The 4-cell rule makes no new patch here: the same values.
  EXPECT_DOUBLE_EQ(connect(raster, 60, NeighbourRule::Four).by_class.at(1), 2.0 / 6 * 100);
  // Without a threshold: N/A.
  c = connect(raster, std::nullopt);
  EXPECT_TRUE(std::isnan(c.by_class.at(1)));
  EXPECT_TRUE(std::isnan(c.landscape));
  // Class 2 as background: the landscape counts class 1's pairs only.
  EXPECT_DOUBLE_EQ(connect(raster, 60, NeighbourRule::Eight, 0, {2}).landscape, 2.0 / 6 * 100);
}

// Random grids, both neighbour rules, cells 30 m x 20 m, thresholds on and
// between cell distances: every class's CONNECT equals a brute force over
// every pair of cells of two patches, for any tile grid.
TEST(Connectance, RandomGridsEqualABruteForceOverEveryPairOfCells) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t w = 19 + trial, h = 13 + trial % 3;
    const double cw = 30, ch = 20;
    const NeighbourRule rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    // 60 m: two columns or three rows exactly; 100 m: a reach of 5 rows; 45 m: between cell distances.
    const double threshold = trial < 3 ? 60 : trial < 6 ? 100 : 45;
    MemoryClassRaster raster = random_run_grid(rng, w, h, 4, cw, ch);
    const std::vector<int32_t>& cells = raster.cells();
    const Reference ref = brute_force(raster, rule);
    const size_t n = ref.patches.size();
    // Brute force: the pairs of patches with two cells within the threshold.
    std::set<std::pair<uint32_t, uint32_t>> joined;
    for (int64_t a = 0; a < w * h; ++a)
      for (int64_t b = a + 1; b < w * h; ++b) {
        const uint32_t p = ref.labels[static_cast<size_t>(a)], q = ref.labels[static_cast<size_t>(b)];
        if (!p || !q || p == q || cells[static_cast<size_t>(a)] != cells[static_cast<size_t>(b)]) continue;
        const double dx = static_cast<double>(a % w - b % w) * cw, dy = static_cast<double>(a / w - b / w) * ch;
        if (dx * dx + dy * dy <= threshold * threshold) joined.insert({std::min(p, q), std::max(p, q)});
      }
    std::map<int32_t, double> pairs, patches;
    for (const auto& [p, q] : joined) ++pairs[ref.patches[p - 1].class_code];
    for (size_t i = 0; i < n; ++i) ++patches[ref.patches[i].class_code];
    const Connect c = connect(raster, threshold, rule);
    const Connect tiled = connect(raster, threshold, rule, 4);
    double all_pairs = 0, all_possible = 0;
    for (const auto& [code, count] : patches) {
      const double possible = count * (count - 1) / 2;
      EXPECT_DOUBLE_EQ(c.by_class.at(code), possible > 0 ? pairs[code] / possible * 100 : 0) << "class " << code;
      EXPECT_EQ(c.by_class.at(code), tiled.by_class.at(code)) << "class " << code;
      all_pairs += pairs[code];
      all_possible += possible;
    }
    EXPECT_DOUBLE_EQ(c.landscape, all_pairs / all_possible * 100);
    EXPECT_GT(all_pairs, 0);  // the trial tests something
  }
}

TEST(Connectance, BadThresholdsAreRefused) {
  MemoryClassRaster raster = grid({"121", "212"}, 30);
  for (double bad : {0.0, -5.0, std::nan("")}) {
    try {
      connect(raster, bad);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput);
      EXPECT_NE(std::string(e.what()).find("the threshold distance must be a positive number of metres"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace lsm::test
