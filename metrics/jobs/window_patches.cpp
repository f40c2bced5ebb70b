#include "window_patches.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cell_neighbourhood.h"

namespace lsm {

int32_t WindowPatchLabeler::find(int32_t i) {
  while (parent_[static_cast<size_t>(i)] != i) {
    parent_[static_cast<size_t>(i)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(i)])];
    i = parent_[static_cast<size_t>(i)];
  }
  return i;
}

const std::vector<WindowClassPatches>& WindowPatchLabeler::label(const std::vector<int32_t>& cells, int64_t rows,
                                                                 int64_t columns, NeighbourRule rule, bool with_runs,
                                                                 const WindowCoreRule& core) {
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
    // The edge cells (ENN): a 4-neighbour of another patch, outside the
    // landscape or beyond the window.
    edge_cells_.clear();
    const auto patch_at = [&](int64_t r, int64_t c) -> int32_t {
      if (r < 0 || c < 0 || r >= rows || c >= columns) return -1;
      const size_t j = static_cast<size_t>(r * columns + c);
      return cells[j] < 0 ? -1 : order_[static_cast<size_t>(find(static_cast<int32_t>(j)))];
    };
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c) {
        const int32_t p = patch_at(r, c);
        if (p < 0) continue;
        if (patch_at(r - 1, c) != p || patch_at(r + 1, c) != p || patch_at(r, c - 1) != p || patch_at(r, c + 1) != p)
          edge_cells_.push_back({p, static_cast<int32_t>(r), static_cast<int32_t>(c)});
      }
  }
  if (core.depth > 0) count_core_areas(cells, rows, columns, core);
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
    s.core_cells += patch.core_cells;
    s.core_areas += patch.core_areas;
  }
  for (const WindowClassPatches& s : by_class_) slot_[static_cast<size_t>(s.class_index)] = -1;
  std::sort(by_class_.begin(), by_class_.end(),
            [](const WindowClassPatches& a, const WindowClassPatches& b) { return a.class_index < b.class_index; });
  return by_class_;
}

void WindowPatchLabeler::mark_pair_depth_core(const std::vector<int32_t>& cells, int64_t rows, int64_t columns,
                                              const WindowCoreRule& core) {
  // A cell of patch p, class i, is core when no cell outside p lies within
  // d_ik of it, k that cell's class or the boundary's (outside the window,
  // nodata): the landscape job's rule on the window cut out. Windows are
  // small: each cell reads the disc of its class's largest depth.
  const std::vector<int32_t>& patch_of = core_parent_;
  const size_t k = core.classes, columns_of_depths = k + 1;
  const std::vector<int>& d = *core.pair_depths;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c) {
      const size_t i = static_cast<size_t>(r * columns + c);
      const int32_t p = patch_of[i];
      if (p < 0) continue;
      const int* depth = d.data() + static_cast<size_t>(cells[i]) * columns_of_depths;
      const int64_t reach = *std::max_element(depth, depth + columns_of_depths);
      bool is_core = true;
      for (int64_t dy = -reach; dy <= reach && is_core; ++dy)
        for (int64_t dx = -reach; dx <= reach; ++dx) {
          const int64_t d2 = dx * dx + dy * dy;
          if (d2 > reach * reach) continue;
          const int64_t rr = r + dy, cc = c + dx;
          size_t beyond = k;  // the boundary
          if (rr >= 0 && cc >= 0 && rr < rows && cc < columns) {
            const size_t j = static_cast<size_t>(rr * columns + cc);
            if (patch_of[j] == p) continue;
            if (cells[j] >= 0) beyond = static_cast<size_t>(cells[j]);
          }
          if (d2 <= int64_t(depth[beyond]) * depth[beyond]) {
            is_core = false;
            break;
          }
        }
      core_[i] = is_core;
    }
}

