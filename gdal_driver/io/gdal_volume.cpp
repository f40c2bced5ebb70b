#include "gdal_volume.h"

#include <gdal_priv.h>

#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "error.h"
#include "gdal_errors.h"
#include "gdal_open.h"

namespace lsm {

namespace {

std::optional<std::array<double, 3>> voxel_size_of(GDALDataset* dataset) {
  const char* item = dataset->GetMetadataItem("VOXEL_SIZE_MM");
  if (!item) return std::nullopt;
  std::array<double, 3> size{};
  std::istringstream in(item);
  if (!(in >> size[0] >> size[1] >> size[2]) || !(size[0] > 0 && size[1] > 0 && size[2] > 0)) return std::nullopt;
  return size;
}

}  // namespace

LoadedVolume read_volume(const std::string& path, bool as_volume, int band, const ProgressFn& progress) {
  GDALDatasetUniquePtr dataset(open_input_raster(path));
  const int count = dataset->GetRasterCount();
  if (count < 1) throw Error(ErrorKind::BadInput, "'" + path + "' has no bands");
  if (!as_volume && (band < 1 || band > count))
    throw Error(ErrorKind::BadInput, "band " + std::to_string(band) + " is out of range: '" + path + "' has " +
                                         std::to_string(count) + (count == 1 ? " band" : " bands"));
  LoadedVolume v;
  v.width = dataset->GetRasterXSize();
  v.height = dataset->GetRasterYSize();
  v.depth = as_volume ? count : 1;
  v.voxel_size_mm = voxel_size_of(dataset.get());
  v.georef = georeference_of(dataset.get());
  const int64_t plane = v.width * v.height;
  v.values.resize(static_cast<size_t>(plane * v.depth));
  for (int64_t z = 0; z < v.depth; ++z) {
    const int b = as_volume ? static_cast<int>(z) + 1 : band;
    GDALRasterBand* raster_band = dataset->GetRasterBand(b);
    if (GDALDataTypeIsComplex(raster_band->GetRasterDataType()))
      throw Error(ErrorKind::BadInput, "band " + std::to_string(b) + " of '" + path + "' has a complex type");
    float* slice = v.values.data() + z * plane;
    HeldGdalMessages held;  // GDAL's reason goes into lsm's line
    if (raster_band->RasterIO(GF_Read, 0, 0, static_cast<int>(v.width), static_cast<int>(v.height), slice,
                              static_cast<int>(v.width), static_cast<int>(v.height), GDT_Float32, 0, 0) != CE_None)
      throw Error(ErrorKind::Io, "reading '" + path + "' failed: " + gdal_failure_reason());
    int has_nodata = 0;
    const double nodata = raster_band->GetNoDataValue(&has_nodata);
    if (has_nodata) {
      const float nodata_float = static_cast<float>(nodata);
      for (int64_t i = 0; i < plane; ++i)
        if (slice[i] == nodata_float) slice[i] = std::numeric_limits<float>::quiet_NaN();
    }
    if (progress && !progress(static_cast<double>(z + 1) / static_cast<double>(v.depth)))
      throw Error(ErrorKind::Io, "interrupted");
  }
  return v;
}

}  // namespace lsm
