#pragma once
// Test helper: gives a GeoTIFF's first band a raster attribute table of class
// codes and names (a VALUE column, GFU_MinMax, and a CLASS column, GFU_Name),
// as NLCD and other land-cover products carry one.
#include <gdal_priv.h>
#include <gdal_rat.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace lsm::test {

inline void write_class_name_table(const std::string& path, const std::map<int, std::string>& names) {
  GDALAllRegister();
  GDALDataset* d = GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE);
  ASSERT_NE(d, nullptr) << path;
  GDALDefaultRasterAttributeTable rat;
  rat.CreateColumn("VALUE", GFT_Integer, GFU_MinMax);
  rat.CreateColumn("CLASS", GFT_String, GFU_Name);
  int row = 0;
  for (const auto& [code, name] : names) {
    rat.SetValue(row, 0, code);
    rat.SetValue(row++, 1, name.c_str());
  }
  EXPECT_EQ(d->GetRasterBand(1)->SetDefaultRAT(&rat), CE_None);
  GDALClose(d);
}

}  // namespace lsm::test
