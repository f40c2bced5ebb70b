#include "strip_packing.h"

#include "raster.h"

namespace lsm {

bool pack_class_bytes(const int32_t* codes, int64_t rows, int64_t cols, int64_t code_stride, uint8_t* bytes) {
  bool fits = true;
#pragma omp parallel for schedule(static) reduction(&& : fits)
  for (int64_t y = 0; y < rows; ++y) {
    const int32_t* in = codes + y * code_stride;
    uint8_t* out = bytes + y * cols;
    bool row_fits = true;
    for (int64_t x = 0; x < cols; ++x) {
      const int32_t c = in[x];
      const bool nodata = c == kNoClass;
      row_fits = row_fits && (nodata || static_cast<uint32_t>(c) < kPackedNodata);
      out[x] = nodata ? kPackedNodata : static_cast<uint8_t>(c);
    }
    fits = fits && row_fits;
  }
  return fits;
}

}  // namespace lsm
