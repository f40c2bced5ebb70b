#pragma once
// The circumscribing circle of a patch, for CIRCLE (FRAGSTATS 4.2, "Shape
// Metrics": 1 - patch area / area of the circumscribing circle). The circle
// depends only on the patch's cell corners on its convex hull. The hull is
// built row by row while the rows stream past, so no patch is ever held whole.
#include <cstdint>
#include <vector>

namespace lsm {

/// Convex hull of a patch's cells, fed one raster row at a time in increasing
/// row order. Coordinates are cell-corner indices (integers): the cell at
/// column x, row y spans [x, x+1] x [y, y+1]. Memory: the hull's vertices.
class RowConvexHull {
 public:
  /// Adds row `y` of the patch, whose cells span columns [x_first, x_last].
  /// Rows must arrive in increasing order, each at most once.
  void add_row(int64_t y, int64_t x_first, int64_t x_last);
  /// Corner points (x, y) that include every vertex of the hull (in no
  /// particular order), into `out` (its memory reused).
  void points(std::vector<std::pair<int64_t, int64_t>>& out) const;
  /// Forgets every row, keeping small buffers for the next patch (see reset_slot(), open_patch_runs.h).
  void reset();

 private:
  struct Level { int64_t y, left, right; };
  void push_level(const Level& l);
  bool has_pending_ = false;
  Level pending_{};  // the bottom corners of the last row, not yet final
  std::vector<std::pair<int64_t, int64_t>> left_, right_;  // (y, x) convex chains
};

/// Half the largest distance between two of `points` (x, y in metres): the
/// circle FRAGSTATS' CIRCLE uses (its output matches the patch's longest
/// corner-to-corner extent as diameter, not the smallest enclosing circle;
/// docs/metrics.md). 0 for fewer than 2 points.
double half_diameter(const std::vector<std::pair<double, double>>& points);

}  // namespace lsm
