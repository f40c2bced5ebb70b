// The information-theory metrics (families/information_family.cpp: ENT,
// CONDENT, JOINENT, MUTINF, RELMUTINF of Nowosad & Stepinski 2019, as
// landscapemetrics computes them): hand grids worked out below, and random
// grids against a co-occurrence matrix counted here cell by cell, with
// nodata, background, both neighbour rules and any tile grid.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "landscape_job.h"
#include "memory_raster.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

const std::vector<std::string> kInformation = {"ENT", "CONDENT", "JOINENT", "MUTINF", "RELMUTINF"};

std::map<std::string, double> information(MemoryClassRaster& raster, LandscapeJobOptions options = {}) {
  options.backend = Backend::Cpu;
  options.selection = MetricSelection("ENT,CONDENT,JOINENT,MUTINF,RELMUTINF");
  const LandscapeResults r = run_landscape_job(raster, options);
  std::map<std::string, double> values;
  for (size_t i = 0; i < r.metrics.land.columns.size(); ++i) values[r.metrics.land.columns[i]] = r.metrics.land.rows.at(0).values[i];
  return values;
}

double bits(const std::vector<double>& counts) {
  double total = 0, h = 0;
  for (double c : counts) total += c;
  for (double c : counts)
    if (c > 0) h -= c / total * std::log2(c / total);
  return h;
}

// The reference: every pair of 4-adjacent cells with two classes (neither
// nodata nor `background`), counted from both cells.
std::map<std::string, double> brute_force_information(const MemoryClassRaster& raster, int32_t background) {
  const RasterInfo info = raster.info();
  const auto& cells = raster.cells();
  std::map<int32_t, std::map<int32_t, double>> co;
  const auto counts = [&](int32_t c) { return c != kNoClass && c != background; };
  for (int64_t y = 0; y < info.height; ++y)
    for (int64_t x = 0; x < info.width; ++x) {
      const int32_t a = cells[y * info.width + x];
      if (!counts(a)) continue;
      co[a];  // every class is a row and a column, with or without pairs
      const int64_t dx[] = {1, -1, 0, 0}, dy[] = {0, 0, 1, -1};
      for (int d = 0; d < 4; ++d) {
        const int64_t nx = x + dx[d], ny = y + dy[d];
        if (nx < 0 || ny < 0 || nx >= info.width || ny >= info.height) continue;
        const int32_t b = cells[ny * info.width + nx];
        if (counts(b)) co[a][b] += 1;
      }
    }
  std::vector<double> pairs, columns;
  for (const auto& [a, row] : co) {
    double column = 0;
    for (const auto& [b, other_row] : co) {
      const auto it = row.find(b);
      pairs.push_back(it == row.end() ? 0 : it->second);
      const auto jt = other_row.find(a);
      column += jt == other_row.end() ? 0 : jt->second;
    }
    columns.push_back(column);
  }
  const double ent = bits(columns), joinent = bits(pairs), condent = joinent - ent, mutinf = ent - condent;
  return {{"ENT", ent}, {"CONDENT", condent}, {"JOINENT", joinent}, {"MUTINF", mutinf},
          {"RELMUTINF", mutinf == 0 ? 1 : mutinf / ent}};
}

TEST(InformationMetrics, HandGridsHaveTheirWorkedValues) {
  // 1 2 / 1 2: pairs 1-2 (twice across), 1-1 and 2-2 (down): from both cells
  // co = [[2, 2], [2, 2]]; columns (4, 4): ENT 1 bit; four equal pairs:
  // JOINENT 2; CONDENT 1; MUTINF 0, so RELMUTINF 1 (landscapemetrics' rule).
  MemoryClassRaster square = grid({"12", "12"});
  auto v = information(square);
  EXPECT_DOUBLE_EQ(v["ENT"], 1);
  EXPECT_DOUBLE_EQ(v["JOINENT"], 2);
  EXPECT_DOUBLE_EQ(v["CONDENT"], 1);
  EXPECT_DOUBLE_EQ(v["MUTINF"], 0);
  EXPECT_DOUBLE_EQ(v["RELMUTINF"], 1);
  // 1 1 2: co = [[2, 1], [1, 0]]; columns (3, 1): ENT = -(3/4 log2 3/4 +
  // 1/4 log2 1/4) = 0.811278; pairs (2, 1, 1, 0)/4: JOINENT = 1.5; CONDENT =
  // 0.688722; MUTINF = 0.122556; RELMUTINF = 0.151066.
  MemoryClassRaster row = grid({"112"});
  v = information(row);
  const double ent = -(0.75 * std::log2(0.75) + 0.25 * std::log2(0.25));
  EXPECT_NEAR(v["ENT"], ent, 1e-15);
  EXPECT_NEAR(v["ENT"], 0.811278, 1e-6);
  EXPECT_NEAR(v["JOINENT"], 1.5, 1e-15);
  EXPECT_NEAR(v["CONDENT"], 1.5 - ent, 1e-15);
  EXPECT_NEAR(v["MUTINF"], 2 * ent - 1.5, 1e-15);
  EXPECT_NEAR(v["RELMUTINF"], 0.151066, 1e-6);
  // One class: every pair alike: ENT = JOINENT = 0, RELMUTINF 1.
  MemoryClassRaster one = grid({"33", "33"});
  v = information(one);
  EXPECT_EQ(v["ENT"], 0);
  EXPECT_EQ(v["JOINENT"], 0);
  EXPECT_EQ(v["RELMUTINF"], 1);
  // No two adjacent class cells: nothing to measure.
  MemoryClassRaster apart = grid({"1.", ".2"});
  v = information(apart);
  for (const std::string& m : kInformation) EXPECT_TRUE(std::isnan(v[m])) << m;
}

TEST(InformationMetrics, RandomGridsEqualTheCooccurrenceCountedCellByCell) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    MemoryClassRaster raster = random_landscape(83, 57, 2 + static_cast<int>(seed % 5), seed, seed % 2 ? 0.1 : 0.0);
    const auto expected = brute_force_information(raster, kNoClass);
    for (const NeighbourRule rule : {NeighbourRule::Eight, NeighbourRule::Four}) {
      LandscapeJobOptions o;
      o.rule = rule;  // the patches' rule: the co-occurrence is always of the 4 edge neighbours
      auto whole = information(raster, o);
      o.tile_width = 13;
      o.tile_height = 7;
      auto tiled = information(raster, o);
      for (const std::string& m : kInformation) {
        EXPECT_NEAR(whole[m], expected.at(m), 1e-12 * std::max(1.0, std::fabs(expected.at(m)))) << m << " seed " << seed;
        EXPECT_EQ(whole[m], tiled[m]) << m << ": the tile grid changed it";
      }
    }
  }
}

TEST(InformationMetrics, BackgroundPairsAreLeftOutAsCONTAGLeavesThem) {
  MemoryClassRaster raster = random_landscape(64, 48, 4, 99, 0.05);
  LandscapeJobOptions o;
  o.background = {2};
  const auto v = information(raster, o);
  const auto expected = brute_force_information(raster, 2);
  for (const std::string& m : kInformation)
    EXPECT_NEAR(v.at(m), expected.at(m), 1e-12 * std::max(1.0, std::fabs(expected.at(m)))) << m;
  EXPECT_NE(v.at("ENT"), brute_force_information(raster, kNoClass).at("ENT"));  // it did change them
}

}  // namespace
}  // namespace lsm::test
