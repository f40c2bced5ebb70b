// FRAGSTATS' proximity index PROX (FRAGSTATS 4.2, P2) and similarity index
// SIMI (P3) with a search radius (proximity_sweep.h): hand grids worked out
// below, random grids against a brute force over every pair of cells, and
// the options' errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "class_pair_table.h"
#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// PROX and SIMI by PID, and the class and landscape tables' PROX_MN and SIMI_MN.
struct Prox {
  std::vector<double> by_pid, simi_by_pid;  // [pid - 1]
  std::map<int32_t, double> class_mn, simi_class_mn;
  double landscape_mn = 0, simi_landscape_mn = 0;
};

Prox prox(MemoryClassRaster& raster, std::optional<double> radius, NeighbourRule rule = NeighbourRule::Eight,
          int64_t tile = 0, std::shared_ptr<const ClassPairTable> similarity = nullptr) {
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  o.rule = rule;
  o.tile_width = o.tile_height = tile;
  o.search_radius = radius;
  o.similarity = similarity;
  o.selection = MetricSelection("PROX_MN,PROX,SIMI,SIMI_MN");
  const LandscapeResults r = run_landscape_job(raster, o);
  const auto column = [](const MetricTable& t, const std::string& name) {
    const size_t c = static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), name) - t.columns.begin());
    EXPECT_LT(c, t.columns.size()) << name;
    return c;
  };
  const size_t prox_c = column(r.metrics.patch, "PROX"), simi_c = column(r.metrics.patch, "SIMI");
  const size_t prox_mn = column(r.metrics.cls, "PROX_MN"), simi_mn = column(r.metrics.cls, "SIMI_MN");
  Prox p;
  for (const MetricTable::Row& row : r.metrics.patch.rows) {
    p.by_pid.push_back(row.values.at(prox_c));
    p.simi_by_pid.push_back(row.values.at(simi_c));
  }
  for (const MetricTable::Row& row : r.metrics.cls.rows) {
    p.class_mn[row.type] = row.values.at(prox_mn);
    p.simi_class_mn[row.type] = row.values.at(simi_mn);
  }
  const MetricTable& land = r.metrics.land;
  p.landscape_mn = land.rows.at(0).values.at(column(land, "PROX_MN"));
  p.simi_landscape_mn = land.rows.at(0).values.at(column(land, "SIMI_MN"));
  return p;
}

// Similarity weights d_ik of `codes` (row i: the focal patch's class).
std::shared_ptr<const ClassPairTable> similarity(const std::vector<int32_t>& codes, const std::vector<double>& d) {
  auto t = std::make_shared<ClassPairTable>();
  t->codes = codes;
  t->d = d;
  t->path = "test.fsq";
  return t;
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
  EXPECT_TRUE(std::isnan(p.simi_by_pid[0]));  // no similarity weights: SIMI is N/A
  // Without a radius: N/A.
  p = prox(raster, std::nullopt);
  EXPECT_TRUE(std::isnan(p.by_pid[0]));
  EXPECT_TRUE(std::isnan(p.landscape_mn));
}

TEST(Similarity, HandGrid) {
  // The grid above, R = 20 m, similarity d_11 = d_22 = 1, d_12 = 0.5 (a
  // class 2 neighbour of a class 1 patch), d_21 = 0.25: not symmetric.
  MemoryClassRaster raster = grid({"112122", "222222", "122221"}, 10);
  const Prox p = prox(raster, 20, NeighbourRule::Eight, 0, similarity({1, 2}, {1, 0.5, 0.25, 1}));
  ASSERT_EQ(p.simi_by_pid.size(), 5u);
  // A (PID 1): B and C as in PROX (0.25 each), and the class 2 patch,
  // 10 m away (adjacent), with 5 cells within 20 m of A's: (2,0), (0,1),
  // (1,1), (2,1), (1,2) -> 0.5 x 500 m2 / (10 m)^2 = 2.5.
  EXPECT_DOUBLE_EQ(p.simi_by_pid[0], 0.25 + 0.25 + 2.5);
  // The class 2 patch: the four class 1 patches, all adjacent (10 m) and
  // all within 20 m: 0.25 x (200 + 100 + 100 + 100) m2 / 100 m2.
  EXPECT_DOUBLE_EQ(p.simi_by_pid[1], 1.25);
  // B (3,0): A (0.25) and 7 class 2 cells within 20 m: (2,0), (4,0),
  // (5,0), (2,1), (3,1), (4,1), (3,2) -> 0.5 x 7 = 3.5.
  EXPECT_DOUBLE_EQ(p.simi_by_pid[2], 0.25 + 3.5);
  // C (0,2): A (0.25) and (1,2), (2,2), (0,1), (1,1) -> 0.5 x 4.
  EXPECT_DOUBLE_EQ(p.simi_by_pid[3], 0.25 + 2);
  // D (5,2): no class 1 patch within 20 m; (4,2), (3,2), (5,1), (4,1), (5,0) -> 0.5 x 5.
  EXPECT_DOUBLE_EQ(p.simi_by_pid[4], 2.5);
  EXPECT_DOUBLE_EQ(p.simi_class_mn.at(1), (3.0 + 3.75 + 2.25 + 2.5) / 4);
  EXPECT_DOUBLE_EQ(p.simi_class_mn.at(2), 1.25);
  EXPECT_DOUBLE_EQ(p.simi_landscape_mn, (3.0 + 1.25 + 3.75 + 2.25 + 2.5) / 5);
  // PROX is unchanged by the similarity weights.
  EXPECT_DOUBLE_EQ(p.by_pid[0], 0.5);
  EXPECT_EQ(p.by_pid[1], 0);
  // Class 1 finds class 2 not similar at all: only PROX's terms remain for
  // class 1, and weights 0 everywhere give 0.
  EXPECT_DOUBLE_EQ(prox(raster, 20, NeighbourRule::Eight, 0, similarity({1, 2}, {1, 0, 0.25, 1})).simi_by_pid[0], 0.5);
  const Prox none = prox(raster, 20, NeighbourRule::Eight, 0, similarity({1, 2}, {0, 0, 0, 0}));
  for (double v : none.simi_by_pid) EXPECT_EQ(v, 0);
}

