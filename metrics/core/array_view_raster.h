#pragma once
// A categorical raster that lives in a caller's array (a numpy array handed
// over by the Python module): read in place, never copied, so that a
// landscape of a few Gpx costs no second copy of its cells.
#include <cstdint>
#include <optional>

#include "raster.h"

namespace lsm {

/// The integer cell types read in place (numpy's uint8, uint16, int16, int32).
enum class ArrayCellType { UInt8, UInt16, Int16, Int32 };

/// Bytes of one cell of `type`.
int cell_bytes(ArrayCellType type);

/// A ClassRasterSource over a borrowed row-major array of `height` rows of
/// `width` cells, `row_stride` cells apart (>= width; width for a C-contiguous
/// array). Cells equal to `nodata` are outside the landscape; an int32 cell
/// equal to kNoClass (INT32_MIN) is too, as in MemoryClassRaster. Other
/// negative codes (FRAGSTATS' landscape border) make read() throw
/// lsm::Error(BadInput) naming the cell, as the GDAL reader does, unless
/// taken otherwise (take_border_codes()). The array
/// must outlive the source and not change while a job reads it.
class ArrayViewClassRaster final : public ClassRasterSource {
 public:
  /// Throws lsm::Error(BadInput) for a null array, width or height < 1,
  /// row_stride < width, or a cell size that is not a positive finite
  /// number of metres.
  ArrayViewClassRaster(const void* cells, ArrayCellType type, int64_t width, int64_t height, int64_t row_stride,
                       double cell_width, double cell_height, std::optional<double> nodata);
  RasterInfo info() const override { return info_; }
  using ClassRasterSource::read;
  void read(const Window& window, int32_t* out, int64_t line_stride) override;
  bool take_border_codes(BorderCodes how) override {
    border_codes_ = how;
    met_border_codes_ = false;
    return true;
  }
  bool met_border_codes() const override { return met_border_codes_; }

 private:
  template <class T>
  void read_as(const Window& window, int32_t* out, int64_t line_stride);

  BorderCodes border_codes_ = BorderCodes::Refuse;
  bool met_border_codes_ = false;
  const void* cells_;
  ArrayCellType type_;
  int64_t row_stride_;
  std::optional<double> nodata_;
  RasterInfo info_;
};

}  // namespace lsm
