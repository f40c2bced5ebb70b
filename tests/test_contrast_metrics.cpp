// FRAGSTATS' contrast metrics CWED and TECI (FRAGSTATS 4.2, "Contrast
// metrics") from edge contrast weight files (.fce, class_pair_table.h): the
// file format and its errors, a hand grid worked out below, and random
// grids against a brute-force sum over every cell side.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <unistd.h>

#include "class_pair_table.h"
#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"

namespace lsm::test {
namespace {

class ContrastFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("lsm_contrast_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& text) {
    const std::string path = (dir_ / ("t" + std::to_string(n_++) + ".fce")).string();
    std::ofstream(path) << text;
    return path;
  }
  // The message read_contrast_table() throws for `text`, after the file's path.
  std::string error(const std::string& text, const std::map<int32_t, std::string>& names = {}) {
    const std::string path = file(text);
    try {
      read_contrast_table(path, names);
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path), std::string::npos) << m;
      return m.substr(m.find(path) + path.size());
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }
  std::filesystem::path dir_;
  int n_ = 0;
};

TEST_F(ContrastFiles, ReadsFragstatsTables) {
  // Comments, Windows line ends, spaces, a numeric list.
  const ClassPairTable t = read_contrast_table(
      file("FSQ_TABLE\r\n# land cover\r\nCLASS_LIST_NUMERIC(11, 21, 999)\r\n0, 0.5, 1\r\n0.5, 0, 0.25\r\n1,0.25,0\r\n"));
  ASSERT_EQ(t.codes, (std::vector<int32_t>{11, 21, 999}));
  EXPECT_EQ(t.weight(11, 21), 0.5);
  EXPECT_EQ(t.weight(21, 11), 0.5);
  EXPECT_EQ(t.weight(21, 999), 0.25);
  EXPECT_TRUE(t.lists(999));
  EXPECT_FALSE(t.lists(1));
  // Names of the class descriptor file, in the list's order (not the codes').
  const ClassPairTable named = read_contrast_table(file("FSQ_TABLE\nCLASS_LIST_LITERAL(forest, water)\n0,0.7\n0.7,0\n"),
                                                  {{1, "water"}, {2, "forest"}});
  EXPECT_EQ(named.codes, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(named.weight(1, 2), 0.7);
}

TEST_F(ContrastFiles, BadTablesNameTheFileAndLine) {
  EXPECT_EQ(error("CLASS_LIST_NUMERIC(1)\n0\n"),
            ":1: expected FSQ_TABLE, the first line of a FRAGSTATS edge contrast file");
  EXPECT_EQ(error("FSQ_TABLE\nCLASSES(1, 2)\n"),
            ":2: expected the class list, CLASS_LIST_NUMERIC(codes) or CLASS_LIST_LITERAL(names), not 'CLASSES(1,2)'");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, x)\n"), ":2: 'x' is not a class code (an int32 integer)");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 1)\n0,0\n0,0\n"), ":2: class 1 is listed twice");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_LITERAL(forest)\n0\n"),
            ":2: no class descriptor names 'forest' (CLASS_LIST_LITERAL needs the class descriptor file, --class-descriptors)");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n0,0.5\n0.5\n"), ":4: 1 weights, expected 2 (one per class listed)");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n0,1.5\n1.5,0\n"),
            ":3: '1.5' is not a contrast weight (a number from 0 to 1)");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n0,0.5\n0.5,0\n0,0\n"), ":5: more rows than the 2 classes listed");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n0,0.5\n"), "' has 1 rows of weights for 2 classes");
  EXPECT_EQ(error("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n0,0.5\n0.4,0\n"),
            ":4: the weight of classes 2 and 1 differs from that of 1 and 2 (line 3): an edge has one contrast");
  EXPECT_EQ(error(""), "' is empty: expected FSQ_TABLE, a class list and the weights");
}

