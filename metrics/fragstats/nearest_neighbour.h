#pragma once
// Euclidean nearest-neighbour distance (ENN, FRAGSTATS 4.2 "Aggregation
// Metrics"): for each patch, the shortest cell-centre to cell-centre distance
// to another patch of the same class.
//
// Only cells with an edge neighbour (inside the raster) outside their patch
// can realise that distance: from any other cell, a step towards the target
// cell is strictly closer and stays in the patch. Those edge cells are
// collected while the rows stream past and searched per class with a k-d
// tree whose nodes know when all their cells belong to one patch, so a
// patch's own cells are skipped in bulk. Exact for any tile grid, and for
// distances on the ellipsoid (CellGeometry::distance_m). Memory: 16 bytes per
// edge cell of classes with at least two patches (about 50 with the tree),
// so it serves geographic rasters only; projected rasters take the two
// sweeps of enn_sweep.h, whose memory does not grow with the edge cells.
#include <cstdint>
#include <vector>

#include "cell_geometry.h"

namespace lsm {

class NearestNeighbourIndex {
 public:
  /// `class_of_pid[pid]` = class index of each patch (index 0 unused);
  /// `patches_in_class[k]` = number of patches of class index k.
  NearestNeighbourIndex(std::vector<uint32_t> class_of_pid, const std::vector<uint64_t>& patches_in_class);

  /// Records the edge cells of row `y`; `above`/`below` are the neighbouring
  /// rows (nullptr beyond the raster's edge).
  void add_row(int64_t y, int64_t width, const uint32_t* above, const uint32_t* row, const uint32_t* below);

  /// ENN of every patch in metres, indexed by PID-1; NaN when the class has
  /// no other patch. Distances as `geometry` measures them.
  std::vector<double> distances(const CellGeometry& geometry) const;

 private:
  struct EdgeCell { int32_t x, y; uint32_t pid; uint32_t pad; };
  std::vector<uint32_t> class_of_pid_;
  std::vector<uint8_t> wanted_;                 // per class: at least two patches
  std::vector<std::vector<EdgeCell>> cells_;    // per class
};

}  // namespace lsm
