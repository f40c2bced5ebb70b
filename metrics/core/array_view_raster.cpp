#include "array_view_raster.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "error.h"

namespace lsm {

int cell_bytes(ArrayCellType type) {
  switch (type) {
    case ArrayCellType::UInt8: return 1;
    case ArrayCellType::UInt16:
    case ArrayCellType::Int16: return 2;
    case ArrayCellType::Int32: break;
  }
  return 4;
}

ArrayViewClassRaster::ArrayViewClassRaster(const void* cells, ArrayCellType type, int64_t width, int64_t height,
                                           int64_t row_stride, double cell_width, double cell_height,
                                           std::optional<double> nodata)
    : cells_(cells), type_(type), row_stride_(row_stride), nodata_(nodata) {
  if (!cells) throw Error(ErrorKind::BadInput, "in-memory raster: no cells");
  if (width < 1 || height < 1)
    throw Error(ErrorKind::BadInput, "in-memory raster: " + std::to_string(height) + " x " + std::to_string(width) +
                                         " cells; a landscape needs at least one row and one column");
  if (row_stride < width) throw Error(ErrorKind::BadInput, "in-memory raster: rows overlap (stride below the width)");
  for (const double side : {cell_width, cell_height})
    if (!std::isfinite(side) || side <= 0)
      throw Error(ErrorKind::BadInput, "in-memory raster: the cell size must be a positive number of metres");
  info_.width = width;
  info_.height = height;
  // Rows are in memory already: any strip height reads as cheaply as another.
  info_.block_width = static_cast<int>(std::min<int64_t>(width, 1 << 30));
  info_.block_height = 1;
  info_.cell_width = cell_width;
  info_.cell_height = cell_height;
}

template <class T>
void ArrayViewClassRaster::read_as(const Window& w, int32_t* out, int64_t line_stride) {
  const T* base = static_cast<const T*>(cells_);
  // A nodata value no cell of type T can hold marks nothing.
  const bool has_nodata = nodata_ && *nodata_ == std::floor(*nodata_) &&
                          *nodata_ >= static_cast<double>(std::numeric_limits<T>::min()) &&
                          *nodata_ <= static_cast<double>(std::numeric_limits<T>::max());
  const T nodata = has_nodata ? static_cast<T>(*nodata_) : T{};
  for (int64_t y = 0; y < w.height; ++y) {
    const T* src = base + (w.y0 + y) * row_stride_ + w.x0;
    int32_t* dst = out + y * line_stride;
    for (int64_t x = 0; x < w.width; ++x) {
      dst[x] = has_nodata && src[x] == nodata ? kNoClass : static_cast<int32_t>(src[x]);
      // FRAGSTATS reads negative codes as the landscape border; as the GDAL
      // reader does, they are refused unless a job that takes them asks.
      if (std::is_signed<T>::value && dst[x] < 0 && dst[x] != kNoClass) {
        if (border_codes_ == BorderCodes::Refuse)
          throw Error(ErrorKind::BadInput, "the array holds the negative class code " + std::to_string(dst[x]) +
                                               " at column " + std::to_string(w.x0 + x) + ", row " +
                                               std::to_string(w.y0 + y) + ": FRAGSTATS reads negative codes as the "
                                               "landscape border, which this job does not take (the landscape job "
                                               "does); make them nodata");
        if (border_codes_ == BorderCodes::AsNodata) {
          dst[x] = kNoClass;
          met_border_codes_ = true;
        }
      }
    }
  }
}

void ArrayViewClassRaster::read(const Window& w, int32_t* out, int64_t line_stride) {
  switch (type_) {
    case ArrayCellType::UInt8: return read_as<uint8_t>(w, out, line_stride);
    case ArrayCellType::UInt16: return read_as<uint16_t>(w, out, line_stride);
    case ArrayCellType::Int16: return read_as<int16_t>(w, out, line_stride);
    case ArrayCellType::Int32: return read_as<int32_t>(w, out, line_stride);
  }
}

}  // namespace lsm
