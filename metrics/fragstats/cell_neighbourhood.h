#pragma once
// The per-cell neighbourhood tests of the second pass, on a patch-ID raster
// held in memory: CONTIG's diagonal pairs, the class adjacency counts and the
// core-cell test of the edge depth. They are independent per cell, so they
// run data-parallel: on CPU threads (the reference, below) or on the GPU
// (cuda/cell_neighbourhood_cuda.h). Both give identical integer results.
// The GPU backend also searches ENN (cuda/nearest_patch_cuda.h), computes
// GYRATE under FRAGSTATS' rule and the patches' row extents for CIRCLE
// (cuda/patch_rows_cuda.h), bit for bit equal to the CPU's; the row-ordered
// work that remains (the disjunct core areas, and ENN, GYRATE and CIRCLE's
// hulls on the CPU) runs in patch_row_metrics.cpp.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tile_labeler.h"

namespace lsm {

/// Input: a width x height patch-ID raster (row-major, 0 = nodata), the class
/// index of each PID (class_of_pid[pid], index 0 unused) and the number of classes.
struct PatchIdRaster {
  const uint32_t* pids = nullptr;
  int64_t width = 0, height = 0;
  const std::vector<uint32_t>* class_of_pid = nullptr;
  size_t classes = 0;
  /// Also search ENN (NeighbourhoodCounts::enn_squared) where the backend
  /// can (NeighbourhoodCounter::computes_enn), with these cell sizes in m.
  bool with_enn = false;
  /// Also GYRATE under FRAGSTATS' rule (NeighbourhoodCounts::gyrate_m) where
  /// the backend can (computes_gyrate); planar rasters, these cell sizes.
  bool with_gyrate = false;
  /// Also each patch's row extents (NeighbourhoodCounts::row_extents) where
  /// the backend can (computes_row_extents).
  bool with_row_extents = false;
  double cell_width = 1, cell_height = 1;
};

/// Each patch's extent in each of its rows, CIRCLE's input: patch PID - 1 = i
/// has rows first_row[i], first_row[i] + 1, ..., one entry each in `left`
/// and `right` (the columns of its first and last cell in that row) from
/// first_entry[i] to first_entry[i + 1] - 1 (PIDs + 1 entries).
struct PatchRowExtents {
  std::vector<uint32_t> first_row;
  std::vector<uint64_t> first_entry;
  std::vector<uint32_t> left, right;
};

/// Results, with the definitions of patch_row_metrics.h.
struct NeighbourhoodCounts {
  std::vector<uint64_t> diagonal_pairs;  ///< [pid-1]: corner-touching cell pairs of the patch, each once
  std::vector<uint64_t> sides_h, sides_v;  ///< classes x classes, double count (ClassAdjacency)
  /// [cell]: 1 when the cell is core for edge depth `depth` (core_area.h's rule), else 0.
  std::vector<uint8_t> core;
  /// [pid-1]: the squared ENN in m2 (FRAGSTATS 4.2 "ENN", enn_sweep.h's
  /// definition), +infinity when the class has no other patch. Filled only
  /// when PatchIdRaster::with_enn and computes_enn(); empty otherwise.
  std::vector<double> enn_squared;
  /// [pid-1]: GYRATE (m) under FRAGSTATS' rule, equal to fragstats_gyrate_m()
  /// with gyrate_fixed_exponent() of the raster. Filled only when
  /// PatchIdRaster::with_gyrate and computes_gyrate(); empty otherwise.
  std::vector<double> gyrate_m;
  /// Filled only when PatchIdRaster::with_row_extents and computes_row_extents().
  PatchRowExtents row_extents;
};

/// One backend of the neighbourhood tests. Not thread-safe.
class NeighbourhoodCounter {
 public:
  virtual ~NeighbourhoodCounter() = default;
  virtual std::string name() const = 0;
  /// Fills `out` (resized) for edge depth `depth` >= 1. Throws lsm::Error.
  virtual void count(const PatchIdRaster& raster, int depth, NeighbourhoodCounts& out) = 0;
  /// Whether count() searches ENN for this raster when asked (planar cell
  /// sizes). The CPU's sweep runs as a row visitor instead, concurrently with
  /// the others, so the CPU counter says no.
  virtual bool computes_enn(const PatchIdRaster&) const { return false; }
  /// Whether count() computes GYRATE when asked (as computes_enn()).
  virtual bool computes_gyrate(const PatchIdRaster&) const { return false; }
  /// Whether count() gives the patches' row extents when asked.
  virtual bool computes_row_extents(const PatchIdRaster&) const { return false; }
};

/// The multithreaded CPU reference (OpenMP over rows).
std::unique_ptr<NeighbourhoodCounter> make_cpu_neighbourhood_counter();
/// The counter of `backend` (Auto as make_labeler() picks). Throws
/// lsm::Error(Backend) when CUDA is asked for but unavailable.
std::unique_ptr<NeighbourhoodCounter> make_neighbourhood_counter(Backend backend);
/// The counter of the second pass after `labeler`'s scan: the GPU's when the
/// labels come from CUDA (one GPU, or several through a SplitTileLabeler of
/// CUDA workers), none on the CPU, where the row visitors do the tests
/// (RowMetricOptions::counter). Decided by the labeler's backend(), not its name.
std::unique_ptr<NeighbourhoodCounter> second_pass_counter(const TileLabeler& labeler);

/// The neighbourhood counts of one run: cells x0..x1 of patch `p` (class
/// index `ci`) in a row `row` of `width` cells, with the row above (`above`,
/// nullptr on the first row). Adds the run's adjacencies to `sides_h` and
/// `sides_v` (classes x classes, `classes` wide; its right and upper
/// neighbours, entered from both sides) and returns its diagonal pairs with
/// the row above. Shared by the CPU counter and the streaming row visitor.
inline uint64_t count_run_neighbourhood(const uint32_t* row, const uint32_t* above, int64_t width, int64_t x0,
                                        int64_t x1, uint32_t p, uint32_t ci, const uint32_t* class_of_pid,
                                        size_t classes, uint64_t* sides_h, uint64_t* sides_v) {
  const size_t k = classes;
  sides_v[ci * k + ci] += 2 * static_cast<uint64_t>(x1 - x0);  // like sides inside the run
  if (x1 + 1 < width && row[x1 + 1]) {
    const uint32_t cj = class_of_pid[row[x1 + 1]];
    ++sides_v[ci * k + cj];
    ++sides_v[cj * k + ci];
  }
  if (!above) return 0;
  uint64_t diagonal = 0;
  for (int64_t x = x0; x <= x1; ++x) {
    diagonal += (x > 0 && above[x - 1] == p) + (x + 1 < width && above[x + 1] == p);
    if (const uint32_t q = above[x]) {
      const uint32_t cj = class_of_pid[q];
      ++sides_h[ci * k + cj];
      ++sides_h[cj * k + ci];
    }
  }
  return diagonal;
}

/// Half-widths of the edge-depth disc per row offset |dy| = 0..depth: the
/// cells within `depth` cells (Euclidean, centre to centre) of a cell.
std::vector<int32_t> edge_depth_reach(int depth);

}  // namespace lsm
