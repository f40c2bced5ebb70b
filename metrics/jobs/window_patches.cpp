#include "window_patches.h"

#include <algorithm>
#include <cmath>

namespace lsm {

int32_t WindowPatchLabeler::find(int32_t i) {
  while (parent_[static_cast<size_t>(i)] != i) {
    parent_[static_cast<size_t>(i)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(i)])];
    i = parent_[static_cast<size_t>(i)];
  }
  return i;
}

const std::vector<WindowClassPatches>& WindowPatchLabeler::label(const std::vector<int32_t>& cells, int64_t rows,
                                                                 int64_t columns, NeighbourRule rule) {
  const size_t n = static_cast<size_t>(rows * columns);
  parent_.resize(n);
  for (size_t i = 0; i < n; ++i) parent_[i] = static_cast<int32_t>(i);
  auto join = [&](size_t a, size_t b) {
    const int32_t ra = find(static_cast<int32_t>(a)), rb = find(static_cast<int32_t>(b));
    if (ra != rb) parent_[static_cast<size_t>(std::max(ra, rb))] = std::min(ra, rb);
  };
  // Cells of one class that touch (by a side; under the 8-cell rule also by
  // a corner) are one patch, as in the landscape job.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c) {
      const size_t i = static_cast<size_t>(r * columns + c);
      const int32_t k = cells[i];
      if (k < 0) continue;
      if (c > 0 && cells[i - 1] == k) join(i, i - 1);
      if (r == 0) continue;
      const size_t up = i - static_cast<size_t>(columns);
      if (cells[up] == k) join(i, up);
      if (rule == NeighbourRule::Eight) {
        if (c > 0 && cells[up - 1] == k) join(i, up - 1);
        if (c + 1 < columns && cells[up + 1] == k) join(i, up + 1);
      }
    }
  // Patches numbered by their first cell in raster order (the PIDs of the
  // window cut out alone); each one's cells and perimeter (sides not shared
  // with a cell of its class: another class, or outside the window).
  order_.assign(n, -1);
  cells_.clear();
  perimeter_.clear();
  class_of_.clear();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c) {
      const size_t i = static_cast<size_t>(r * columns + c);
      const int32_t k = cells[i];
      if (k < 0) continue;
      const size_t root = static_cast<size_t>(find(static_cast<int32_t>(i)));
      if (order_[root] < 0) {
        order_[root] = static_cast<int32_t>(cells_.size());
        cells_.push_back(0);
        perimeter_.push_back(0);
        class_of_.push_back(k);
      }
      const size_t p = static_cast<size_t>(order_[root]);
      ++cells_[p];
      int like = 0;
      if (c > 0 && cells[i - 1] == k) ++like;
      if (c + 1 < columns && cells[i + 1] == k) ++like;
      if (r > 0 && cells[i - static_cast<size_t>(columns)] == k) ++like;
      if (r + 1 < rows && cells[i + static_cast<size_t>(columns)] == k) ++like;
      perimeter_[p] += static_cast<uint64_t>(4 - like);
    }
  // Each class's sums, its patches added in patch order.
  by_class_.clear();
  for (size_t p = 0; p < cells_.size(); ++p) {
    const size_t k = static_cast<size_t>(class_of_[p]);
    if (k >= slot_.size()) slot_.resize(k + 1, -1);
    if (slot_[k] < 0) {
      slot_[k] = static_cast<int32_t>(by_class_.size());
      by_class_.push_back(WindowClassPatches{});
      by_class_.back().class_index = class_of_[p];
    }
    WindowClassPatches& s = by_class_[static_cast<size_t>(slot_[k])];
    const double size = static_cast<double>(cells_[p]), perim = static_cast<double>(perimeter_[p]);
    ++s.patches;
    s.largest = std::max(s.largest, cells_[p]);
    s.sp += perim;
    s.spa += perim * std::sqrt(size);
    s.sa2 += size * size;
  }
  for (const WindowClassPatches& s : by_class_) slot_[static_cast<size_t>(s.class_index)] = -1;
  std::sort(by_class_.begin(), by_class_.end(),
            [](const WindowClassPatches& a, const WindowClassPatches& b) { return a.class_index < b.class_index; });
  return by_class_;
}

}  // namespace lsm
