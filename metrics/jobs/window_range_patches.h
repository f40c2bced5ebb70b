#pragma once
// The patch counts of rectangular moving windows along a row without
// labeling each window: NP, the largest patch and the sum of squared patch
// sizes per class (what NP, PD, LPI, DIVISION, MESH and SPLIT read), equal
// to WindowPatchLabeler's for the same window.
//
// A window's columns [s, s + w) over its rows are summarised as a column
// range: the patches that touch its first or last column (open: their class
// and cells, and the runs of one class down those two columns, each in its
// patch) and per class the tallies of the patches that touch neither
// (closed: count, largest, sum of squared sizes). Two adjacent ranges merge
// by joining the open patches whose runs touch across the seam (a side, or a
// corner under the 8-cell rule), one walk down both columns' runs:
// O(runs + open patches + classes), at most O(rows). Windows of width w starting in one block of w
// columns are a suffix of that block merged with a prefix of the next one
// (the two-stacks trick of sliding-window aggregation), and the block's
// suffixes and the next block's prefixes are built a column at a time, so a
// focal cell costs about three merges, O(window rows), where labeling its
// window costs O(window cells) (docs/WINDOW.md).
#include <cstdint>
#include <vector>

#include "patch_stats.h"
#include "window_patches.h"

namespace lsm {

/// Patch counts of the windows of one focal row, for windows of `rows` x
/// `columns` cells (the focal cell at their centre).
class WindowRangePatches {
 public:
  /// `window_rows`: the window's rows of the band for the current focal
  /// row, each indexable from -columns / 2 to width + columns / 2 (class
  /// indices, -1 for nodata and beyond the raster); focal columns 0 ..
  /// width - 1. `sizes`: whether largest and sa2 are wanted (else only the
  /// patch counts, NP's and PD's, at less cost).
  void start_row(const std::vector<const int32_t*>& window_rows, int64_t width, int64_t columns, NeighbourRule rule,
                 bool sizes = true);
  /// The window around focal column x (x ascending between start_row()
  /// calls; columns may be skipped): every class with a patch, ascending
  /// class index, with patches set, and largest and sa2 where start_row()
  /// wanted sizes (else 0; the other sums 0).
  const std::vector<WindowClassPatches>& at(int64_t x);

 private:
  struct Open {
    int32_t class_index;
    uint64_t cells;
  };
  struct Tally {
    int32_t class_index;
    uint64_t patches, largest;
    double sa2;
  };
  // A run of one class's cells down a range's first or last column (rows
  // first..last of the window), in open patch `id`.
  struct Run {
    int32_t first, last, id, class_index;
  };
  struct Range {
    std::vector<Run> left, right;  // the first/last column's runs, top to bottom (nodata leaves gaps)
    std::vector<Open> open;
    std::vector<Tally> closed;  // ascending class index
  };

  void column(int64_t c, Range& out) const;
  void merge(const Range& a, const Range& b, Range& out);
  void build_block(int64_t block);
  static void add_tally(std::vector<Tally>& tallies, int32_t class_index, uint64_t patches, uint64_t largest, double sa2);
  void join_across(const Range& a, const Range& b, bool settle);
  int32_t find(int32_t i) {
    while (parent_[static_cast<size_t>(i)] != i) {
      parent_[static_cast<size_t>(i)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(i)])];
      i = parent_[static_cast<size_t>(i)];
    }
    return i;
  }

  std::vector<const int32_t*> rows_;
  int64_t columns_ = 0, half_ = 0;
  int64_t last_column_ = 0;        // the last column a window reaches: width - 1 + half
  NeighbourRule rule_ = NeighbourRule::Eight;
  bool sizes_ = true;
  int64_t block_ = INT64_MIN;      // the block whose suffixes and next prefixes are built
  std::vector<Range> suffixes_;    // suffixes_[t]: columns [base + t, base + columns)
  std::vector<Range> prefixes_;    // prefixes_[t]: columns [base + columns, base + columns + t]
  Range single_;  // one column, while a block is built
  std::vector<Range> next_columns_;  // next_columns_[t]: column base + columns + t, one column each
  int64_t next_columns_built_ = 0;   // how many of them the last build_block() made
  std::vector<int32_t> parent_, new_id_;
  std::vector<uint64_t> cells_;
  std::vector<Tally> by_class_;   // a window's tallies by class index (class_index -1: none yet)
  std::vector<int32_t> touched_;  // the classes tallied for the current window
  std::vector<WindowClassPatches> result_;
};

}  // namespace lsm