// Similarity weight files (.fsq) share the format; d_ik may differ from
// d_ki (row: the focal patch's class) and the diagonal is read.
TEST_F(ContrastFiles, ReadsSimilarityTables) {
  const ClassPairTable t = read_similarity_table(file("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n1, 0.5\n0.25, 0.75\n"));
  EXPECT_EQ(t.weight(1, 1), 1);
  EXPECT_EQ(t.weight(1, 2), 0.5);
  EXPECT_EQ(t.weight(2, 1), 0.25);
  EXPECT_EQ(t.weight(2, 2), 0.75);
  const std::string bad = file("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n1,2\n0,1\n");
  try {
    read_similarity_table(bad);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), bad + ":3: '2' is not a similarity weight (a number from 0 to 1)");
  }
  const std::string headless = file("CLASS_LIST_NUMERIC(1)\n1\n");
  try {
    read_similarity_table(headless);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), headless + ":1: expected FSQ_TABLE, the first line of a FRAGSTATS similarity file");
  }
}

// The landscape job's patch, class and landscape tables for `cells` with `table`.
struct Tables {
  MetricTable patch, cls, land;
  double patch_value(uint32_t pid, const std::string& column) const {
    return patch.rows.at(pid - 1).values.at(column_of(patch, column));
  }
  double cls_value(int32_t code, const std::string& column) const {
    for (const MetricTable::Row& row : cls.rows)
      if (row.type == code) return row.values.at(column_of(cls, column));
    ADD_FAILURE() << "no row for class " << code;
    return 0;
  }
  double land_value(const std::string& column) const { return land.rows.at(0).values.at(column_of(land, column)); }
  static size_t column_of(const MetricTable& t, const std::string& column) {
    const size_t c = static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), column) - t.columns.begin());
    EXPECT_LT(c, t.columns.size()) << column;
    return c;
  }
};

Tables tables(const std::vector<int32_t>& cells, int64_t width, int64_t height, double cell,
              std::shared_ptr<const ClassPairTable> table, std::set<int32_t> background = {},
              NeighbourRule rule = NeighbourRule::Eight, int64_t tile = 0, double cell_height = 0) {
  MemoryClassRaster raster(width, height, cells, cell, cell_height > 0 ? cell_height : cell);
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  o.contrast = std::move(table);
  o.background = std::move(background);
  o.rule = rule;
  o.tile_width = o.tile_height = tile;
  const LandscapeResults r = run_landscape_job(raster, o);
  return {r.metrics.patch, r.metrics.cls, r.metrics.land};
}

