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

// The core cells of one patch not yet visited, as a bitmap over its bounding
// box with a border of one empty cell all round (rows padded to whole 64-bit
// words, so bit order is raster order), plus links from each word to the next
// word that still holds unvisited cells, so the scan skips visited stretches.
// A cell is its bit index: its 8 neighbours are fixed offsets, inside the
// bitmap for every core cell thanks to the border, so the flood tests them
// without bounds checks or coordinates.
class BitmapCells {
 public:
  BitmapCells(const std::vector<CellRun>& runs, int64_t col_min, int64_t col_max)
      : row0_(runs.front().row - 1),
        col0_(col_min - 1),
        words_per_row_(words_per_row(col_min, col_max)),
        stride_(words_per_row_ * 64) {
    const int64_t rows = runs.back().row - runs.front().row + 3;
    unvisited_.assign(static_cast<size_t>(rows * words_per_row_), 0);
    for (const CellRun& r : runs) {  // a word's worth of cells at a time
      const uint64_t first = index(r.row, r.x0), last = index(r.row, r.x1);
      for (uint64_t w = first / 64; w <= last / 64; ++w) {
        const uint64_t lo = w == first / 64 ? first % 64 : 0, hi = w == last / 64 ? last % 64 : 63;
        unvisited_[w] |= (~uint64_t(0) >> (63 - hi)) & (~uint64_t(0) << lo);
      }
    }
    next_word_.resize(unvisited_.size() + 1);
    for (size_t w = 0; w <= unvisited_.size(); ++w) next_word_[w] = w < unvisited_.size() && !unvisited_[w] ? w + 1 : w;
  }
  static uint64_t bytes_for(int64_t rows, int64_t col_min, int64_t col_max) {
    return static_cast<uint64_t>(rows + 2) * static_cast<uint64_t>(words_per_row(col_min, col_max)) * 16;
  }
  /// Bits per row: the offset of the cells above and below.
  int64_t stride() const { return stride_; }
  uint64_t index(int64_t row, int64_t x) const {
    return static_cast<uint64_t>(row - row0_) * static_cast<uint64_t>(stride_) + static_cast<uint64_t>(x - col0_);
  }
  int64_t row_of(uint64_t i) const { return row0_ + static_cast<int64_t>(i / static_cast<uint64_t>(stride_)); }
  // The first unvisited core cell at or after bit `i` in raster order.
  bool next_unvisited(uint64_t i, uint64_t& out) {
    size_t w = i / 64;
    if (w >= unvisited_.size()) return false;
    uint64_t bits = unvisited_[w] & (~uint64_t(0) << (i % 64));
    if (!bits) {
      w = next_word(w + 1);
      if (w >= unvisited_.size()) return false;
      bits = unvisited_[w];
    }
    out = w * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
    return true;
  }
  // Marks bit `i` (a core cell or a neighbour of one) visited when it is an
  // unvisited core cell; false otherwise.
  bool take(uint64_t i) {
    const size_t w = i / 64;
    const uint64_t bit = uint64_t(1) << (i % 64);
    if (!(unvisited_[w] & bit)) return false;
    unvisited_[w] &= ~bit;
    if (!unvisited_[w]) next_word_[w] = w + 1;
    return true;
  }

 private:
  static int64_t words_per_row(int64_t col_min, int64_t col_max) { return (col_max - col_min + 3 + 63) / 64; }
  size_t next_word(size_t w) {  // path halving
    while (next_word_[w] != w) w = next_word_[w] = next_word_[next_word_[w]];
    return w;
  }
  int64_t row0_, col0_, words_per_row_, stride_;
  std::vector<uint64_t> unvisited_;
  std::vector<size_t> next_word_;
};

