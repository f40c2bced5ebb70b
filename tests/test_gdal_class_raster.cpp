// GdalClassRaster reading tiled GeoTIFFs: windows several blocks wide are read
// as slabs of block columns on several threads, and must give exactly the
// cells written, nodata mapped, whatever the window.
#include <gdal_priv.h>
#include <gdal_rat.h>
#include <omp.h>

#include <filesystem>
#include <map>
#include <random>
#include <unistd.h>
#include <vector>

#include "attribute_table.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "gtest/gtest.h"

namespace fs = std::filesystem;

namespace lsm::test {
namespace {

// Writes `cells` (width x height) as a tiled GeoTIFF with 16 x 16 blocks.
void write_tiled_geotiff(const fs::path& path, const std::vector<int32_t>& cells, int width, int height,
                         GDALDataType type, const double* nodata) {
  GDALAllRegister();
  const char* options[] = {"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", "COMPRESS=DEFLATE", nullptr};
  GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path.c_str(), width, height, 1, type,
                                                                            const_cast<char**>(options));
  ASSERT_NE(d, nullptr);
  GDALRasterBand* band = d->GetRasterBand(1);
  if (nodata) band->SetNoDataValue(*nodata);
  ASSERT_EQ(band->RasterIO(GF_Write, 0, 0, width, height, const_cast<int32_t*>(cells.data()), width, height, GDT_Int32,
                           0, 0),
            CE_None);
  GDALClose(d);
}

class GdalClassRasterSlabs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lsm_slabs_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(GdalClassRasterSlabs, WideWindowsReadExactlyTheCellsWritten) {
  const int width = 203, height = 37;  // 13 block columns, the last one partial
  std::mt19937 rng(7);
  std::vector<int32_t> cells(static_cast<size_t>(width) * height);
  for (int32_t& c : cells) c = static_cast<int32_t>(rng() % 6);  // 5 is nodata
  const fs::path path = dir_ / "tiled.tif";
  const double nodata = 5;
  write_tiled_geotiff(path, cells, width, height, GDT_Byte, &nodata);
  GdalClassRaster source(path.string(), 1);
  omp_set_num_threads(4);  // several slabs even on a one-core machine
  // Whole raster, and windows that start and end inside blocks.
  for (const Window w : {Window{0, 0, width, height}, Window{5, 3, 190, 20}, Window{17, 30, 150, 7},
                         Window{33, 0, 14, 37}}) {
    const int64_t stride = w.width + 3;  // a strip's stride, wider than the window
    std::vector<int32_t> out(static_cast<size_t>(stride * w.height), -7);
    source.read(w, out.data(), stride);
    for (int64_t y = 0; y < w.height; ++y)
      for (int64_t x = 0; x < stride; ++x) {
        const int32_t got = out[static_cast<size_t>(y * stride + x)];
        if (x >= w.width) {
          ASSERT_EQ(got, -7) << "wrote past the window's row at x " << x;
          continue;
        }
        const int32_t written = cells[static_cast<size_t>((w.y0 + y) * width + w.x0 + x)];
        ASSERT_EQ(got, written == 5 ? kNoClass : written) << "window at " << w.x0 << "," << w.y0 << " cell " << x
                                                          << "," << y;
      }
  }
}

TEST_F(GdalClassRasterSlabs, ReservedValueInAnySlabIsABadInput) {
  const int width = 96, height = 20;
  std::vector<int32_t> cells(static_cast<size_t>(width) * height, 1);
  cells[static_cast<size_t>(11 * width + 70)] = kNoClass;  // in the fifth block column
  const fs::path path = dir_ / "reserved.tif";
  write_tiled_geotiff(path, cells, width, height, GDT_Int32, nullptr);
  GdalClassRaster source(path.string(), 1);
  omp_set_num_threads(4);
  std::vector<int32_t> out(static_cast<size_t>(width) * height);
  try {
    source.read(Window{0, 0, width, height}, out.data(), width);
    FAIL() << "the reserved value was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    EXPECT_NE(std::string(e.what()).find("column 70, row 11"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lsm::test

namespace lsm::test {
namespace {

// Class names from a raster attribute table (value and name columns), from
// its linear binning, and from category names; none without either.
TEST_F(GdalClassRasterSlabs, ClassNamesFromTheAttributeTableOrCategories) {
  const fs::path path = dir_ / "named.tif";
  write_tiled_geotiff(path, std::vector<int32_t>(32 * 32, 11), 32, 32, GDT_Byte, nullptr);
  EXPECT_TRUE(GdalClassRaster(path.string(), 1).class_names().empty());
  write_class_name_table(path.string(), {{11, "open water"}, {42, "evergreen forest"}});
  const std::map<int32_t, std::string> from_rat = GdalClassRaster(path.string(), 1).class_names();
  EXPECT_EQ(from_rat, (std::map<int32_t, std::string>{{11, "open water"}, {42, "evergreen forest"}}));

  const fs::path binned_path = dir_ / "binned.tif";
  write_tiled_geotiff(binned_path, std::vector<int32_t>(32 * 32, 1), 32, 32, GDT_Byte, nullptr);
  {
    GDALDataset* d = GDALDataset::Open(binned_path.c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE);
    GDALDefaultRasterAttributeTable rat;
    rat.CreateColumn("NAME", GFT_String, GFU_Name);
    rat.SetLinearBinning(10, 5);
    rat.SetValue(0, 0, "first");
    rat.SetValue(1, 0, "");  // rows grow one at a time
    rat.SetValue(2, 0, "third");
    ASSERT_EQ(d->GetRasterBand(1)->SetDefaultRAT(&rat), CE_None);
    GDALClose(d);
  }
  EXPECT_EQ(GdalClassRaster(binned_path.string(), 1).class_names(),
            (std::map<int32_t, std::string>{{10, "first"}, {20, "third"}}));

  const fs::path categories_path = dir_ / "categories.tif";
  write_tiled_geotiff(categories_path, std::vector<int32_t>(32 * 32, 1), 32, 32, GDT_Byte, nullptr);
  {
    GDALDataset* d = GDALDataset::Open(categories_path.c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE);
    const char* names[] = {"", "crops", "", "urban", nullptr};
    ASSERT_EQ(d->GetRasterBand(1)->SetCategoryNames(const_cast<char**>(names)), CE_None);
    GDALClose(d);
  }
  EXPECT_EQ(GdalClassRaster(categories_path.string(), 1).class_names(),
            (std::map<int32_t, std::string>{{1, "crops"}, {3, "urban"}}));
}

}  // namespace
}  // namespace lsm::test
