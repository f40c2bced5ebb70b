#include "strip_packing.h"

#include "raster.h"

namespace lsm {

bool pack_class_bytes(const int32_t* codes, size_t n, uint8_t* bytes) {
  const int64_t count = static_cast<int64_t>(n);
  bool fits = true;
#pragma omp parallel for schedule(static) reduction(&& : fits)
  for (int64_t i = 0; i < count; ++i) {
    const int32_t c = codes[i];
    const bool nodata = c == kNoClass;
    fits = fits && (nodata || static_cast<uint32_t>(c) < kPackedNodata);
    bytes[i] = nodata ? kPackedNodata : static_cast<uint8_t>(c);
  }
  return fits;
}

}  // namespace lsm