// The same over the runs alone, for a patch whose bounding box is too large
// for a bitmap: cells numbered in raster order, found by binary search.
class SparseCells {
 public:
  explicit SparseCells(const std::vector<CellRun>& runs) : runs_(runs) {
    row_min_ = runs.front().row;
    row_runs_.assign(static_cast<size_t>(runs.back().row - row_min_) + 1, {0, 0});
    uint64_t cells = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      auto& range = row_runs_[static_cast<size_t>(runs[i].row - row_min_)];
      if (range.second == range.first) range.first = i;
      range.second = i + 1;
      first_cell_.push_back(cells);
      cells += static_cast<uint64_t>(runs[i].x1 - runs[i].x0 + 1);
    }
    first_cell_.push_back(cells);
    visited_.assign(cells, 0);
    next_.resize(cells + 1);
    for (uint64_t i = 0; i <= cells; ++i) next_[i] = i;
  }
  bool next_unvisited(int64_t row, int64_t x, int64_t& out_row, int64_t& out_x) {
    // The first run that ends at or after (row, x), then the first unvisited cell from there.
    const auto it = std::lower_bound(runs_.begin(), runs_.end(), std::pair<int64_t, int64_t>{row, x},
                                     [](const CellRun& r, const std::pair<int64_t, int64_t>& p) {
                                       return r.row < p.first || (r.row == p.first && r.x1 < p.second);
                                     });
    if (it == runs_.end()) return false;
    const size_t run = static_cast<size_t>(it - runs_.begin());
    const int64_t from_x = it->row == row ? std::max<int64_t>(x, it->x0) : it->x0;
    uint64_t i = first_cell_[run] + static_cast<uint64_t>(from_x - it->x0);
    while (next_[i] != i) i = next_[i] = next_[next_[i]];
    if (i >= visited_.size()) return false;
    const size_t r = static_cast<size_t>(std::upper_bound(first_cell_.begin(), first_cell_.end(), i) - first_cell_.begin()) - 1;
    out_row = runs_[r].row;
    out_x = runs_[r].x0 + static_cast<int64_t>(i - first_cell_[r]);
    return true;
  }
  bool take(int64_t row, int64_t x) {
    if (row < row_min_ || row >= row_min_ + static_cast<int64_t>(row_runs_.size())) return false;
    const auto& [b, e] = row_runs_[static_cast<size_t>(row - row_min_)];
    const auto it = std::upper_bound(runs_.begin() + static_cast<int64_t>(b), runs_.begin() + static_cast<int64_t>(e),
                                     x, [](int64_t v, const CellRun& r) { return v < r.x0; });
    if (it == runs_.begin() + static_cast<int64_t>(b) || x > (it - 1)->x1) return false;
    const size_t run = static_cast<size_t>(it - 1 - runs_.begin());
    const uint64_t i = first_cell_[run] + static_cast<uint64_t>(x - runs_[run].x0);
    if (visited_[i]) return false;
    visited_[i] = 1;
    next_[i] = i + 1;
    return true;
  }

 private:
  const std::vector<CellRun>& runs_;
  int64_t row_min_ = 0;
  std::vector<std::pair<size_t, size_t>> row_runs_;  // [row - row_min_]: runs [first, second)
  std::vector<uint64_t> first_cell_;                 // [run]: index of its first cell; one past the end last
  std::vector<uint8_t> visited_;
  std::vector<uint64_t> next_;                       // "next unvisited" links (path halving)
};

struct Cell {
  int64_t row, x;
};

// FRAGSTATS' scan over one patch's core cells, on the runs alone (SparseCells).
template <class Cells>
std::vector<CountedCoreArea> scan(Cells& cells, int64_t row0, int64_t x0, const CellGeometry* geometry) {
  // FRAGSTATS' push order: N, E, S, W, NE, SE, SW, NW (row, column offsets).
  static constexpr int kDy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
  static constexpr int kDx[8] = {0, 1, 0, -1, 1, 1, -1, -1};
  std::vector<CountedCoreArea> areas;
  std::vector<Cell> stack;
  int64_t row = row0, x = x0;
  // The non-core cells of the bounding box cannot start an area, so the scan
  // goes from one unvisited core cell to the next in raster order.
  while (cells.next_unvisited(row, x, row, x)) {
    CountedCoreArea area;
    cells.take(row, x);
    stack.push_back(Cell{row, x});
    Cell last{};
    while (!stack.empty()) {
      last = stack.back();
      stack.pop_back();
      ++area.cells;
      if (geometry) area.area_m2 += geometry->cell_area_m2(last.row);
      for (int k = 0; k < 8; ++k) {
        const Cell n{last.row + kDy[k], last.x + kDx[k]};
        if (cells.take(n.row, n.x)) stack.push_back(n);  // marked visited on push
      }
    }
    areas.push_back(area);
    // FRAGSTATS' defect: the scan goes on after the last cell popped, not after the area's first cell.
    row = last.row;
    x = last.x + 1;
  }
  return areas;
}

// The same scan on a bitmap, cells as bit indices (the flood's inner loop).
std::vector<CountedCoreArea> scan(BitmapCells& cells, const CellGeometry* geometry) {
  const int64_t s = cells.stride();
  // FRAGSTATS' push order: N, E, S, W, NE, SE, SW, NW.
  const int64_t offsets[8] = {-s, 1, s, -1, 1 - s, s + 1, s - 1, -s - 1};
  std::vector<CountedCoreArea> areas;
  std::vector<uint64_t> stack;
  uint64_t from = 0, first;
  while (cells.next_unvisited(from, first)) {
    CountedCoreArea area;
    cells.take(first);
    stack.push_back(first);
    uint64_t last = first;
    while (!stack.empty()) {
      last = stack.back();
      stack.pop_back();
      ++area.cells;
      if (geometry) area.area_m2 += geometry->cell_area_m2(cells.row_of(last));
      for (const int64_t offset : offsets) {
        const uint64_t n = last + static_cast<uint64_t>(offset);
        if (cells.take(n)) stack.push_back(n);  // marked visited on push
      }
    }
    areas.push_back(area);
    from = last + 1;  // FRAGSTATS' defect, as above
  }
  return areas;
}

