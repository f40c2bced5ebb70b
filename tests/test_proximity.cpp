// FRAGSTATS' proximity index PROX (FRAGSTATS 4.2, P2) with a search radius
// (proximity_sweep.h): a hand grid worked out below, random grids against a
// brute force over every pair of cells, and the options' errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// PROX by PID, and the class and landscape tables' PROX_MN.
struct Prox {
  std::vector<double> by_pid;  // [pid - 1]
  std::map<int32_t, double> class_mn;
  double landscape_mn = 0;
};

Prox prox(MemoryClassRaster& raster, std::optional<double> radius, NeighbourRule rule = NeighbourRule::Eight,
          int64_t tile = 0) {
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  o.rule = rule;
  o.tile_width = o.tile_height = tile;
  o.search_radius = radius;
  o.selection = MetricSelection("PROX_MN,PROX");
  const LandscapeResults r = run_landscape_job(raster, o);
  Prox p;
  for (const MetricTable::Row& row : r.metrics.patch.rows) p.by_pid.push_back(row.values.at(0));
  for (const MetricTable::Row& row : r.metrics.cls.rows) p.class_mn[row.type] = row.values.at(0);
  p.landscape_mn = r.metrics.land.rows.at(0).values.at(0);
  return p;
}

TEST(Proximity, HandGrid) {
  // 10 m cells (100 m2). Class 1: A = PID 1 (two cells), B = PID 3,
  // C = PID 4, D = PID 5; class 2 is one patch, PID 2.
  //   1 1 2 1 2 2
  //   2 2 2 2 2 2
  //   1 2 2 2 2 1
  MemoryClassRaster raster = grid({"112122", "222222", "122221"}, 10);
  // R = 20 m: A-B 20 m apart (one cell of each within 20 m of the other),
  // A-C 20 m (likewise); B-D 28.3 m, B-C 36 m, A-D 44.7 m are beyond.
  Prox p = prox(raster, 20);
  ASSERT_EQ(p.by_pid.size(), 5u);
  EXPECT_DOUBLE_EQ(p.by_pid[0], 100.0 / 400 + 100.0 / 400);  // A: B and C, each 100 m2 / (20 m)^2
  EXPECT_EQ(p.by_pid[1], 0);                                  // class 2: no other patch
  EXPECT_DOUBLE_EQ(p.by_pid[2], 0.25);                        // B: A's cell (1,0); (0,0) is 30 m away
  EXPECT_DOUBLE_EQ(p.by_pid[3], 0.25);                        // C: A's cell (0,0); (1,0) is 22.4 m away
  EXPECT_EQ(p.by_pid[4], 0);                                  // D: none within 20 m
  EXPECT_DOUBLE_EQ(p.class_mn.at(1), (0.5 + 0.25 + 0.25 + 0) / 4);
  // R = 30 m: now both of A's cells are within reach of B (30 m) and of C
  // (22.4 m), and B-D (28.3 m) are neighbours: 100 m2 / 800 m2 each way.
  p = prox(raster, 30);
  EXPECT_DOUBLE_EQ(p.by_pid[0], 0.25 + 0.25);
  EXPECT_DOUBLE_EQ(p.by_pid[2], 200.0 / 400 + 100.0 / 800);
  EXPECT_DOUBLE_EQ(p.by_pid[3], 200.0 / 400);
  EXPECT_DOUBLE_EQ(p.by_pid[4], 100.0 / 800);
  // Without a radius: N/A.
  p = prox(raster, std::nullopt);
  EXPECT_TRUE(std::isnan(p.by_pid[0]));
  EXPECT_TRUE(std::isnan(p.landscape_mn));
}

// Random grids, both neighbour rules, cells 30 m x 20 m, radii on and
// between cell distances: every patch's PROX equals a brute force over every
// pair of cells, and is the same to the bit for any tile grid.
TEST(Proximity, RandomGridsEqualABruteForceOverEveryPairOfCells) {
  std::mt19937 rng(32);
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t w = 17 + trial, h = 12 + trial % 4;
    const double cw = 30, ch = 20;
    const NeighbourRule rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    const double radius = trial < 3 ? 60 : trial < 6 ? 100 : 45;
    MemoryClassRaster raster = random_run_grid(rng, w, h, 3, cw, ch);
    const Reference ref = brute_force(raster, rule);
    const size_t n = ref.patches.size();
    std::vector<std::vector<int64_t>> cells_of(n + 1);
    for (int64_t i = 0; i < w * h; ++i)
      if (const uint32_t p = ref.labels[static_cast<size_t>(i)]) cells_of[p].push_back(i);
    const auto d2 = [&](int64_t a, int64_t b) {
      const double dx = static_cast<double>(a % w - b % w) * cw, dy = static_cast<double>(a / w - b / w) * ch;
      return dx * dx + dy * dy;
    };
    std::vector<double> expected(n, 0);
    for (uint32_t p = 1; p <= n; ++p)
      for (uint32_t q = 1; q <= n; ++q) {
        if (p == q || ref.patches[p - 1].class_code != ref.patches[q - 1].class_code) continue;
        double h2 = std::numeric_limits<double>::infinity();
        uint64_t within = 0;  // q's cells within the radius of some cell of p
        for (int64_t b : cells_of[q]) {
          double nearest = std::numeric_limits<double>::infinity();
          for (int64_t a : cells_of[p]) nearest = std::min(nearest, d2(a, b));
          h2 = std::min(h2, nearest);
          within += nearest <= radius * radius;
        }
        if (h2 <= radius * radius) expected[p - 1] += static_cast<double>(within) * cw * ch / h2;
      }
    const Prox got = prox(raster, radius, rule);
    const Prox tiled = prox(raster, radius, rule, 4);
    ASSERT_EQ(got.by_pid.size(), n);
    double some = 0;
    for (size_t i = 0; i < n; ++i) {
      EXPECT_NEAR(got.by_pid[i], expected[i], 1e-12 * std::max(1.0, expected[i])) << "patch " << i + 1;
      EXPECT_EQ(got.by_pid[i], tiled.by_pid[i]) << "patch " << i + 1;
      some += expected[i];
    }
    EXPECT_GT(some, 0);  // the trial tests something
  }
}

TEST(Proximity, BadRadiiAreRefused) {
  MemoryClassRaster raster = grid({"121", "212"}, 30);
  for (double bad : {0.0, -5.0, std::nan("")}) {
    try {
      prox(raster, bad);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput);
      EXPECT_NE(std::string(e.what()).find("the search radius must be a positive number of metres"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace lsm::test