TEST_F(ContrastFiles, HandGrid) {
  // 10 m cells, TA = 600 m2 = 0.06 ha:
  //   1 1 2
  //   1 3 2
  // Shared sides: 1|2 one (10 m), 1|3 two (20 m), 3|2 one (10 m). The
  // boundary (100 m): class 1 five sides (50 m), class 2 four (40 m),
  // class 3 one (10 m).
  const std::vector<int32_t> cells{1, 1, 2, 1, 3, 2};
  auto table = std::make_shared<const ClassPairTable>(read_contrast_table(
      file("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 999)\n0,0.5,1,0\n0.5,0,0.25,1\n1,0.25,0,0.5\n0,1,0.5,0\n")));
  const Tables t = tables(cells, 3, 2, 10, table);
  // No background: the boundary takes class 999's weights.
  // class 1: 10 x 0.5 + 20 x 1 + 50 x 0 = 25 of 80 m
  EXPECT_NEAR(t.cls_value(1, "CWED"), 25 / 0.06, 1e-9);
  EXPECT_NEAR(t.cls_value(1, "TECI"), 31.25, 1e-12);
  // class 2: 10 x 0.5 + 10 x 0.25 + 40 x 1 = 47.5 of 60 m
  EXPECT_NEAR(t.cls_value(2, "CWED"), 47.5 / 0.06, 1e-9);
  EXPECT_NEAR(t.cls_value(2, "TECI"), 47.5 / 60 * 100, 1e-12);
  // class 3: 20 x 1 + 10 x 0.25 + 10 x 0.5 = 27.5 of 40 m
  EXPECT_NEAR(t.cls_value(3, "CWED"), 27.5 / 0.06, 1e-9);
  EXPECT_NEAR(t.cls_value(3, "TECI"), 68.75, 1e-12);
  // landscape: each edge once, 5 + 20 + 2.5, and the boundary 0 + 40 + 5:
  // 72.5 of 40 m of edges and 100 m of boundary
  EXPECT_NEAR(t.land_value("CWED"), 72.5 / 0.06, 1e-9);
  EXPECT_NEAR(t.land_value("TECI"), 72.5 / 140 * 100, 1e-12);

  // Class 3 as background: the boundary takes its weights (the single
  // background class); its own edges count only beside the classes.
  const Tables b = tables(cells, 3, 2, 10, table, {3});
  // class 1: 10 x 0.5 + 20 x 1 + 50 x d(1,3) = 1 -> 75 of 80 m
  EXPECT_NEAR(b.cls_value(1, "TECI"), 93.75, 1e-12);
  EXPECT_NEAR(b.cls_value(1, "CWED"), 75 / 0.06, 1e-9);
  // class 2: 10 x 0.5 + 10 x 0.25 + 40 x 0.25 = 17.5 of 60 m
  EXPECT_NEAR(b.cls_value(2, "TECI"), 17.5 / 60 * 100, 1e-12);
  // landscape: 5 + 20 + 2.5, boundary 50 x 1 + 40 x 0.25 (class 3's own
  // boundary side is in E* only): 87.5 of 140 m
  EXPECT_NEAR(b.land_value("CWED"), 87.5 / 0.06, 1e-9);
  EXPECT_NEAR(b.land_value("TECI"), 62.5, 1e-12);

  // Without a table: N/A.
  const Tables none = tables(cells, 3, 2, 10, nullptr);
  EXPECT_TRUE(std::isnan(none.cls_value(1, "CWED")));
  EXPECT_TRUE(std::isnan(none.land_value("TECI")));
  EXPECT_TRUE(std::isnan(none.patch_value(1, "ECON")));
  EXPECT_TRUE(std::isnan(none.cls_value(1, "ECON_MN")));
  EXPECT_TRUE(std::isnan(none.land_value("ECON_AM")));
}

TEST_F(ContrastFiles, EdgeContrastIndexOfEachPatchOnAHandGrid) {
  // The grid of HandGrid (10 m cells); one patch per class, PIDs in raster
  // order of first cells: 1 (class 1, 3 cells), 2 (class 2, 2 cells),
  // 3 (class 3, 1 cell).
  //   1 1 2
  //   1 3 2
  const std::vector<int32_t> cells{1, 1, 2, 1, 3, 2};
  auto table = std::make_shared<const ClassPairTable>(read_contrast_table(
      file("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 999)\n0,0.5,1,0\n0.5,0,0.25,1\n1,0.25,0,0.5\n0,1,0.5,0\n")));
  const Tables t = tables(cells, 3, 2, 10, table);
  // ECON = sum of p_ijk d_ik over the perimeter p_ij, x 100; the boundary
  // takes class 999's weights.
  // patch 1: 1|2 10 m x 0.5, 1|3 20 m x 1, boundary 50 m x 0: 25 of 80 m
  EXPECT_NEAR(t.patch_value(1, "ECON"), 31.25, 1e-12);
  // patch 2: 2|1 10 m x 0.5, 2|3 10 m x 0.25, boundary 40 m x 1: 47.5 of 60 m
  EXPECT_NEAR(t.patch_value(2, "ECON"), 47.5 / 60 * 100, 1e-12);
  // patch 3: 3|1 20 m x 1, 3|2 10 m x 0.25, boundary 10 m x 0.5: 27.5 of 40 m
  EXPECT_NEAR(t.patch_value(3, "ECON"), 68.75, 1e-12);
  // One patch a class: the class's distribution is that value, SD 0.
  EXPECT_NEAR(t.cls_value(2, "ECON_MN"), 47.5 / 60 * 100, 1e-12);
  EXPECT_EQ(t.cls_value(2, "ECON_SD"), 0);
  // Landscape: the mean of the three, and weighted by area (3, 2, 1 cells).
  const double p1 = 31.25, p2 = 47.5 / 60 * 100, p3 = 68.75;
  EXPECT_NEAR(t.land_value("ECON_MN"), (p1 + p2 + p3) / 3, 1e-12);
  EXPECT_NEAR(t.land_value("ECON_AM"), (3 * p1 + 2 * p2 + p3) / 6, 1e-12);
  EXPECT_NEAR(t.land_value("ECON_RA"), p2 - p1, 1e-12);
  EXPECT_NEAR(t.land_value("ECON_MD"), p3, 1e-12);

  // Class 3 as background: no patch of it is reported, and the boundary
  // takes its weights.
  const Tables b = tables(cells, 3, 2, 10, table, {3});
  // patch 1: 5 + 20 + 50 m x d(1,3) = 1: 75 of 80 m
  EXPECT_NEAR(b.patch_value(1, "ECON"), 93.75, 1e-12);
  // patch 2: 5 + 2.5 + 40 m x d(2,3) = 0.25: 17.5 of 60 m
  EXPECT_NEAR(b.patch_value(2, "ECON"), 17.5 / 60 * 100, 1e-12);
  EXPECT_EQ(b.patch.rows.size(), 2u);
  EXPECT_NEAR(b.land_value("ECON_MN"), (93.75 + 17.5 / 60 * 100) / 2, 1e-12);

  // Every side of maximum contrast: exactly 100 (the weights' sums are whole).
  auto ones = std::make_shared<const ClassPairTable>(read_contrast_table(
      file("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 999)\n0,1,1,1\n1,0,1,1\n1,1,0,1\n1,1,1,0\n")));
  const Tables all = tables(cells, 3, 2, 10, ones);
  for (uint32_t pid = 1; pid <= 3; ++pid) EXPECT_EQ(all.patch_value(pid, "ECON"), 100) << pid;
}

