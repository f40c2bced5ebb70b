#include "fragstats_core_areas.h"

#include <algorithm>

#include "error.h"

namespace lsm {

CoreAreaRule parse_core_area_rule(const std::string& text) {
  if (text == "fragstats") return CoreAreaRule::Fragstats;
  if (text == "all") return CoreAreaRule::All;
  throw Error(ErrorKind::BadInput, "unknown core-area rule '" + text + "' (fragstats or all)");
}

namespace {

// The core cells of one patch, numbered in raster order, with a look-up by position.
class CoreCells {
 public:
  explicit CoreCells(const std::vector<CellRun>& runs) : runs_(runs) {
    row_min_ = runs.front().row;
    const int32_t row_max = runs.back().row;
    row_runs_.assign(static_cast<size_t>(row_max - row_min_) + 1, {0, 0});
    first_cell_.reserve(runs.size());
    uint64_t cells = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      auto& range = row_runs_[static_cast<size_t>(runs[i].row - row_min_)];
      if (range.second == range.first) range.first = i;
      range.second = i + 1;
      first_cell_.push_back(cells);
      cells += static_cast<uint64_t>(runs[i].x1 - runs[i].x0 + 1);
    }
    cells_ = cells;
  }
  uint64_t size() const { return cells_; }
  // Index of the core cell at (row, x), or -1.
  int64_t find(int64_t row, int64_t x) const {
    if (row < row_min_ || row >= row_min_ + static_cast<int64_t>(row_runs_.size())) return -1;
    const auto& [b, e] = row_runs_[static_cast<size_t>(row - row_min_)];
    const auto it = std::upper_bound(runs_.begin() + static_cast<int64_t>(b), runs_.begin() + static_cast<int64_t>(e),
                                     x, [](int64_t v, const CellRun& r) { return v < r.x0; });
    if (it == runs_.begin() + static_cast<int64_t>(b)) return -1;
    const CellRun& r = *(it - 1);
    if (x > r.x1) return -1;
    return static_cast<int64_t>(first_cell_[static_cast<size_t>(it - 1 - runs_.begin())]) + (x - r.x0);
  }
  const std::vector<CellRun>& runs() const { return runs_; }
  uint64_t first_cell(size_t run) const { return first_cell_[run]; }

 private:
  const std::vector<CellRun>& runs_;
  int32_t row_min_ = 0;
  std::vector<std::pair<size_t, size_t>> row_runs_;  // [row - row_min_]: runs [first, second)
  std::vector<uint64_t> first_cell_;                 // [run]: index of its first cell
  uint64_t cells_ = 0;
};

struct Cell {
  int64_t index, row, x;
};

}  // namespace

std::vector<CountedCoreArea> fragstats_core_areas(const std::vector<CellRun>& core_runs, const CellGeometry* geometry) {
  std::vector<CountedCoreArea> areas;
  if (core_runs.empty()) return areas;
  const CoreCells core(core_runs);
  std::vector<uint8_t> visited(core.size(), 0);
  std::vector<Cell> stack;
  // FRAGSTATS' push order: N, E, S, W, NE, SE, SW, NW (row, column offsets).
  static constexpr int kDy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
  static constexpr int kDx[8] = {0, 1, 0, -1, 1, 1, -1, -1};
  // The scan walks the core cells in raster order (the non-core cells of the
  // bounding box cannot start an area); `resume` is where it goes on.
  size_t run = 0;
  int64_t x = core_runs[0].x0;
  auto advance_to = [&](const Cell& c) {  // the scan's position becomes core cell c
    run = static_cast<size_t>(std::upper_bound(core_runs.begin(), core_runs.end(), c,
                                               [](const Cell& v, const CellRun& r) {
                                                 return v.row < r.row || (v.row == r.row && v.x < r.x0);
                                               }) -
                              core_runs.begin()) -
          1;
    x = c.x;
  };
  while (run < core_runs.size()) {
    const CellRun& r = core_runs[run];
    const int64_t index = static_cast<int64_t>(core.first_cell(run)) + (x - r.x0);
    if (!visited[static_cast<size_t>(index)]) {
      CountedCoreArea area;
      visited[static_cast<size_t>(index)] = 1;
      stack.push_back(Cell{index, r.row, x});
      Cell last{};
      while (!stack.empty()) {
        last = stack.back();
        stack.pop_back();
        ++area.cells;
        if (geometry) area.area_m2 += geometry->cell_area_m2(last.row);
        for (int k = 0; k < 8; ++k) {
          const int64_t ny = last.row + kDy[k], nx = last.x + kDx[k];
          const int64_t n = core.find(ny, nx);
          if (n < 0 || visited[static_cast<size_t>(n)]) continue;
          visited[static_cast<size_t>(n)] = 1;
          stack.push_back(Cell{n, ny, nx});
        }
      }
      areas.push_back(area);
      advance_to(last);  // FRAGSTATS' defect: the scan goes on from the last cell popped
    }
    if (++x > core_runs[run].x1 && ++run < core_runs.size()) x = core_runs[run].x0;
  }
  return areas;
}

}  // namespace lsm
