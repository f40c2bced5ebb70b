// Real land-cover rasters against FRAGSTATS' own output (../shared/data/landcover).
// Every patch's AREA and PERIM (per class, as sorted lists: patch IDs differ
// between tools) and every class and landscape metric must equal FRAGSTATS'
// printed values (4 decimals).
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "area_edge_metrics.h"
#include "gdal_class_raster.h"
#include "shared_data.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

using Row = std::map<std::string, std::string>;

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\""), e = s.find_last_not_of(" \t\r\"");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(trim(cell));
  return out;
}

// FRAGSTATS dumps: comma-separated, padded with spaces, TYPE written as "cls_42".
std::vector<Row> read_fragstats(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> cells = split(line);
    Row r;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) r[header[i]] = cells[i];
    rows.push_back(r);
  }
  return rows;
}

int32_t type_of(const Row& r) {
  std::string t = trim(r.at("TYPE"));
  if (t.rfind("cls_", 0) == 0) t = t.substr(4);
  return std::stoi(t);
}

// FRAGSTATS prints 4 decimals: equal means equal after rounding.
void expect_printed(double ours, const std::string& printed, const std::string& what) {
  const double ref = std::stod(printed);
  EXPECT_LE(std::abs(ours - ref), 0.5e-4 + 1e-12 * std::abs(ref)) << what << ": lsm " << ours << ", FRAGSTATS " << printed;
}

struct Case {
  std::string raster, class_file, land_file, patch_file;
};

void check_against_fragstats(const Case& c, int64_t tile, Backend backend) {
  const std::string dir = shared_data_dir() + "/landcover/";
  LSM_REQUIRE_SHARED_FILE(dir + c.raster);
  GdalClassRaster source(dir + c.raster, 1);
  auto labeler = make_labeler(backend);
  ScanOptions o;
  o.tile_width = o.tile_height = tile;
  const PatchTable t = scan_patches(source, *labeler, o);
  const AreaEdgeMetrics m = compute_area_edge_metrics(t.patches, t.raster);

  // Class level.
  const std::vector<Row> classes = read_fragstats(dir + "fragstats_reference/" + c.class_file);
  ASSERT_EQ(classes.size(), m.classes.size());
  for (const Row& r : classes) {
    const int32_t type = type_of(r);
    const auto it = std::find_if(m.classes.begin(), m.classes.end(), [&](const auto& x) { return x.type == type; });
    ASSERT_NE(it, m.classes.end()) << "class " << type << " missing";
    const std::string at = "class " + std::to_string(type) + " ";
    expect_printed(it->ca, r.at("CA"), at + "CA");
    expect_printed(it->pland, r.at("PLAND"), at + "PLAND");
    expect_printed(double(it->np), r.at("NP"), at + "NP");
    expect_printed(it->pd, r.at("PD"), at + "PD");
    expect_printed(it->lpi, r.at("LPI"), at + "LPI");
    expect_printed(it->te, r.at("TE"), at + "TE");
    expect_printed(it->ed, r.at("ED"), at + "ED");
    expect_printed(it->area_mn, r.at("AREA_MN"), at + "AREA_MN");
  }
  // Landscape level.
  const std::vector<Row> land = read_fragstats(dir + "fragstats_reference/" + c.land_file);
  ASSERT_EQ(land.size(), 1u);
  const LandscapeAreaEdge& l = m.landscape;
  expect_printed(l.ta, land[0].at("TA"), "TA");
  expect_printed(double(l.np), land[0].at("NP"), "NP");
  expect_printed(l.pd, land[0].at("PD"), "PD");
  expect_printed(l.lpi, land[0].at("LPI"), "LPI");
  expect_printed(l.te, land[0].at("TE"), "TE");
  expect_printed(l.ed, land[0].at("ED"), "ED");
  expect_printed(l.area_mn, land[0].at("AREA_MN"), "AREA_MN");

  // Patch level: per class, the sorted (AREA, PERIM) pairs.
  std::map<int32_t, std::vector<std::pair<double, double>>> ours, theirs;
  for (const PatchStats& p : t.patches) ours[p.class_code].emplace_back(patch_area_ha(p, t.raster), patch_perim_m(p, t.raster));
  for (const Row& r : read_fragstats(dir + "fragstats_reference/" + c.patch_file))
    theirs[type_of(r)].emplace_back(std::stod(r.at("AREA")), std::stod(r.at("PERIM")));
  ASSERT_EQ(ours.size(), theirs.size());
  size_t compared = 0;
  for (auto& [type, list] : theirs) {
    auto& mine = ours[type];
    ASSERT_EQ(mine.size(), list.size()) << "class " << type << " patch count";
    std::sort(mine.begin(), mine.end());
    std::sort(list.begin(), list.end());
    for (size_t i = 0; i < list.size(); ++i) {
      ASSERT_LE(std::abs(mine[i].first - list[i].first), 0.5e-4) << "class " << type << " AREA #" << i;
      ASSERT_LE(std::abs(mine[i].second - list[i].second), 0.5e-4) << "class " << type << " PERIM #" << i;
      ++compared;
    }
  }
  EXPECT_EQ(compared, t.patches.size());
}

const Case kAugusta{"lsm_augusta_nlcd.tif", "lsm_augusta_nlcd.class", "lsm_augusta_nlcd.land",
                    "lsm_augusta_nlcd.patch.csv"};
const Case kSimulated{"lsm_landscape_simulated.tif", "lsm_landscape.class", "lsm_landscape.land", "lsm_landscape.patch"};

TEST(FragstatsReference, AugustaNlcdTile64) { check_against_fragstats(kAugusta, 64, Backend::Cpu); }
TEST(FragstatsReference, AugustaNlcdDefaultTiles) { check_against_fragstats(kAugusta, 0, Backend::Cpu); }
TEST(FragstatsReference, AugustaNlcdTile17) { check_against_fragstats(kAugusta, 17, Backend::Cpu); }
TEST(FragstatsReference, SimulatedLandscape) {
  for (int64_t tile : {0, 7, 1}) check_against_fragstats(kSimulated, tile, Backend::Cpu);
}
TEST(FragstatsReference, AugustaNlcdCuda) {
  LSM_REQUIRE_CUDA();
  check_against_fragstats(kAugusta, 64, Backend::Cuda);
}

// The augusta raster holds the 17141 patches FRAGSTATS reports (8-cell rule)
// and 28840 under the 4-cell rule (../shared/data/PROVENANCE.md).
TEST(FragstatsReference, AugustaPatchCounts) {
  const std::string path = shared_data_dir() + "/landcover/lsm_augusta_nlcd.tif";
  LSM_REQUIRE_SHARED_FILE(path);
  GdalClassRaster source(path, 1);
  auto labeler = make_cpu_labeler();
  ScanOptions o;
  EXPECT_EQ(scan_patches(source, *labeler, o).patches.size(), 17141u);
  o.rule = NeighbourRule::Four;
  EXPECT_EQ(scan_patches(source, *labeler, o).patches.size(), 28840u);
}

}  // namespace
}  // namespace lsm::test
