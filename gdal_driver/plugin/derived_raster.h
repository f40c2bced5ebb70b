#pragma once
// What the LSM GDAL driver serves: a raster derived from a source by one of
// lsm's operations. Local operations (the gradient) compute strips of rows
// with their halo on demand; non-local ones (patch labels, fuzzy
// connectedness) run the engine once, on the first read, and serve its result.
#include <gdal.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "connection.h"
#include "raster.h"  // GeoReference

namespace lsm::gdal_plugin {

class DerivedRaster {
 public:
  virtual ~DerivedRaster() = default;
  int64_t width = 0, height = 0;
  int bands = 1;
  GDALDataType type = GDT_Float32;
  int block_width = 256, block_height = 256;
  std::optional<double> nodata;
  GeoReference georef;
  std::vector<std::string> band_names;         ///< empty or one per band
  std::map<std::string, std::string> metadata;  ///< dataset metadata items

  /// Fills block (bx, by) of 1-based `band` (block_width x block_height
  /// values of `type`, row-major; cells beyond the raster are left as they
  /// are). Throws lsm::Error.
  virtual void read_block(int band, int64_t bx, int64_t by, void* out) = 0;
};

/// The raster of `connection`'s operation. Opens and checks the source and
/// the options now (throws lsm::Error(BadInput) naming the problem); the
/// computing waits for the first read.
std::unique_ptr<DerivedRaster> open_derived_raster(const Connection& connection);

}  // namespace lsm::gdal_plugin
