#pragma once
// How an operation's raster output is served window by window by the GDAL
// driver (LSM:<operation>:...), declared by the operation itself so that the
// driver names no operation. No GDAL type here: cell types are lsm's own.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "raster.h"

namespace lsm::ops {

class ParameterValues;

/// The cell types of served rasters (GDAL's of the same names).
enum class CellType { Byte, UInt16, UInt32, Float32, Float64 };

/// The shape and georeferencing of a served raster.
struct RasterShape {
  int64_t width = 0, height = 0;  ///< cells
  int bands = 1;
  CellType type = CellType::Float32;
  int block_width = 256, block_height = 256;  ///< the blocks the driver asks for
  std::optional<double> nodata;
  GeoReference georef;
  std::vector<std::string> band_names;          ///< empty or one per band
  std::map<std::string, std::string> metadata;  ///< dataset metadata items
};

/// A raster whose blocks are computed on demand (local operations: each
/// block needs only its strip of rows and their halo).
class StreamedRaster {
 public:
  virtual ~StreamedRaster() = default;
  RasterShape shape;
  /// Fills block (bx, by) of 1-based `band`: block_width x block_height
  /// values of shape.type, row-major; cells beyond the raster are left as
  /// they are. Throws lsm::Error.
  virtual void read_block(int band, int64_t bx, int64_t by, void* out) = 0;
};

/// How the driver serves an operation that it shows (front_ends has kDriver).
/// With `streamed`, block by block; otherwise the operation's own run writes
/// its output raster into a temporary file whose blocks are served. Where the
/// shape is known from the values and the source (`shape_before_run`), that
/// run waits for the first read; else it happens when the dataset is opened,
/// and the shape is the result's.
struct RasterServing {
  /// The streamed raster of these values; opens and checks the source now.
  std::function<std::unique_ptr<StreamedRaster>(const ParameterValues& values)> streamed;
  /// The output's shape before the run (opens and checks the source now).
  std::function<RasterShape(const ParameterValues& values)> shape_before_run;
};

}  // namespace lsm::ops