void WindowPatchLabeler::count_core_areas(const std::vector<int32_t>& cells, int64_t rows, int64_t columns,
                                          const WindowCoreRule& core) {
  const size_t n = static_cast<size_t>(rows * columns);
  // Each cell's patch (-1 outside the window or the landscape).
  core_parent_.assign(n, -1);
  std::vector<int32_t>& patch_of = core_parent_;
  for (size_t i = 0; i < n; ++i)
    if (cells[i] >= 0) patch_of[i] = order_[static_cast<size_t>(find(static_cast<int32_t>(i)))];
  // Core cells: the edge-depth disc around the cell inside the window and its patch.
  const std::vector<int32_t> reach = edge_depth_reach(core.depth);
  const int64_t depth = core.depth;
  core_.assign(n, 0);
  if (core.pair_depths) mark_pair_depth_core(cells, rows, columns, core);
  for (int64_t r = depth; !core.pair_depths && r + depth < rows; ++r)
    for (int64_t c = 0; c < columns; ++c) {
      const size_t i = static_cast<size_t>(r * columns + c);
      const int32_t p = patch_of[i];
      if (p < 0) continue;
      bool is_core = true;
      for (int64_t dy = -depth; dy <= depth && is_core; ++dy) {
        const int64_t h = reach[static_cast<size_t>(std::abs(dy))];
        if (c - h < 0 || c + h >= columns) {
          is_core = false;
          break;
        }
        const int32_t* row = &patch_of[static_cast<size_t>((r + dy) * columns)];
        for (int64_t dx = -h; dx <= h; ++dx)
          if (row[c + dx] != p) {
            is_core = false;
            break;
          }
      }
      core_[i] = is_core;
    }
  core_area_cells_.clear();
  const auto count = [&](int32_t p, uint64_t area_cells) {
    core_area_cells_.push_back({p, area_cells});
    patches_[static_cast<size_t>(p)].core_cells += area_cells;
    ++patches_[static_cast<size_t>(p)].core_areas;
  };
  if (core.rule == CoreAreaRule::Fragstats) {
    // Each patch's core runs in raster order, through FRAGSTATS' scan.
    core_runs_by_patch_.resize(patches_.size());
    for (std::vector<CellRun>& runs : core_runs_by_patch_) runs.clear();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns;) {
        const size_t i = static_cast<size_t>(r * columns + c);
        if (!core_[i]) {
          ++c;
          continue;
        }
        int64_t end = c;
        while (end + 1 < columns && core_[i + static_cast<size_t>(end + 1 - c)] &&
               patch_of[i + static_cast<size_t>(end + 1 - c)] == patch_of[i])
          ++end;
        core_runs_by_patch_[static_cast<size_t>(patch_of[i])].push_back(
            CellRun{static_cast<int32_t>(r), static_cast<int32_t>(c), static_cast<int32_t>(end)});
        c = end + 1;
      }
    for (size_t p = 0; p < patches_.size(); ++p)
      if (!core_runs_by_patch_[p].empty())
        for (const CountedCoreArea& a : fragstats_core_areas(core_runs_by_patch_[p], nullptr))
          count(static_cast<int32_t>(p), a.cells);
    return;
  }
  // Every 8-connected component of core cells is a core area (it lies in one
  // patch: two core cells that touch share their patch's neighbours).
  std::vector<int32_t> parent(n, -1);
  const auto root = [&parent](int32_t i) {
    while (parent[static_cast<size_t>(i)] != i) i = parent[static_cast<size_t>(i)] = parent[static_cast<size_t>(parent[static_cast<size_t>(i)])];
    return i;
  };
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c) {
      const size_t i = static_cast<size_t>(r * columns + c);
      if (!core_[i]) continue;
      parent[i] = static_cast<int32_t>(i);
      const auto join = [&](int64_t rr, int64_t cc) {
        if (rr < 0 || cc < 0 || cc >= columns) return;
        const size_t j = static_cast<size_t>(rr * columns + cc);
        if (!core_[j]) return;
        const int32_t a = root(static_cast<int32_t>(i)), b = root(static_cast<int32_t>(j));
        if (a != b) parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
      };
      join(r, c - 1);
      join(r - 1, c - 1);
      join(r - 1, c);
      join(r - 1, c + 1);
    }
  std::vector<uint64_t> size(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (core_[i]) ++size[static_cast<size_t>(root(static_cast<int32_t>(i)))];
  for (size_t i = 0; i < n; ++i)  // areas in the order of their first cell
    if (core_[i] && root(static_cast<int32_t>(i)) == static_cast<int32_t>(i)) count(patch_of[i], size[i]);
}

}  // namespace lsm