TEST_F(ContrastFiles, ClassesTheTableLacksAreRefused) {
  const std::vector<int32_t> cells{1, 1, 2, 1, 3, 2};
  auto no_three = std::make_shared<const ClassPairTable>(
      read_contrast_table(file("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 999)\n0,0.5,0\n0.5,0,1\n0,1,0\n")));
  try {
    tables(cells, 3, 2, 10, no_three);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lists no class 3, which is in the raster"), std::string::npos) << e.what();
  }
  auto no_background = std::make_shared<const ClassPairTable>(
      read_contrast_table(file("FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3)\n0,0.5,1\n0.5,0,1\n1,1,0\n")));
  try {
    tables(cells, 3, 2, 10, no_background);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lists no class 999 (FRAGSTATS' background value"), std::string::npos) << e.what();
  }
}

// A .fce file of random symmetric weights (multiples of 1 / `steps`) for
// classes 1..4 and 999, FRAGSTATS' background value; `d` gets them by pair.
std::string random_weights(std::mt19937& rng, int steps, std::map<std::pair<int32_t, int32_t>, double>& d) {
  const std::vector<int32_t> listed{1, 2, 3, 4, 999};
  std::uniform_real_distribution<double> weight(0, 1);
  for (int32_t a : listed)
    for (int32_t b : listed)
      if (a < b) d[{a, b}] = d[{b, a}] = std::round(weight(rng) * steps) / steps;
  std::string text = "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 4, 999)\n";
  for (int32_t a : listed) {
    for (size_t i = 0; i < listed.size(); ++i)
      text += (i ? "," : "") + (a == listed[i] ? std::string("0") : std::to_string(d[{a, listed[i]}]));
    text += "\n";
  }
  return text;
}

// Random grids with nodata and a background class: every value equals a
// brute-force walk over every cell side (an edge between two cells, or a
// side on the landscape boundary: the raster's edge or a nodata cell).
TEST_F(ContrastFiles, RandomGridsEqualABruteForceWalkOverEverySide) {
  std::mt19937 rng(50);
  const std::vector<int32_t> codes{1, 2, 3, 4};
  std::map<std::pair<int32_t, int32_t>, double> d;
  auto table = std::make_shared<const ClassPairTable>(read_contrast_table(file(random_weights(rng, 100, d))));
  std::uniform_int_distribution<int> pick(0, 4), percent(0, 99);
  for (int trial = 0; trial < 4; ++trial) {
    const int64_t w = 13 + trial, h = 9 + trial;
    const double cell = trial % 2 ? 30 : 2.5;
    std::vector<int32_t> cells(static_cast<size_t>(w * h));
    for (int64_t i = 0; i < w * h; ++i)
      cells[static_cast<size_t>(i)] = percent(rng) < 50 && i % w > 0 ? cells[static_cast<size_t>(i - 1)]
                                      : percent(rng) < 8              ? kNoClass
                                                                      : codes[static_cast<size_t>(pick(rng) % 4)];
    // Background: none (the boundary takes class 999's weights), the highest code, the lowest.
    const int32_t background_code = trial == 2 ? 4 : 1;
    const std::set<int32_t> background = trial >= 2 ? std::set<int32_t>{background_code} : std::set<int32_t>{};
    const int32_t boundary = trial >= 2 ? background_code : 999;
    const Tables t = tables(cells, w, h, cell, table, background);
    // Brute force: each cell's four sides.
    std::map<int32_t, double> weighted, all, area;
    double land_weighted = 0, land_all = 0, cells_in = 0;
    const auto at = [&](int64_t x, int64_t y) {
      return x < 0 || y < 0 || x >= w || y >= h ? kNoClass : cells[static_cast<size_t>(y * w + x)];
    };
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const int32_t a = at(x, y);
        if (a == kNoClass) continue;
        ++cells_in;
        const bool a_background = background.count(a) > 0;
        const int64_t nx[] = {x - 1, x + 1, x, x}, ny[] = {y, y, y - 1, y + 1};
        for (int s = 0; s < 4; ++s) {
          const int32_t b = at(nx[s], ny[s]);
          if (b == a) continue;
          const double len = cell;
          if (b == kNoClass) {  // the landscape boundary: counted once, from inside
            land_all += len;
            if (a_background) continue;
            weighted[a] += len * d[{a, boundary}];
            all[a] += len;
            land_weighted += len * d[{a, boundary}];
            continue;
          }
          const bool b_background = background.count(b) > 0;
          if (a_background && b_background) continue;
          if (!a_background) {
            weighted[a] += len * d[{a, b}];
            all[a] += len;
          }
          // Each edge once in the landscape's sums: from its lower code, or from the class beside a background cell.
          if ((!a_background && !b_background && a < b) || (a_background != b_background && !a_background)) {
            land_weighted += len * d[{a, b}];
            land_all += len;
          }
        }
      }
    const double ta_ha = cells_in * cell * cell / 10000;
    for (int32_t c : codes) {
      if (background.count(c) || !all.count(c)) continue;
      EXPECT_NEAR(t.cls_value(c, "CWED"), weighted[c] / ta_ha, 1e-9 * weighted[c] / ta_ha) << "trial " << trial << " class " << c;
      EXPECT_NEAR(t.cls_value(c, "TECI"), weighted[c] / all[c] * 100, 1e-9) << "trial " << trial << " class " << c;
    }
    EXPECT_NEAR(t.land_value("CWED"), land_weighted / ta_ha, 1e-9 * land_weighted / ta_ha) << "trial " << trial;
    EXPECT_NEAR(t.land_value("TECI"), land_weighted / land_all * 100, 1e-9) << "trial " << trial;
  }
}

