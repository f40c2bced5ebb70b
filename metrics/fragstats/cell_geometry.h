#pragma once
// Cell sizes and distances in metres, for the metrics' second pass.
//
// Projected rasters (and rasters without a CRS) have one cell size; the
// results are the cell counts times that size, as FRAGSTATS computes them.
// Rasters in a geographic CRS carry GeodesicRows: every cell area and side
// length is then the one measured on the ellipsoid for its row, and a
// distance between two cell centres (GYRATE, ENN, CIRCLE) is measured in the
// local plane of the pair: the row difference as the meridian arc between the
// two rows, the column difference as the cell width at the pair's middle row
// (an equirectangular approximation whose relative error is of the order of
// (distance / earth radius)^2, far below a cell for any landscape).
#include <cstdint>
#include <vector>

#include "raster.h"

namespace lsm {

class CellGeometry {
 public:
  explicit CellGeometry(const RasterInfo& info);

  /// True when the raster carries per-row sizes on the ellipsoid.
  bool geodesic() const { return rows_ != nullptr; }
  /// Area of one cell of row `y` (m2).
  double cell_area_m2(int64_t y) const { return rows_ ? rows_->cell_area_m2[static_cast<size_t>(y)] : area_; }
  /// Length of a top/bottom cell side on row boundary `b` (0 = top of row 0), m.
  double side_h_m(int64_t b) const { return rows_ ? rows_->side_h_m[static_cast<size_t>(b)] : width_; }
  /// Length of a left/right cell side in row `y`, m.
  double side_v_m(int64_t y) const { return rows_ ? rows_->side_v_m[static_cast<size_t>(y)] : height_; }

  /// Distance in metres between the cell-centre positions (x1, y1) and
  /// (x2, y2), in cell indices (the centre of cell (column c, row r) is at
  /// (c, r); fractional positions such as centroids are allowed).
  double distance_m(double x1, double y1, double x2, double y2) const;
  /// Position in metres of the cell corner (column boundary `x`, row boundary
  /// `b`) in a local plane whose east origin is column boundary `x_ref`:
  /// exact cell sizes along the row and along the meridian, for the small
  /// extent of one patch (CIRCLE).
  void corner_m(double x, double b, double x_ref, double& east, double& south) const;
  /// The smallest cell width in the raster (m): a lower bound of the
  /// east-west distance per column anywhere, for pruning nearest-neighbour searches.
  double min_width_m() const { return min_width_; }
  /// Distance along the meridian from the top of the raster to row boundary
  /// position `b` (cells, fractional allowed), m.
  double southing_m(double b) const;
  /// Width of a cell at row boundary position `b` (fractional allowed), m.
  double width_at_m(double b) const;

 private:
  const GeodesicRows* rows_ = nullptr;
  double width_ = 1, height_ = 1, area_ = 1, min_width_ = 1;
  std::vector<double> top_southing_;  // [height + 1]: southing of each row boundary
};

}  // namespace lsm
