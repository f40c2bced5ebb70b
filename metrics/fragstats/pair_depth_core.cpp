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
  run_end_ring_.assign(ring_.size(), std::vector<int32_t>(static_cast<size_t>(width), 0));
  // Each class's disc of its largest depth r, as half widths by |dy|: the
  // cells with dx^2 + dy^2 <= r^2.
  for (int r : max_depth_) {
    std::vector<int64_t> spans;
    for (int64_t dy = 0, span = r; dy <= r; ++dy) {
      while (span > 0 && span * span + dy * dy > int64_t(r) * r) --span;
      spans.push_back(span);
    }
    disc_.push_back(std::move(spans));
  }
  if (border_.border) {
    if (border_.border->reach() < reach_)
      throw Error(ErrorKind::Internal, "the landscape border is kept within fewer cells than the edge depth");
    border_ring_.assign(ring_.size(), std::vector<int32_t>(static_cast<size_t>(width), 0));
  }
}

void PairDepthCoreMask::row(int64_t y, const uint32_t* pids) {
  // The ring's slot of row y held row y - (2 reach + 1), decided by now.
  std::copy(pids, pids + width_, ring_[static_cast<size_t>(y % static_cast<int64_t>(ring_.size()))].begin());
  // Where each run of one patch ID ends, for decide() to step over runs.
  int32_t* run_end = run_end_ring_[static_cast<size_t>(y % static_cast<int64_t>(run_end_ring_.size()))].data();
  for (int64_t x = width_ - 1; x >= 0; --x)
    run_end[x] = x + 1 < width_ && pids[x + 1] == pids[x] ? run_end[x + 1] : static_cast<int32_t>(x);
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
  for (int64_t x = 0; x < width_; ++x) {
    const uint32_t p = centre[x];
    core_[static_cast<size_t>(x)] = p && is_core(c, x, p);
  }
  emit_(c, centre, core_.data());
  decided_ = c;
}

// Row by row over the disc of the class's largest depth, each row's span
// walked from its left end: a run of the patch's cells is stepped over at
// once (run_end_), a border cell of its class is passed, and any other cell
// ends the test when it lies within the depth of its class. With one depth
// for every pair, the first such cell in a row decides: O(1) a row where
// the patch covers the span, O(depth) a cell.
bool PairDepthCoreMask::is_core(int64_t c, int64_t x, uint32_t p) const {
  const size_t i = class_of_pid_[p];
  const int* d = depth_.data() + i * columns_;
  const int64_t r = max_depth_[i];
  const int64_t boundary_depth = d[classes_];
  const std::vector<int64_t>& disc = disc_[i];
  for (int64_t dy = -r; dy <= r; ++dy) {
    const int64_t y = c + dy, span = disc[static_cast<size_t>(dy < 0 ? -dy : dy)];
    if (y < 0 || y >= height_) {  // beyond the raster: the boundary, nearest straight across
      if (dy * dy <= boundary_depth * boundary_depth) return false;
      continue;
    }
    const uint32_t* row = pids_of(y);
    const int32_t* run_end = run_end_of(y);
    const int32_t* border = border_.border ? border_of(y) : nullptr;
    const int64_t last = x + span;
    for (int64_t xx = x - span; xx <= last;) {
      size_t k = classes_;  // the boundary: outside the raster, nodata
      if (xx >= 0 && xx < width_) {
        const uint32_t q = row[xx];
        if (q == p) {
          xx = run_end[xx] + 1;
          continue;
        }
        if (q) {
          k = class_of_pid_[q];
        } else if (const int32_t j = border ? border[xx] : 0) {  // a border cell: the class it gives
          if (border_.class_index[static_cast<size_t>(j - 1)] == i) {  // the patch's class goes on
            ++xx;
            continue;
          }
          k = classes_ + static_cast<size_t>(j);
        }
      }
      const int64_t dx = xx - x;
      if (dx * dx + dy * dy <= int64_t(d[k]) * d[k]) return false;
      ++xx;
    }
  }
  return true;
}

}  // namespace lsm
