#pragma once
// FRAGSTATS' proximity index (FRAGSTATS 4.2, "Aggregation metrics": P2
// PROX): for each patch ij, the sum over the other patches s of its class
// within the search radius R of a_ijs / h_ijs^2, where h_ijs is the
// edge-to-edge distance of the two patches from cell centre to cell centre
// (as ENN's) and a_ijs the area of patch s "within the specified
// neighborhood of patch ij": lsm counts the cells of s whose centre is
// within R of the centre of some cell of ij. A patch s is a neighbour when
// h_ijs <= R. Distances are compared as (dx w)^2 + (dy h)^2 <= R^2 (dx, dy
// in cells, w x h the cell size), so a distance equal to R counts.
//
// Rows arrive in order; each is cut into runs of one patch. A row is
// processed once the rows within reach below it have arrived (the reach:
// the rows whose vertical distance alone is within R): each run s of patch
// Q there is compared with the runs of its class in the rows within reach
// above and below. A run r of patch P covers, within s, the columns within
// the largest horizontal gap allowed at their row distance; the union of
// what P's runs cover is Q's area in P's neighbourhood on that row, and
// the nearest pair of runs gives h. A pair is complete once the row reach
// rows below the lower of the two patches' last rows is processed (no cell
// of one is within R of the other after it): it then adds a_PQ / h_PQ^2 to
// P's index, the pairs completed by one row in ascending (Q, P), so the sums
// are the same bits for every tile grid.
//
// The runs of a row are compared on all cores (OpenMP), and their pairs
// updated there too, sharded by neighbour patch.
//
// Memory: the runs of the 2 x reach + 1 rows in the band (16 bytes each) and
// the pairs of patches both within reach of the row processed (about 80
// bytes each, in hash tables); the index per patch (8 bytes, paged). Time: per run, a binary search in each
// of the band's rows and one step per run of its class within R; it grows
// with R / h rows times the runs of the class within R of the run.
// Planar rasters only.
//
// SIMI (FRAGSTATS 4.2, P3 "Similarity index") is the same sum over the
// patches of every class, each term weighted by the similarity d_ik of the
// focal patch's class i and the neighbour's class k: given similarity
// weights, the sweep also seeks, for a run of class k, the runs of every
// class i with d_ik > 0 (so its cost grows with the number of such class
// pairs), and gives PROX (the pairs of one class) and SIMI together.
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "paged_array.h"
#include "patch_runs_within.h"

namespace lsm {

class ProximitySweep {
 public:
  /// `class_of_pid[pid]`, `last_row_of_pid[pid]`: class index (below
  /// `classes`) and last row of each of the `patches` patches (index 0
  /// unused; both must outlive the sweep); `width`: cells per row; cell size and `radius_m` in m;
  /// `paged`: where the per-patch indices go; `similarity`: for SIMI, the
  /// `classes` x `classes` weights d_ik by class index (row i the focal
  /// patch's class), or null. Throws lsm::Error(BadInput)
  /// for a radius that is not a positive finite number, or that reaches more
  /// than 2^20 rows or columns.
  ProximitySweep(const PagedArray<uint32_t>& class_of_pid, const PagedArray<uint32_t>& last_row_of_pid,
                 size_t patches, size_t classes, int64_t width, double cell_width, double cell_height,
                 double radius_m, const PagedPolicy& paged = {}, const std::vector<double>* similarity = nullptr);

  /// Row `y` of patch IDs (`width` of them, 0 = nodata); rows 0, 1, ... in order.
  void row(int64_t y, const uint32_t* pids);
  /// After the last row: processes the rows still waiting for rows below.
  void finish();

  /// PROX of patch PID-1 (0 without a neighbour within R), after finish().
  PagedArray<double>& index() { return prox_; }
  /// SIMI of patch PID-1 (0 without a similar neighbour within R), after
  /// finish(); empty without similarity weights.
  PagedArray<double>& similarity_index() { return simi_; }

 private:
  struct Pair {
    uint64_t cells = 0;  // cells of the neighbour within R of the focal patch
    double h2 = 0;       // squared distance of the nearest pair of cells, m2
  };
  struct Cover {
    uint32_t focal;
    int32_t x0, x1;  // the columns of the run it covers
    double h2;
  };
  struct Found {  // what a neighbour's run gives one focal patch
    uint32_t focal;
    uint64_t cells;
    double h2;
  };
  void covers_of(const PatchRun& s, int64_t c, std::vector<Cover>& covers, std::vector<Found>& found) const;
  const std::vector<PatchRun>& runs_of(int64_t y) const { return band_[static_cast<size_t>(y % band_.size())]; }
  void process(int64_t c);
  void complete_pairs(int64_t c);

  const PagedArray<uint32_t>& class_of_pid_;
  const PagedArray<uint32_t>& last_row_of_pid_;
  int64_t width_;
  double cell_width_, cell_height_;
  std::vector<int64_t> max_gap_;        // [dy]: the largest column gap within R at dy rows
  std::vector<std::vector<PatchRun>> band_;  // runs of rows, ring of 2 x reach + 1, sorted by (class, column)
  int64_t last_row_ = -1, processed_ = -1;
  // The open pairs, sharded by neighbour so that a row's updates (each
  // commutative: a sum of cells, a minimum) run on all cores.
  struct Shard {
    std::unordered_map<uint64_t, Pair> pairs;            // (neighbour << 32) | focal
    std::map<int64_t, std::vector<uint64_t>> complete;  // row -> the pairs complete once it is processed
  };
  static constexpr size_t kShards = 64;
  std::vector<Shard> shards_;
  std::vector<uint64_t> done_;  // the pairs a row completes, reused
  std::vector<std::vector<Found>> found_;               // per run of the row processed, reused
  std::vector<std::vector<uint32_t>> focal_classes_;  // [neighbour class]: the focal classes that count it
  std::vector<double> similarity_;                    // classes_^2 weights d_ik, or empty
  size_t classes_ = 0;
  PagedArray<double> prox_, simi_;
};

}  // namespace lsm
