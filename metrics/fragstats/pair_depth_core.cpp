#include "pair_depth_core.h"

#include <algorithm>
#include <string>

#include "error.h"

namespace lsm {

PairDepthCoreMask::PairDepthCoreMask(int64_t width, int64_t height, const PagedArray<uint32_t>& class_of_pid,
                                     size_t classes, std::vector<int> depth_cells, CoreRowFn emit)
    : PairDepthCoreMask(width, height, class_of_pid, classes, std::move(depth_cells), std::move(emit), BorderColumns{}) {}

PairDepthCoreMask::PairDepthCoreMask(int64_t width, int64_t height, const PagedArray<uint32_t>& class_of_pid,
                                     size_t classes, std::vector<int> depth_cells, CoreRowFn emit, BorderColumns border)
    : width_(width),
      height_(height),
      class_of_pid_(class_of_pid),
      classes_(classes),
      border_(std::move(border)),
      columns_(classes + 1 + border_.codes.size()),
      depth_(std::move(depth_cells)),
      max_depth_(classes, 0),
      emit_(std::move(emit)),
      core_(static_cast<size_t>(width), 0) {
  if (depth_.size() != classes * columns_ || border_.class_index.size() != border_.codes.size())
    throw Error(ErrorKind::Internal, "edge depths: expected " + std::to_string(classes * columns_) + " values");
  for (size_t i = 0; i < classes; ++i)
    for (size_t k = 0; k < columns_; ++k) {
      const int d = depth_[i * columns_ + k];
      if (d < 0 || d > 1000) throw Error(ErrorKind::BadInput, "an edge depth of " + std::to_string(d) + " cells (0 to 1000)");
      max_depth_[i] = std::max(max_depth_[i], d);
    }
  for (int d : max_depth_) reach_ = std::max(reach_, d);
  ring_.assign(static_cast<size_t>(2 * reach_ + 1), std::vector<uint32_t>(static_cast<size_t>(width), 0));
  if (border_.border) {
    if (border_.border->reach() < reach_)
      throw Error(ErrorKind::Internal, "the landscape border is kept within fewer cells than the edge depth");
    border_ring_.assign(ring_.size(), std::vector<int32_t>(static_cast<size_t>(width), 0));
  }
}

void PairDepthCoreMask::row(int64_t y, const uint32_t* pids) {
  // The ring's slot of row y held row y - (2 reach + 1), decided by now.
  std::copy(pids, pids + width_, ring_[static_cast<size_t>(y % static_cast<int64_t>(ring_.size()))].begin());
  if (border_.border)
    border_class_row(*border_.border, border_.codes, y,
                     border_ring_[static_cast<size_t>(y % static_cast<int64_t>(border_ring_.size()))].data());
  last_row_ = y;
  if (y >= reach_) decide(y - reach_);
}

void PairDepthCoreMask::finish() {
  for (int64_t c = decided_ + 1; c <= last_row_; ++c) decide(c);
}

void PairDepthCoreMask::decide(int64_t c) {
  const uint32_t* centre = pids_of(c);
  const size_t columns = columns_;
  for (int64_t x = 0; x < width_; ++x) {
    const uint32_t p = centre[x];
    core_[static_cast<size_t>(x)] = 0;
    if (!p) continue;
    const size_t i = class_of_pid_[p];
    const int* d = depth_.data() + i * columns;
    const int64_t r = max_depth_[i];
    bool core = true;
    for (int64_t dy = -r; core && dy <= r; ++dy) {
      const int64_t y = c + dy;
      const uint32_t* row = y >= 0 && y < height_ ? pids_of(y) : nullptr;
      const int32_t* border = row && border_.border ? border_of(y) : nullptr;
      for (int64_t dx = -r; dx <= r; ++dx) {
        const int64_t reach2 = dx * dx + dy * dy;
        if (reach2 > r * r) continue;
        const int64_t xx = x + dx;
        size_t k = classes_;  // the boundary: outside the raster, nodata
        if (row && xx >= 0 && xx < width_) {
          const uint32_t q = row[xx];
          if (q == p) continue;
          if (q) {
            k = class_of_pid_[q];
          } else if (const int32_t j = border ? border[xx] : 0) {  // a border cell: the class it gives
            if (border_.class_index[static_cast<size_t>(j - 1)] == i) continue;  // the patch's class goes on
            k = classes_ + static_cast<size_t>(j);
          }
        }
        if (reach2 <= int64_t(d[k]) * d[k]) {
          core = false;
          break;
        }
      }
    }
    core_[static_cast<size_t>(x)] = core;
  }
  emit_(c, centre, core_.data());
  decided_ = c;
}

}  // namespace lsm
