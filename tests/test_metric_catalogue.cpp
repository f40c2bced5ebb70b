// The metric catalogue (metrics/fragstats/metric_catalogue.h) is what the tables hold:
// every level's columns are exactly the catalogue's metrics of that level and
// their distributions, and the metrics it marks as needing no second pass
// are exactly those the scan's records give (the rest are empty then).
#include <cmath>
#include <set>

#include "fragstats_metrics.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "patch_row_metrics.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

std::set<std::string> catalogue_columns(unsigned level) {
  std::set<std::string> columns;
  for (const MetricInfo& m : metric_catalogue()) {
    if (m.levels & level) columns.insert(m.acronym);
    if (m.distributed && level != kPatchLevel)
      for (const std::string& s : distribution_statistics()) columns.insert(std::string(m.acronym) + "_" + s);
  }
  return columns;
}

FragstatsMetrics full_tables(MemoryClassRaster& raster) {
  auto labeler = make_cpu_labeler();
  ScanOptions o;
  o.keep_patch_ids = true;
  const PatchTable t = scan_patches(raster, *labeler, o);
  RowMetricOptions ro;
  ro.want_enn = true;
  return compute_fragstats_metrics(t, compute_patch_row_metrics(raster, *labeler, t, ro), MetricOptions{});
}

TEST(MetricCatalogue, TablesHoldExactlyTheCataloguesColumns) {
  auto raster = random_landscape(120, 90, 4, 5, 0.1);
  const FragstatsMetrics m = full_tables(raster);
  EXPECT_EQ(m.patch.columns, patch_metric_columns());
  EXPECT_EQ(std::set<std::string>(m.cls.columns.begin(), m.cls.columns.end()), catalogue_columns(kClassLevel));
  EXPECT_EQ(std::set<std::string>(m.land.columns.begin(), m.land.columns.end()), catalogue_columns(kLandscapeLevel));
  // Every name the selection accepts is a column somewhere, or DCORE (its distributions).
  for (const std::string& name : known_metric_names())
    EXPECT_TRUE(name == "DCORE" || catalogue_columns(kPatchLevel | kClassLevel | kLandscapeLevel).count(name) ||
                catalogue_columns(kClassLevel).count(name))
        << name;
}

TEST(MetricCatalogue, SecondPassFlagsMatchTheRecordsOnlyTables) {
  auto raster = random_landscape(150, 110, 3, 9, 0.05);
  auto labeler = make_cpu_labeler();
  const PatchTable t = scan_patches(raster, *labeler, ScanOptions{});
  const FragstatsMetrics records = compute_fragstats_metrics(t, records_only_row_results(t), MetricOptions{});
  const FragstatsMetrics full = full_tables(raster);
  for (const auto& [table, all] : {std::pair{&records.cls, &full.cls}, std::pair{&records.land, &full.land},
                                   std::pair{&records.patch, &full.patch}}) {
    ASSERT_EQ(table->columns, all->columns);
    for (size_t k = 0; k < table->columns.size(); ++k) {
      const std::string& column = table->columns[k];
      for (size_t r = 0; r < table->rows.size(); ++r) {
        const double mine = table->rows[r].values[k], reference = all->rows[r].values[k];
        if (from_patch_records(column))  // the same value without the second pass
          EXPECT_TRUE(mine == reference || (std::isnan(mine) && std::isnan(reference))) << column;
        else
          EXPECT_TRUE(std::isnan(mine)) << column << " needs the second pass, yet has a value";
      }
    }
  }
}

}  // namespace
}  // namespace lsm::test
