// Real land-cover rasters against FRAGSTATS' own output (../shared/data/landcover).
// Every patch metric (per class, as sorted lists: patch IDs differ between
// tools) and every class and landscape metric must equal FRAGSTATS' printed
// values (4 decimals), for several tile sizes and both second-pass paths.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <cmath>
#include <iostream>
#include <set>

#include "fragstats_metrics.h"
#include "fragstats_tables.h"
#include "patch_row_metrics.h"
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


struct Case {
  std::string raster, class_file, land_file, patch_file;
};

// One column of a FRAGSTATS table: N/A must be undefined (NaN) here too.
bool printed_equal(double ours, const std::string& printed) {
  if (printed == "N/A" || printed.empty()) return std::isnan(ours);
  const double ref = std::stod(printed);
  return std::abs(ours - ref) <= 0.5e-4 + 1e-12 * std::abs(ref);
}

size_t column_of(const MetricTable& t, const std::string& name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  EXPECT_NE(it, t.columns.end()) << "no column " << name;
  return static_cast<size_t>(it - t.columns.begin());
}

// Mismatching values per column, over every column FRAGSTATS printed.
std::map<std::string, size_t> compare_with_fragstats(const Case& c, int64_t tile, Backend backend, bool labels_in_memory) {
  const std::string dir = shared_data_dir() + "/landcover/";
  GdalClassRaster source(dir + c.raster, 1);
  auto labeler = make_labeler(backend);
  ScanOptions o;
  o.tile_width = o.tile_height = tile;
  o.keep_patch_ids = true;
  // In memory: the second pass reads the scan's labels; else it relabels the raster.
  o.keep_labels_max_bytes = labels_in_memory ? int64_t(1) << 40 : 0;
  const PatchTable t = scan_patches(source, *labeler, o);
  const PatchRowResults rows = compute_patch_row_metrics(source, *labeler, t, RowMetricOptions{});
  const FragstatsMetrics m = compute_fragstats_metrics(t, rows, MetricOptions{});
  std::map<std::string, size_t> bad;
  auto note = [&](const std::string& column, bool equal, const std::string& what) {
    bad[column] += !equal;
    if (!equal && bad[column] <= 2) ADD_FAILURE() << what;
  };

  // Class level.
  const std::vector<Row> classes = read_fragstats(dir + "fragstats_reference/" + c.class_file);
  EXPECT_EQ(classes.size(), m.cls.rows.size());
  for (const Row& r : classes) {
    const int32_t type = type_of(r);
    const auto it = std::find_if(m.cls.rows.begin(), m.cls.rows.end(), [&](const auto& x) { return x.type == type; });
    if (it == m.cls.rows.end()) {
      ADD_FAILURE() << "class " << type << " missing";
      continue;
    }
    for (const auto& [column, printed] : r) {
      if (column == "LID" || column == "TYPE") continue;
      const double v = it->values[column_of(m.cls, column)];
      note(column, printed_equal(v, printed),
           "class " + std::to_string(type) + " " + column + ": lsm " + format_value(v) + ", FRAGSTATS " + printed);
    }
  }
  // Landscape level.
  const std::vector<Row> land = read_fragstats(dir + "fragstats_reference/" + c.land_file);
  EXPECT_EQ(land.size(), 1u);
  for (const auto& [column, printed] : land.at(0)) {
    if (column == "LID") continue;
    const double v = m.land.rows.at(0).values[column_of(m.land, column)];
    note("land " + column, printed_equal(v, printed), "landscape " + column + ": lsm " + format_value(v) + ", FRAGSTATS " + printed);
  }
  // Patch level: per class and column, the sorted lists (patch IDs differ between tools).
  const std::vector<Row> patches = read_fragstats(dir + "fragstats_reference/" + c.patch_file);
  EXPECT_EQ(patches.size(), m.patch.rows.size());
  for (const std::string& column : m.patch.columns) {
    // The references are FRAGSTATS runs without auxiliary tables or
    // distances: ECON (an edge contrast table), PROX (a search radius) and
    // SIMI (both a radius and similarity weights) are the patch columns
    // they cannot have.
    if (!patches.empty() && !patches.front().count(column)) {
      EXPECT_TRUE(column == "ECON" || column == "PROX" || column == "SIMI")
          << "the FRAGSTATS patch file has no column " << column;
      continue;
    }
    const size_t col = column_of(m.patch, column);
    std::map<int32_t, std::vector<double>> ours, theirs;
    for (const auto& row : m.patch.rows) ours[row.type].push_back(row.values[col]);
    for (const Row& r : patches) {
      const std::string& s = r.at(column);
      theirs[type_of(r)].push_back(s == "N/A" ? std::nan("") : std::stod(s));
    }
    for (auto& [type, list] : theirs) {
      auto& mine = ours[type];
      EXPECT_EQ(mine.size(), list.size()) << "class " << type << " patch count";
      // NaN sorts last in both lists.
      auto order = [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : (!std::isnan(a) && a < b); };
      std::sort(mine.begin(), mine.end(), order);
      std::sort(list.begin(), list.end(), order);
      for (size_t i = 0; i < std::min(mine.size(), list.size()); ++i) {
        const bool equal = std::isnan(list[i]) ? std::isnan(mine[i]) : printed_equal(mine[i], format_value(list[i]));
        note("patch " + column, equal,
             "class " + std::to_string(type) + " patch " + column + " #" + std::to_string(i) + ": lsm " +
                 format_value(mine[i]) + ", FRAGSTATS " + format_value(list[i]));
      }
    }
  }
  return bad;
}

// Every column equal to FRAGSTATS' printed values (GYRATE and the core-area
// count by FRAGSTATS' rules, the defaults: docs/metrics.md).
void check_against_fragstats(const Case& c, int64_t tile, Backend backend, bool labels_in_memory = false) {
  LSM_REQUIRE_SHARED_FILE(shared_data_dir() + "/landcover/" + c.raster);
  for (const auto& [column, n] : compare_with_fragstats(c, tile, backend, labels_in_memory))
    EXPECT_EQ(n, 0u) << column << ": " << n << " values differ from FRAGSTATS";
}

const Case kAugusta{"lsm_augusta_nlcd.tif", "lsm_augusta_nlcd.class", "lsm_augusta_nlcd.land",
                    "lsm_augusta_nlcd.patch.csv"};
const Case kSimulated{"lsm_landscape_simulated.tif", "lsm_landscape.class", "lsm_landscape.land", "lsm_landscape.patch"};

TEST(FragstatsReference, AugustaNlcdTile64) { check_against_fragstats(kAugusta, 64, Backend::Cpu); }
TEST(FragstatsReference, AugustaNlcdDefaultTiles) { check_against_fragstats(kAugusta, 0, Backend::Cpu); }
TEST(FragstatsReference, AugustaNlcdTile17LabelsInMemory) { check_against_fragstats(kAugusta, 17, Backend::Cpu, true); }
TEST(FragstatsReference, SimulatedLandscape) {
  for (int64_t tile : {0, 7, 1})
    for (bool in_memory : {false, true}) check_against_fragstats(kSimulated, tile, Backend::Cpu, in_memory);
}
TEST(FragstatsReference, AugustaNlcdCuda) {
  LSM_REQUIRE_CUDA();
  check_against_fragstats(kAugusta, 64, Backend::Cuda);
  check_against_fragstats(kAugusta, 0, Backend::Cuda, true);
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
