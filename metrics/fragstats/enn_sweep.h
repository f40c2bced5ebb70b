#pragma once
// Euclidean nearest-neighbour distance (ENN, FRAGSTATS 4.2 "Aggregation
// metrics: ENN") in memory independent of the raster's height and of the
// number of edge cells: for each patch, the shortest cell-centre to
// cell-centre distance to another patch of the same class.
//
// Only edge cells (a 4-neighbour inside the raster outside the patch) can
// realise that distance: from any other cell a step towards the target is
// strictly closer and stays in the patch. The distance of a pair is found
// from its lower cell by a downward sweep and from its upper cell by an
// upward one, so each patch's minimum is seen from its own cells:
//
// - Sweep down the rows. For every class and column keep the nearest site
//   (edge cell) at or above the current row and the nearest one of another
//   patch than that ("the two nearest distinct patches", as in the
//   k-nearest-label variant of a distance transform's column pass; Maurer et
//   al. 2003, Meijster et al. 2002 for the separable passes). For an edge
//   cell of patch P the nearest site of another patch in column c is then
//   the first of the two unless it belongs to P. Columns are searched
//   outwards from the cell's own column while the horizontal gap alone is
//   shorter than the best distance found for P so far.
// - Sweep up the rows the same way, reading the edge cells back in reverse
//   order from a scratch file (spill_file.h) written by the first sweep, or,
//   when the caller holds the patch IDs of the whole raster, finding them
//   again in its rows (no file).
//
// Exact: let (p, q) be the closest pair of patch P and another patch of its
// class. If q lies at or above p's row, then when the downward sweep reaches
// p, q's column holds a site of another patch than P at least as near
// vertically as q, and the outward search reaches that column unless it has
// found something as near already: it finds |p - q| or less, and every
// distance it finds is one to another patch. If q lies below, the upward
// sweep does the same from p. (tests/test_nearest_neighbour.cpp checks it
// against brute force on random and adversarial grids.)
//
// Time: per edge cell, the columns within the best distance found so far for
// its patch (shared by all its cells), in both sweeps; on land cover a few
// columns, and none once the patch's best is the least distance two patches
// of a class can have (a third to a half of the edge cells on land cover).
// It is not linear in the worst case: a patch whose nearest neighbour is far
// away costs each of its edge cells up to that distance in columns (bounded by the raster's width), e.g. a long comb 250 rows from
// its only neighbour (LongEdgeFarFromItsNeighbour).
//
// Memory: 16 bytes per column and class with two patches or more (allocated
// when the class's first edge cell arrives), 8 bytes per patch (on a scratch
// file beyond the paged policy's budget, paged_array.h), 8 per row; the edge
// cells (8 bytes each) go to the scratch file. Planar rasters only:
// geographic rasters keep nearest_neighbour.h (the nearest row of a column
// is not always the nearest point on the ellipsoid).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "paged_array.h"
#include "spill_file.h"
#include "patch_stats.h"

namespace lsm {

class EnnSweep {
 public:
  /// Row y of the raster's patch IDs (`width` of them), nullptr outside the raster.
  using PatchIdRows = std::function<const uint32_t*(int64_t y)>;

  /// `class_of_pid[pid]` = class index of each of the `n_patches` patches
  /// (index 0 unused; must outlive the sweep); `patches_in_class[k]` =
  /// patches of class index k; `rule`: the neighbour rule the patches were
  /// labeled with; cell sizes in m; `temp_dir` as temp_folder(); `paged`:
  /// where the per-patch distances go; `rows`: when the caller holds the
  /// raster's patch IDs (they must outlive the sweep), where the upward sweep
  /// reads them (then no scratch file is made); empty: the edge cells go to a
  /// scratch file. Throws lsm::Error(Io) when no scratch file can be made.
  EnnSweep(const uint32_t* class_of_pid, size_t n_patches, const std::vector<uint64_t>& patches_in_class,
           NeighbourRule rule, int64_t width, double cell_width, double cell_height, const std::string& temp_dir,
           const PagedPolicy& paged = {}, PatchIdRows rows = {});

  /// Row `y` of patch IDs with the rows above and below (nullptr beyond the
  /// raster's edge); rows in order 0, 1, ...
  void add_row(int64_t y, const uint32_t* above, const uint32_t* row, const uint32_t* below);

  /// After the last row: runs the upward sweep, then calls put(PID - 1, ENN
  /// in metres) for every patch in PID order (NaN when its class has no
  /// other patch), and frees the sweep's memory.
  void distances(const std::function<void(size_t, double)>& put);

 private:
  // An edge cell: its column, and whether it is searched in either sweep.
  static constexpr uint32_t kQueryDown = 1u << 31, kQueryUp = 1u << 30, kColumnMask = kQueryUp - 1;
  struct Site {
    uint32_t flags;  // column | kQueryDown | kQueryUp
    uint32_t pid;
    size_t column() const { return flags & kColumnMask; }
  };
  // The nearest two sites of distinct patches in one column of one class
  // (label 0: none): r1/l1 the nearest, r2/l2 the nearest of another patch.
  struct ColumnSites {
    int32_t r1 = 0, r2 = 0;
    uint32_t l1 = 0, l2 = 0;
  };
  void reset_columns();
  // A row's edge cells into `sites` (cleared first), with the flags of the
  // sweeps that search them, from the row and the rows above and below it.
  void find_sites(const uint32_t* above, const uint32_t* row, const uint32_t* below, std::vector<Site>& sites) const;
  // Row y's sites in [first, last) of the classes k with k % parts == part:
  // each enters its column, then those with the flag `query` are searched.
  void sweep_row(int64_t y, const Site* first, const Site* last, uint32_t part, uint32_t parts, uint32_t query);
  double nearest_other(uint32_t k, int64_t x, int64_t y, uint32_t pid, double best) const;

  const uint32_t* class_of_pid_;
  // The least squared distance (m2) two patches of one class can lie apart
  // under the neighbour rule, rounded as a search rounds it: cells of one
  // class that are neighbours are one patch, so the nearest other cell is 2
  // cells away in a row or column (8-cell rule), or 1 diagonally (4-cell
  // rule). A patch whose ENN so far is this cannot get nearer: its cells are
  // no longer searched.
  double least_d2_;
  std::vector<uint8_t> wanted_;                    // per class: at least two patches
  int64_t width_;
  double cell_width_, cell_height_;
  std::vector<std::vector<ColumnSites>> columns_;  // per class (empty until its first site)
  std::vector<uint32_t> first_label_;              // per class: the first patch seen in this sweep
  std::vector<uint8_t> mixed_;                     // per class: a second patch seen in this sweep
  // Per PID-1: squared ENN so far (m2), 0 = none yet (patches are distinct
  // cells, so a found distance is never 0; zero is what a new page holds).
  PagedArray<double> best2_;
  std::vector<Site> sites_;                        // the current row's edge cells
  PatchIdRows rows_;                               // the caller's patch IDs, or empty
  std::optional<SpillFile> spill_;                 // the edge cells, when rows_ is empty
  std::vector<uint64_t> row_start_;                // sites before each row in the scratch file
  int64_t height_ = 0;                             // rows added
};

}  // namespace lsm