// The 8-connected components of the runs (raster order; runs of one row do
// not touch) when their raster-order spans (first cell to last cell) are
// pairwise disjoint: then FRAGSTATS' scan floods each from its first cell,
// the last cell it pops lies within that component's span, and the next
// unvisited core cell after it is the next component's first cell, so every
// component is counted whole, in the order of their first cells, and the
// flood (8 tests a cell) can be skipped. Returns false when two spans
// overlap: where the scan resumes then depends on the flood's last cell.
// Union-find over the runs, linking each to the runs of the row above that
// it touches (columns overlapping with a one-cell reach): time linear in the runs.
bool disjoint_components(const std::vector<CellRun>& runs, std::vector<CountedCoreArea>& areas) {
  std::vector<uint32_t> parent(runs.size());
  for (uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto find = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  size_t above = 0, above_end = 0;  // the previous row's runs [above, above_end)
  for (size_t i = 0; i < runs.size();) {
    size_t end = i;
    while (end < runs.size() && runs[end].row == runs[i].row) ++end;
    if (above_end > above && runs[above].row + 1 != runs[i].row) above = above_end;  // a gap of rows
    size_t a = above;
    for (size_t r = i; r < end; ++r) {
      while (a < above_end && runs[a].x1 + 1 < runs[r].x0) ++a;  // ends left of r's reach
      for (size_t b = a; b < above_end && runs[b].x0 <= runs[r].x1 + 1; ++b) {
        const uint32_t x = find(static_cast<uint32_t>(r)), y = find(static_cast<uint32_t>(b));
        if (x != y) parent[std::max(x, y)] = std::min(x, y);
      }
    }
    above = i;
    above_end = end;
    i = end;
  }
  // The runs are in raster order: a component's first run holds its first
  // cell and its last run its last, and components are met in the order of
  // their first cells. The spans are disjoint when each component starts
  // after the last run of every component begun before it.
  std::vector<uint32_t> area_of_root(runs.size(), UINT32_MAX);
  std::vector<size_t> first_run, last_run;  // per area
  areas.clear();
  for (uint32_t i = 0; i < runs.size(); ++i) {
    const uint32_t root = find(i);
    if (area_of_root[root] == UINT32_MAX) {
      area_of_root[root] = static_cast<uint32_t>(areas.size());
      areas.emplace_back();
      first_run.push_back(i);
      last_run.push_back(i);
    }
    const uint32_t k = area_of_root[root];
    areas[k].cells += static_cast<uint64_t>(runs[i].x1 - runs[i].x0 + 1);
    last_run[k] = i;
  }
  size_t latest = 0;  // the last run of the components so far
  for (size_t k = 0; k < areas.size(); ++k) {
    if (k > 0 && latest > first_run[k]) return false;
    latest = std::max(latest, last_run[k]);
  }
  return true;
}

}  // namespace

std::vector<CountedCoreArea> fragstats_core_areas(const std::vector<CellRun>& core_runs, const CellGeometry* geometry,
                                                  uint64_t max_bitmap_bytes) {
  if (core_runs.empty()) return {};
  if (core_runs.size() == 1) {  // one run (most small patches): one area, scanned whole
    const CellRun& r = core_runs[0];
    CountedCoreArea area;
    area.cells = static_cast<uint64_t>(r.x1 - r.x0 + 1);
    if (geometry)  // cell by cell, as the scan adds them
      for (uint64_t i = 0; i < area.cells; ++i) area.area_m2 += geometry->cell_area_m2(r.row);
    return {area};
  }
  std::vector<CountedCoreArea> areas;
  if (!geometry && disjoint_components(core_runs, areas)) return areas;  // (geographic areas: summed in the flood's order)
  int64_t col_min = INT64_MAX, col_max = INT64_MIN;
  for (const CellRun& r : core_runs) {
    col_min = std::min<int64_t>(col_min, r.x0);
    col_max = std::max<int64_t>(col_max, r.x1);
  }
  const int64_t row0 = core_runs.front().row, rows = core_runs.back().row - row0 + 1;
  if (BitmapCells::bytes_for(rows, col_min, col_max) <= max_bitmap_bytes) {
    BitmapCells cells(core_runs, col_min, col_max);
    return scan(cells, geometry);
  }
  SparseCells cells(core_runs);
  return scan(cells, row0, col_min, geometry);
}

}  // namespace lsm
