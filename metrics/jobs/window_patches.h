#pragma once
// The patches of one moving window (window_job.h): the window's cells are
// labeled as a landscape of their own (FRAGSTATS' 4- or 8-cell rule, patches
// clipped to the window) and each class's patch sums gathered, patch by
// patch in the order of their first cell — the order of the PIDs the
// landscape job would give the window cut out alone, so that the sums
// (and the families' NP, PD, LPI, COHESION, DIVISION, MESH, SPLIT) are the
// same to the bit. Union-find over the window's cells: O(window cells) per
// focal cell (docs/WINDOW.md).
#include <cstdint>
#include <vector>

#include "fragstats_core_areas.h"
#include "open_patch_runs.h"
#include "patch_stats.h"

namespace lsm {

/// One class's patches in a window.
struct WindowClassPatches {
  int32_t class_index = -1;  ///< into the job's class codes
  uint64_t patches = 0;
  uint64_t largest = 0;      ///< cells of its largest patch
  double sp = 0;             ///< sum of perimeters (cell sides)
  double spa = 0;            ///< sum of perimeter x sqrt(cells)
  double sa2 = 0;            ///< sum of squared sizes (cells^2)
  uint64_t core_cells = 0;   ///< core cells its patches' counted core areas hold (with a core depth)
  uint64_t core_areas = 0;   ///< disjunct core areas counted
};

/// How a window's core areas are found (FRAGSTATS 4.2, "Core area
/// metrics"), as the landscape job finds them: the core cells farther than
/// `depth` cells from the patch's edge (core_area.h: every cell whose centre
/// lies within `depth` of the cell's is of its patch and inside the window),
/// and the disjunct core areas counted by `rule` (fragstats_core_areas.h).
struct WindowCoreRule {
  int depth = 0;  ///< 0: no core areas
  CoreAreaRule rule = CoreAreaRule::Fragstats;
  /// FRAGSTATS' edge depths per pair of classes (an edge depth file, in
  /// cells; pair_depth_core.h's rule): `classes` x (`classes` + 1) by class
  /// index, row i the patch's class, column k the class beyond, column
  /// `classes` the boundary's (outside the window, nodata). Null: `depth`
  /// for every pair. With them `depth` is at least their largest.
  const std::vector<int>* pair_depths = nullptr;
  size_t classes = 0;
};

/// One patch of a window, in first-cell order: what the patch table's
/// formulas of AREA, PARA, SHAPE, FRAC and CONTIG read (patch_columns.h).
struct WindowPatch {
  int32_t class_index = -1;
  uint64_t cells = 0;
  uint64_t perim_h = 0, perim_v = 0;  ///< top/bottom and left/right sides not shared with the patch
  uint64_t diagonal_pairs = 0;        ///< corner-touching cell pairs of the patch, each once
  uint64_t core_cells = 0;            ///< cells of its counted core areas
  uint64_t core_areas = 0;            ///< its counted disjunct core areas (NCORE)
};

/// Labels windows; keeps its scratch between calls (one per thread).
class WindowPatchLabeler {
 public:
  /// `cells`: the window's class indices, row-major, `rows` x `columns`,
  /// -1 for cells outside the window or the landscape. Returns the sums of
  /// every class with a patch, ascending class index.
  /// With `with_runs`, each patch's runs of cells are kept too (runs()).
  /// With a core rule's depth, each patch's core areas are counted too
  /// (core_area_cells()).
  const std::vector<WindowClassPatches>& label(const std::vector<int32_t>& cells, int64_t rows, int64_t columns,
                                               NeighbourRule rule, bool with_runs = false,
                                               const WindowCoreRule& core = {});
  /// The patches of the last label() call, in first-cell order.
  const std::vector<WindowPatch>& patches() const { return patches_; }
  /// Patch p's runs of cells (row, first and last column in the window), in
  /// raster order, as [begin, end) of the last label() call with runs.
  std::pair<const CellRun*, const CellRun*> runs(size_t p) const {
    return {run_cells_.data() + run_offsets_[p], run_cells_.data() + run_offsets_[p + 1]};
  }
  /// The cells of the last label() call with runs that have a 4-neighbour
  /// (in the window or beyond it) outside their patch — every cell that can
  /// be one end of the shortest distance between two patches (ENN):
  /// (patch, row, column) in raster order.
  struct EdgeCell {
    int32_t patch, row, column;
  };
  const std::vector<EdgeCell>& edge_cells() const { return edge_cells_; }
  /// The cells of each counted core area of the last label() call with a
  /// core depth, by patch (first-cell order), each patch's in the order its
  /// rule counts them: (patch, cells).
  const std::vector<std::pair<int32_t, uint64_t>>& core_area_cells() const { return core_area_cells_; }

 private:
  int32_t find(int32_t i);
  std::vector<int32_t> parent_;
  std::vector<int32_t> order_;      // per root: its patch's number in first-cell order, -1 before
  std::vector<WindowPatch> patches_;
  std::vector<std::pair<int32_t, CellRun>> raster_runs_;  // (patch, run) in raster order
  std::vector<CellRun> run_cells_;                       // by patch, each in raster order
  std::vector<size_t> run_offsets_;                       // patch p's runs: [run_offsets_[p], run_offsets_[p + 1])
  std::vector<size_t> scratch_offsets_;
  std::vector<EdgeCell> edge_cells_;
  void count_core_areas(const std::vector<int32_t>& cells, int64_t rows, int64_t columns, const WindowCoreRule& core);
  // The core cells with depths per pair of classes (core.pair_depths).
  void mark_pair_depth_core(const std::vector<int32_t>& cells, int64_t rows, int64_t columns, const WindowCoreRule& core);
  std::vector<uint8_t> core_;                                   // core cells of the window
  std::vector<int32_t> core_parent_;                            // union-find of core cells (rule All)
  std::vector<CellRun> core_runs_;
  std::vector<std::vector<CellRun>> core_runs_by_patch_;
  std::vector<std::pair<int32_t, uint64_t>> core_area_cells_;
  std::vector<WindowClassPatches> by_class_;
  std::vector<int32_t> slot_;       // class index -> entry of by_class_ (-1: none)
};

}  // namespace lsm
