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
                                                                 int64_t columns, NeighbourRule rule, bool with_runs) {
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
  patches_.clear();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c) {
      const size_t i = static_cast<size_t>(r * columns + c);
      const int32_t k = cells[i];
      if (k < 0) continue;
      const size_t root = static_cast<size_t>(find(static_cast<int32_t>(i)));
      if (order_[root] < 0) {
        order_[root] = static_cast<int32_t>(patches_.size());
        patches_.push_back(WindowPatch{});
        patches_.back().class_index = k;
      }
      WindowPatch& patch = patches_[static_cast<size_t>(order_[root])];
      ++patch.cells;
      int like_h = 0, like_v = 0;  // neighbours of the class above/below, left/right
      if (c > 0 && cells[i - 1] == k) ++like_v;
      if (c + 1 < columns && cells[i + 1] == k) ++like_v;
      if (r > 0 && cells[i - static_cast<size_t>(columns)] == k) ++like_h;
      if (r + 1 < rows && cells[i + static_cast<size_t>(columns)] == k) ++like_h;
      patch.perim_h += static_cast<uint64_t>(2 - like_h);
      patch.perim_v += static_cast<uint64_t>(2 - like_v);
      // Corner neighbours below (each pair once) of the same patch: under
      // the 4-cell rule a corner-touching cell of the class may be another patch.
      if (r + 1 < rows) {
        const size_t down = i + static_cast<size_t>(columns);
        if (c > 0 && cells[down - 1] == k && find(static_cast<int32_t>(down - 1)) == static_cast<int32_t>(root))
          ++patch.diagonal_pairs;
        if (c + 1 < columns && cells[down + 1] == k && find(static_cast<int32_t>(down + 1)) == static_cast<int32_t>(root))
          ++patch.diagonal_pairs;
      }
    }
  // Each patch's runs (GYRATE, CIRCLE): found in raster order, then
  // grouped by patch with a counting sort, which keeps that order.
  if (with_runs) {
    raster_runs_.clear();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns;) {
        const size_t i = static_cast<size_t>(r * columns + c);
        if (cells[i] < 0) {
          ++c;
          continue;
        }
        const int32_t p = order_[static_cast<size_t>(find(static_cast<int32_t>(i)))];
        int64_t end = c;
        while (end + 1 < columns && cells[i + static_cast<size_t>(end + 1 - c)] >= 0 &&
               order_[static_cast<size_t>(find(static_cast<int32_t>(i + static_cast<size_t>(end + 1 - c))))] == p)
          ++end;
        raster_runs_.push_back({p, CellRun{static_cast<int32_t>(r), static_cast<int32_t>(c), static_cast<int32_t>(end)}});
        c = end + 1;
      }
    run_offsets_.assign(patches_.size() + 1, 0);
    for (const auto& [p, run] : raster_runs_) ++run_offsets_[static_cast<size_t>(p) + 1];
    for (size_t p = 0; p < patches_.size(); ++p) run_offsets_[p + 1] += run_offsets_[p];
    run_cells_.resize(raster_runs_.size());
    std::vector<size_t>& next = scratch_offsets_;
    next.assign(run_offsets_.begin(), run_offsets_.end() - 1);
    for (const auto& [p, run] : raster_runs_) run_cells_[next[static_cast<size_t>(p)]++] = run;
  }
  // Each class's sums, its patches added in patch order.
  by_class_.clear();
  for (const WindowPatch& patch : patches_) {
    const size_t k = static_cast<size_t>(patch.class_index);
    if (k >= slot_.size()) slot_.resize(k + 1, -1);
    if (slot_[k] < 0) {
      slot_[k] = static_cast<int32_t>(by_class_.size());
      by_class_.push_back(WindowClassPatches{});
      by_class_.back().class_index = patch.class_index;
    }
    WindowClassPatches& s = by_class_[static_cast<size_t>(slot_[k])];
    const double size = static_cast<double>(patch.cells), perim = static_cast<double>(patch.perim_h + patch.perim_v);
    ++s.patches;
    s.largest = std::max(s.largest, patch.cells);
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
