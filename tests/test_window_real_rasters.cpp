// The moving window on crops of real land-cover rasters (issue 48's brute
// force): augusta (NLCD, 30 m, 8-cell patches with nodata) and bern_valais
// (CORINE, 100 m): every band of every metric, class and landscape, at every
// focal cell of a crop equals the landscape job on that window cut out, for
// a square and a round window, both neighbour rules and both edge rules.
// Skipped with a message where ../shared is missing.
#include <gtest/gtest.h>

#include "gdal_class_raster.h"
#include "shared_data.h"
#include "window_brute_force.h"

namespace lsm::test {
namespace {

struct Crop {
  std::string raster;
  int64_t x0, y0, width, height;
};

void expect_crop_equal_to_cut_out_windows(const Crop& crop) {
  const std::string path = shared_data_dir() + "/landcover/" + crop.raster;
  LSM_REQUIRE_SHARED_FILE(path);
  GdalClassRaster source(path, 1);
  const RasterInfo info = source.info();
  std::vector<int32_t> cells(static_cast<size_t>(crop.width * crop.height));
  source.read(Window{crop.x0, crop.y0, crop.width, crop.height}, cells.data());
  for (int trial = 0; trial < 3; ++trial) {
    WindowJobOptions o = every_metric(cells, info.cell_width);
    o.shape = trial == 1 ? circular_window(3 * info.cell_width, info.cell_width, info.cell_height) : square_window(2 + trial);
    o.rule = trial == 1 ? NeighbourRule::Four : NeighbourRule::Eight;
    o.edge = trial == 2 ? WindowEdge::Skip : WindowEdge::Clip;
    o.edge_depth = 1 + trial % 2;
    expect_equal_to_cut_out_windows(cells, crop.width, crop.height, info.cell_width, o,
                                    crop.raster + " trial " + std::to_string(trial));
  }
}

TEST(WindowRealRasters, AugustaCropEqualsItsCutOutWindows) {
  expect_crop_equal_to_cut_out_windows({"lsm_augusta_nlcd.tif", 40, 60, 34, 28});
}

TEST(WindowRealRasters, BernValaisCropEqualsItsCutOutWindows) {
  expect_crop_equal_to_cut_out_windows({"pls_bern_valais_g100_clc00.tif", 600, 700, 34, 28});
}

}  // namespace
}  // namespace lsm::test