// A background class is no patches: its cells count for no focal patch's
// SIMI, and the similarity file need not list it.
TEST(Similarity, BackgroundIsNoNeighbour) {
  MemoryClassRaster raster = grid({"112122", "222222", "122221"}, 10);
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  o.search_radius = 20;
  o.background = {2};
  o.similarity = similarity({1}, {1});
  o.selection = MetricSelection("PROX,SIMI");
  const LandscapeResults r = run_landscape_job(raster, o);
  ASSERT_EQ(r.metrics.patch.rows.size(), 4u);  // A, B, C, D: class 2 is background
  for (const MetricTable::Row& row : r.metrics.patch.rows) EXPECT_EQ(row.values.at(0), row.values.at(1)) << row.pid;
  EXPECT_DOUBLE_EQ(r.metrics.patch.rows[0].values.at(1), 0.5);  // A: B and C only, as its PROX
}

// A class the similarity weights do not list: refused by name.
TEST(Similarity, EveryClassNeedsItsWeights) {
  MemoryClassRaster raster = grid({"112122", "222222", "122223"}, 10);
  try {
    prox(raster, 20, NeighbourRule::Eight, 0, similarity({1, 2}, {1, 0.5, 0.25, 1}));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the similarity file 'test.fsq' lists no class 3, which is in the raster: every pair of patches needs its weight");
  }
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
    // Similarity weights in steps of 1/4, some 0, not symmetric.
    std::uniform_int_distribution<int> quarter(0, 4);
    std::vector<double> d(9);
    for (double& v : d) v = quarter(rng) / 4.0;
    const auto weights = similarity({1, 2, 3}, d);
    std::vector<double> expected(n, 0), expected_simi(n, 0);
    for (uint32_t p = 1; p <= n; ++p)
      for (uint32_t q = 1; q <= n; ++q) {
        if (p == q) continue;
        const int32_t i = ref.patches[p - 1].class_code, k = ref.patches[q - 1].class_code;
        double h2 = std::numeric_limits<double>::infinity();
        uint64_t within = 0;  // q's cells within the radius of some cell of p
        for (int64_t b : cells_of[q]) {
          double nearest = std::numeric_limits<double>::infinity();
          for (int64_t a : cells_of[p]) nearest = std::min(nearest, d2(a, b));
          h2 = std::min(h2, nearest);
          within += nearest <= radius * radius;
        }
        if (h2 > radius * radius) continue;
        const double near = static_cast<double>(within) * cw * ch / h2;
        if (i == k) expected[p - 1] += near;
        expected_simi[p - 1] += weights->weight(i, k) * near;
      }
    const Prox got = prox(raster, radius, rule, 0, weights);
    const Prox tiled = prox(raster, radius, rule, 4, weights);
    const Prox alone = prox(raster, radius, rule);  // PROX without the similarity sweep
    ASSERT_EQ(got.by_pid.size(), n);
    double some = 0, some_simi = 0;
    for (size_t i = 0; i < n; ++i) {
      EXPECT_NEAR(got.by_pid[i], expected[i], 1e-12 * std::max(1.0, expected[i])) << "patch " << i + 1;
      EXPECT_NEAR(got.simi_by_pid[i], expected_simi[i], 1e-12 * std::max(1.0, expected_simi[i])) << "patch " << i + 1;
      EXPECT_EQ(got.by_pid[i], tiled.by_pid[i]) << "patch " << i + 1;
      EXPECT_EQ(got.simi_by_pid[i], tiled.simi_by_pid[i]) << "patch " << i + 1;
      EXPECT_EQ(got.by_pid[i], alone.by_pid[i]) << "patch " << i + 1;
      some += expected[i];
      some_simi += expected_simi[i] - expected[i] * weights->weight(ref.patches[i].class_code, ref.patches[i].class_code);
    }
    EXPECT_GT(some, 0);       // the trial tests something
    EXPECT_NE(some_simi, 0);  // and other classes' terms
  }
}

// The sweep runs after the other row visitors and can take minutes: it
// reports progress by rows.
TEST(Proximity, TheSweepReportsProgressByRows) {
  std::mt19937 rng(7);
  MemoryClassRaster raster = random_run_grid(rng, 40, 640, 3, 30, 30);
  const auto ticks = [&](std::optional<double> radius) {
    LandscapeJobOptions o;
    o.backend = Backend::Cpu;
    o.search_radius = radius;
    o.selection = MetricSelection("PROX,ENN");
    std::vector<double> seen;
    run_landscape_job(raster, o, {}, [&](double f) {
      seen.push_back(f);
      return true;
    });
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_EQ(seen.back(), 1.0);
    return seen.size();
  };
  EXPECT_GE(ticks(90), ticks(std::nullopt) + 640 / 64 - 1);  // one tick each 64 rows of the sweep
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