// Random grids with nodata and a background class, both neighbour rules:
// every patch's ECON equals a brute-force walk over its cells' sides (the
// patches found by a flood fill, numbered in raster order of first cells as
// PIDs are), and does not depend on the tile grid, to the bit.
TEST_F(ContrastFiles, EdgeContrastIndexEqualsABruteForceWalkOverEveryPatch) {
  std::mt19937 rng(52);
  std::map<std::pair<int32_t, int32_t>, double> d;
  auto table = std::make_shared<const ClassPairTable>(read_contrast_table(file(random_weights(rng, 1000, d))));
  std::uniform_int_distribution<int> pick(1, 4), percent(0, 99);
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t w = 17 + 3 * trial, h = 11 + 2 * trial;
    const NeighbourRule rule = trial % 2 ? NeighbourRule::Four : NeighbourRule::Eight;
    std::vector<int32_t> cells(static_cast<size_t>(w * h));
    for (int64_t i = 0; i < w * h; ++i)
      cells[static_cast<size_t>(i)] = percent(rng) < 45 && i % w > 0 ? cells[static_cast<size_t>(i - 1)]
                                      : percent(rng) < 35 && i >= w  ? cells[static_cast<size_t>(i - w)]
                                      : percent(rng) < 7             ? kNoClass
                                                                     : pick(rng);
    const std::set<int32_t> background = trial >= 4 ? std::set<int32_t>{3} : std::set<int32_t>{};
    const int32_t boundary = trial >= 4 ? 3 : 999;
    SCOPED_TRACE("trial " + std::to_string(trial));
    // Cells 5 m wide and 7 m high: top and bottom sides are 5 m, left and right ones 7 m.
    const Tables t = tables(cells, w, h, 5, table, background, rule, 0, 7);
    const Tables tiled = tables(cells, w, h, 5, table, background, rule, 4, 7);
    // Brute force: flood-fill the patches, then each cell's four sides.
    const auto at = [&](int64_t x, int64_t y) {
      return x < 0 || y < 0 || x >= w || y >= h ? kNoClass : cells[static_cast<size_t>(y * w + x)];
    };
    std::vector<uint32_t> pid(cells.size(), 0);
    uint32_t patches = 0;
    for (int64_t start = 0; start < w * h; ++start) {
      if (cells[static_cast<size_t>(start)] == kNoClass || pid[static_cast<size_t>(start)]) continue;
      pid[static_cast<size_t>(start)] = ++patches;
      std::vector<int64_t> stack{start};
      while (!stack.empty()) {
        const int64_t c = stack.back();
        stack.pop_back();
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            if ((dx == 0 && dy == 0) || (rule == NeighbourRule::Four && dx != 0 && dy != 0)) continue;
            const int64_t x = c % w + dx, y = c / w + dy;
            if (at(x, y) != cells[static_cast<size_t>(c)] || pid[static_cast<size_t>(y * w + x)]) continue;
            pid[static_cast<size_t>(y * w + x)] = patches;
            stack.push_back(y * w + x);
          }
      }
    }
    std::vector<double> weighted(patches + 1, 0), perimeter(patches + 1, 0);
    std::vector<int32_t> class_of(patches + 1, 0);
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const int32_t a = at(x, y);
        if (a == kNoClass) continue;
        const uint32_t p = pid[static_cast<size_t>(y * w + x)];
        class_of[p] = a;
        const int64_t nx[] = {x - 1, x + 1, x, x}, ny[] = {y, y, y - 1, y + 1};
        for (int s = 0; s < 4; ++s) {
          const int32_t b = at(nx[s], ny[s]);
          if (b == a) continue;
          const double length = s < 2 ? 7 : 5;
          perimeter[p] += length;
          weighted[p] += length * d[{a, b == kNoClass ? boundary : b}];
        }
      }
    // Reported patches (background ones are not) in PID order.
    size_t row = 0;
    std::map<int32_t, std::vector<double>> by_class;
    for (uint32_t p = 1; p <= patches; ++p) {
      if (background.count(class_of[p])) continue;
      ASSERT_LT(row, t.patch.rows.size());
      const MetricTable::Row& r = t.patch.rows[row];
      ASSERT_EQ(r.pid, p);
      const double econ = r.values.at(Tables::column_of(t.patch, "ECON"));
      EXPECT_NEAR(econ, weighted[p] / perimeter[p] * 100, 1e-10) << "patch " << p;
      EXPECT_EQ(econ, tiled.patch.rows.at(row).values.at(Tables::column_of(tiled.patch, "ECON"))) << "patch " << p;
      by_class[class_of[p]].push_back(weighted[p] / perimeter[p] * 100);
      ++row;
    }
    EXPECT_EQ(row, t.patch.rows.size());
    for (const auto& [code, values] : by_class) {
      double sum = 0;
      for (double v : values) sum += v;
      EXPECT_NEAR(t.cls_value(code, "ECON_MN"), sum / static_cast<double>(values.size()), 1e-10) << "class " << code;
    }
  }
}

}  // namespace
}  // namespace lsm::test
