// The CSV tables: headers, units, full precision.
#include <sstream>

#include "area_edge_metrics.h"
#include "fragstats_tables.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

TEST(Tables, FullPrecisionRoundTrips) {
  for (double v : {0.09, 37.44, 1.0 / 3.0, 63.842738281931, 5485470.0, 1e-7}) {
    const std::string text = format_value(v);
    EXPECT_EQ(std::stod(text), v) << text;
  }
  EXPECT_EQ(format_value(37.44), "37.44");
  EXPECT_EQ(format_value(5485470.0), "5485470");
}

// 30 m cells: one cell = 0.09 ha, one side = 30 m.
TEST(Tables, UnitsAndHeaders) {
  auto g = grid({"112", "122", "332"}, 30.0);
  const PatchTable t = scan(g, NeighbourRule::Eight);
  const AreaEdgeMetrics m = compute_area_edge_metrics(t.patches, t.raster);
  std::ostringstream patch, cls, land;
  write_patch_csv(patch, t);
  write_class_csv(cls, m);
  write_land_csv(land, m);
  EXPECT_EQ(patch.str(), "PID,TYPE,AREA,PERIM\n1,1,0.27,240\n2,2,0.36,300\n3,3,0.18,180\n");
  // Class 1: CA 0.27 ha of TA 0.81 ha; PD = 1 / 0.81 * 100; TE 4 sides = 120 m; ED = 120 / 0.81.
  std::istringstream lines(cls.str());
  std::string header, row1;
  std::getline(lines, header);
  std::getline(lines, row1);
  EXPECT_EQ(header, "TYPE,CA,PLAND,NP,PD,LPI,TE,ED,AREA_MN");
  EXPECT_EQ(row1, "1,0.27," + format_value(100.0 / 3.0) + ",1," + format_value(100.0 / 0.81) + "," +
                      format_value(100.0 / 3.0) + ",120," + format_value(120 / 0.81) + ",0.27");
  EXPECT_EQ(land.str(), "TA,NP,PD,LPI,TE,ED,AREA_MN\n0.81,3," + format_value(300.0 / 0.81) + "," +
                            format_value(400.0 / 9.0) + ",180," + format_value(180 / 0.81) + ",0.27\n");
}

TEST(Tables, NonSquareCells) {
  std::vector<int32_t> cells = {1, 2};
  MemoryClassRaster r(2, 1, cells, 100.0, 50.0);
  const PatchTable t = scan(r, NeighbourRule::Eight);
  // Each cell: top and bottom sides 100 m, left and right sides 50 m.
  EXPECT_DOUBLE_EQ(patch_perim_m(t.patches[0], t.raster), 300.0);
  EXPECT_DOUBLE_EQ(patch_area_ha(t.patches[0], t.raster), 0.5);
  EXPECT_DOUBLE_EQ(compute_area_edge_metrics(t.patches, t.raster).landscape.te, 50.0);
}

}  // namespace
}  // namespace lsm::test
