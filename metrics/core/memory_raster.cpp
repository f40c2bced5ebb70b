#include "memory_raster.h"

#include <algorithm>

#include "error.h"

namespace lsm {

MemoryClassRaster::MemoryClassRaster(int64_t width, int64_t height, std::vector<int32_t> cells, double cell_width,
                                     double cell_height)
    : cells_(std::move(cells)) {
  if (width <= 0 || height <= 0 || static_cast<int64_t>(cells_.size()) != width * height)
    throw Error(ErrorKind::BadInput, "in-memory raster: cell count does not match width x height");
  info_.width = width;
  info_.height = height;
  info_.block_width = static_cast<int>(std::min<int64_t>(width, 1 << 30));
  info_.block_height = 1;
  info_.cell_width = cell_width;
  info_.cell_height = cell_height;
}

void MemoryClassRaster::read(const Window& w, int32_t* out, int64_t line_stride) {
  for (int64_t y = 0; y < w.height; ++y) {
    const int32_t* src = cells_.data() + (w.y0 + y) * info_.width + w.x0;
    std::copy(src, src + w.width, out + y * line_stride);
  }
}

MemoryLabelRaster::MemoryLabelRaster(int64_t width, int64_t height)
    : width_(width), height_(height), labels_(static_cast<size_t>(width * height), 0xFFFFFFFFu) {}

void MemoryLabelRaster::write(const Window& w, const uint32_t* labels) {
  for (int64_t y = 0; y < w.height; ++y)
    std::copy(labels + y * w.width, labels + (y + 1) * w.width, labels_.data() + (w.y0 + y) * width_ + w.x0);
}

}  // namespace lsm
