#pragma once
// Core cells with FRAGSTATS' edge depths per pair of classes (the edge depth
// file, .fdt; FRAGSTATS 4.2, "Core area metrics": the depth of edge
// influence may differ with the class beyond the edge). A cell of patch P,
// class i, is core when no cell outside P lies within d_ik of it, k being
// that cell's class (a background class too: its cells carry patch IDs),
// or the boundary class for the raster's edge and nodata (patch ID 0): Euclidean distance from cell centre to
// cell centre, in cells, compared as dx^2 + dy^2 <= d_ik^2 (a cell exactly
// d_ik away is within reach). With every d_ik = D it is core_area.h's rule
// for edge depth D; a depth 0 lets the cells beside that class be core.
// With a landscape border (landscape_border.h), a border cell beyond the
// boundary has the class it gives: one of the patch's class lets the patch
// continue (no edge), another is class k at depth d_ik.
//
// Rows arrive in order; row c is decided once the rows within the largest
// depth below it have arrived. Memory: 2 x the largest depth + 1 rows of
// patch IDs and of run ends (8 bytes a cell; with a border, 4 more). Time:
// per patch cell, one step per row of the disc of its class's largest depth
// where the patch covers the row's span (runs of the patch are stepped
// over), plus the cells outside the patch it meets before one ends the test.
#include <cstdint>
#include <functional>
#include <vector>

#include "landscape_border.h"
#include "paged_array.h"

namespace lsm {

class PairDepthCoreMask {
 public:
  /// Receives each row's core cells (core[x] = 1) with its patch IDs, rows in
  /// order. Pointers valid during the call.
  using CoreRowFn = std::function<void(int64_t row, const uint32_t* pids, const uint8_t* core)>;

  /// `class_of_pid[pid]`: class index (below `classes`) of each patch (must
  /// outlive the mask); `depth_cells`: classes x (classes + 1) depths in
  /// cells by class index, row i the patch's class, column k the class
  /// beyond the edge, column `classes` the boundary's. Throws
  /// lsm::Error(BadInput) for a negative depth or one over 1000 cells.
  PairDepthCoreMask(int64_t width, int64_t height, const PagedArray<uint32_t>& class_of_pid, size_t classes,
                    std::vector<int> depth_cells, CoreRowFn emit);

  /// The classes a landscape border gives, as extra columns of the depths.
  struct BorderColumns {
    const LandscapeBorder* border = nullptr;  ///< kept within the largest depth of the landscape; must outlive the mask
    std::vector<int32_t> codes;               ///< ascending, every class of border->classes()
    std::vector<size_t> class_index;          ///< [j]: the patches' class index of codes[j], or SIZE_MAX
  };
  /// With a landscape border: `depth_cells` is then classes x (classes + 1 +
  /// border.codes.size()), border class j's depths in column classes + 1 + j.
  PairDepthCoreMask(int64_t width, int64_t height, const PagedArray<uint32_t>& class_of_pid, size_t classes,
                    std::vector<int> depth_cells, CoreRowFn emit, BorderColumns border);

  /// Row `y` of patch IDs (`width` of them, 0 = nodata); rows 0, 1, ... in order.
  void row(int64_t y, const uint32_t* pids);
  /// After the last row: decides the rows still waiting for rows below.
  void finish();

 private:
  void decide(int64_t c);
  bool is_core(int64_t c, int64_t x, uint32_t p) const;
  const int32_t* run_end_of(int64_t y) const { return run_end_ring_[static_cast<size_t>(y % run_end_ring_.size())].data(); }
  const uint32_t* pids_of(int64_t y) const { return ring_[static_cast<size_t>(y % ring_.size())].data(); }
  const int32_t* border_of(int64_t y) const { return border_ring_[static_cast<size_t>(y % border_ring_.size())].data(); }

  int64_t width_, height_;
  const PagedArray<uint32_t>& class_of_pid_;
  size_t classes_;
  BorderColumns border_;
  size_t columns_;              // classes + 1 + border classes
  std::vector<int> depth_;      // classes x columns_, cells
  std::vector<int> max_depth_;  // [class]: the largest depth of its row
  int reach_ = 0;               // the largest depth of all
  CoreRowFn emit_;
  std::vector<std::vector<uint32_t>> ring_;  // the last 2 x reach + 1 rows
  std::vector<std::vector<int32_t>> border_ring_;  // their border columns (border_class_row()), with a border
  std::vector<std::vector<int32_t>> run_end_ring_;  // their runs of one patch ID: the column each run ends at
  std::vector<std::vector<int64_t>> disc_;  // [class][|dy|]: half widths of the disc of the class's largest depth
  std::vector<uint8_t> core_;
  int64_t last_row_ = -1, decided_ = -1;
};

}  // namespace lsm
