#pragma once
// FRAGSTATS' connectance (FRAGSTATS 4.2, "Aggregation metrics": C31 and L30
// CONNECT): per class, the number of pairs of its patches that lie within a
// threshold distance of each other ("functional joinings", c_ijk = 1). The
// distance of two patches is FRAGSTATS' edge-to-edge distance, from cell
// centre to cell centre, as for ENN: the shortest distance between a cell of
// one and a cell of the other. A pair is joined when some two of its cells
// satisfy (dx w)^2 + (dy h)^2 <= T^2 (dx, dy in cells, w x h the cell size in
// m, T the threshold in m), evaluated in that form so that a distance equal
// to the threshold (60 m between cells 2 columns apart on 30 m cells) joins.
//
// Rows arrive in order. Each row is cut into runs of one patch (its cells in
// that row, left to right); a run is compared with the runs of the same
// class in the rows within reach above it (the rows whose vertical distance
// alone is within T) and with the runs to its right in its own row. Two
// runs' horizontal distance is 0 when they overlap in columns, else the gap
// between their nearer ends, so a pair of runs is one test however long they
// are; the closest cells of two patches lie in some pair of their runs, so
// every joined pair is found. A pair found is remembered (to count it once)
// until the rows where it could be found again have passed: the lower of the
// two patches' last rows plus the reach.
//
// The runs of a row are compared on all cores (OpenMP), their partners
// entered in run order.
//
// Memory: the runs of the rows within reach (16 bytes each) and the joined
// pairs whose patches are both within reach of the current row; not the
// raster's height or patch count. Time: per run, a binary search in each row
// within reach and one test per run of its class there within T
// horizontally: it grows with T / h (rows) times the runs of the class within
// T of the run. Planar rasters only (the distance is Euclidean in m).
#include <cstdint>
#include <map>
#include <unordered_set>
#include <vector>

#include "paged_array.h"
#include "patch_runs_within.h"

namespace lsm {

class ConnectanceSweep {
 public:
  /// `class_of_pid[pid]` and `last_row_of_pid[pid]`: class index and last
  /// row of each patch (index 0 unused; both must outlive the sweep);
  /// `classes`: the number of class indices; `width`: cells per row; cell
  /// size and `threshold_m` in m. Throws lsm::Error(BadInput) for a
  /// threshold that is not a positive finite number, or that reaches more
  /// than 2^20 rows or columns.
  ConnectanceSweep(const PagedArray<uint32_t>& class_of_pid, const PagedArray<uint32_t>& last_row_of_pid,
                   size_t classes, int64_t width, double cell_width, double cell_height, double threshold_m);

  /// Row `y` of patch IDs (`width` of them, 0 = nodata); rows 0, 1, ... in order.
  void row(int64_t y, const uint32_t* pids);

  /// Per class index: its joined pairs (each pair of patches once).
  const std::vector<uint64_t>& joinings() const { return joinings_; }

 private:
  void forget_pairs_before(int64_t y);
  void join(uint32_t a, uint32_t b, uint32_t cls, int64_t y);

  const PagedArray<uint32_t>& class_of_pid_;
  const PagedArray<uint32_t>& last_row_of_pid_;
  int64_t width_;
  std::vector<int64_t> max_gap_;       // [dy]: the largest column gap within T at dy rows
  std::vector<std::vector<PatchRun>> band_;  // the runs of the rows within reach, ring by row, sorted by (class, column)
  std::vector<uint64_t> joinings_;
  std::vector<std::vector<uint32_t>> partners_;          // per run of the current row: patches within T, reused
  std::unordered_set<uint64_t> pairs_;                  // joined pairs still findable: (lower PID << 32) | higher
  std::map<int64_t, std::vector<uint64_t>> forget_at_;  // row -> pairs no longer findable from it
};

}  // namespace lsm
