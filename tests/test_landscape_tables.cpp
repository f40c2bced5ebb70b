// The in-memory landscape of the operation layer (landscape_tables.h), which
// the Python module renders: on an array read in place it gives the tables
// `lsm metrics` writes for the same cells as a file, with the metrics
// operation's checks and messages.
#include <gtest/gtest.h>

#include <sstream>

#include "error.h"
#include "fragstats_tables.h"
#include "gdal_class_raster.h"
#include "landscape_tables.h"

namespace lsm::test {
namespace {

std::string sample() { return std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif"; }

std::string csv(const MetricTable& t, MetricLevel level) {
  std::ostringstream out;
  write_table_csv(out, t, level);
  return out.str();
}

TEST(LandscapeTables, AnArrayGivesTheTablesOfItsFile) {
  GdalClassRaster file(sample(), 1);
  const RasterInfo info = file.info();
  std::vector<int32_t> codes(static_cast<size_t>(info.width * info.height));
  file.read(Window{0, 0, info.width, info.height}, codes.data());
  std::vector<uint16_t> cells(codes.begin(), codes.end());

  ops::ParameterValues from_file(ops::landscape_tables_spec(), ops::kCommandLine);
  from_file.set("input", sample());
  from_file.set("edge-depth", "2");
  ops::ParameterValues from_array(ops::landscape_tables_spec(), ops::kCommandLine);
  from_array.set("edge-depth", "2");
  ops::ArrayRaster array;
  array.cells = cells.data();
  array.type = ArrayCellType::UInt16;
  array.width = array.row_stride = info.width;
  array.height = info.height;
  array.cell_width = info.cell_width;
  array.cell_height = info.cell_height;
  const ops::RunContext context;
  const ops::LandscapeTables a = ops::landscape_tables(from_file, context, std::nullopt, true);
  const ops::LandscapeTables b = ops::landscape_tables(from_array, context, array, true);
  EXPECT_EQ(csv(a.metrics.patch, MetricLevel::Patch), csv(b.metrics.patch, MetricLevel::Patch));
  EXPECT_EQ(csv(a.metrics.cls, MetricLevel::Class), csv(b.metrics.cls, MetricLevel::Class));
  EXPECT_EQ(csv(a.metrics.land, MetricLevel::Landscape), csv(b.metrics.land, MetricLevel::Landscape));
  ASSERT_TRUE(a.has_adjacency && b.has_adjacency);
  EXPECT_EQ(a.adjacency.sides_h, b.adjacency.sides_h);
  EXPECT_EQ(a.patch_ids, b.patch_ids);
  ASSERT_EQ(b.patch_ids.size(), cells.size());
  uint32_t largest = 0;
  for (const uint32_t id : b.patch_ids) largest = std::max(largest, id);
  EXPECT_EQ(largest, b.metrics.patch.rows.size());  // every patch has its PID in the raster
}

TEST(LandscapeTables, BadValuesGetTheMetricsOperationsMessages) {
  ops::ParameterValues values(ops::landscape_tables_spec(), ops::kCommandLine);
  try {
    values.set("metrics", "CA,NOPE");
    ADD_FAILURE() << "an unknown metric was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown metric 'NOPE'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(values.set("output", "x"), Error);  // it writes nothing: no output parameter
  const std::vector<uint8_t> cells(4, 1);
  ops::ArrayRaster array;
  array.cells = cells.data();
  array.type = ArrayCellType::UInt8;
  array.width = array.row_stride = 2;
  array.height = 2;
  ops::ParameterValues few(ops::landscape_tables_spec(), ops::kCommandLine);
  few.set("max-classes", "1");
  EXPECT_NO_THROW(ops::landscape_tables(few, ops::RunContext{}, array, false));
  const std::vector<uint8_t> two = {1, 2, 1, 2};
  array.cells = two.data();
  try {
    ops::landscape_tables(few, ops::RunContext{}, array, false);
    ADD_FAILURE() << "two classes passed --max-classes 1";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'the array' has 2 classes, more than --max-classes 1"), std::string::npos)
        << e.what();
  }
  ops::ParameterValues none(ops::landscape_tables_spec(), ops::kCommandLine);
  EXPECT_THROW(ops::landscape_tables(none, ops::RunContext{}, std::nullopt, false), Error);  // no input at all
}

}  // namespace
}  // namespace lsm::test
