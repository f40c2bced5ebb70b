#include "cell_geometry.h"

#include <algorithm>
#include <cmath>

#include "error.h"

namespace lsm {

CellGeometry::CellGeometry(const RasterInfo& info)
    : width_(info.cell_width),
      height_(info.cell_height),
      area_(info.cell_width * info.cell_height),
      min_width_(info.cell_width) {
  if (!info.geodesic) return;
  rows_ = info.geodesic.get();
  const size_t h = static_cast<size_t>(info.height);
  if (rows_->cell_area_m2.size() != h || rows_->side_v_m.size() != h || rows_->side_h_m.size() != h + 1)
    throw Error(ErrorKind::Internal, "geodesic row sizes do not match the raster's height");
  top_southing_.assign(h + 1, 0);
  for (size_t y = 0; y < h; ++y) top_southing_[y + 1] = top_southing_[y] + rows_->side_v_m[y];
  min_width_ = *std::min_element(rows_->side_h_m.begin(), rows_->side_h_m.end());
}

double CellGeometry::southing_m(double b) const {
  if (!rows_) return b * height_;
  const double last = static_cast<double>(rows_->side_v_m.size());
  b = std::clamp(b, 0.0, last);
  const size_t y = std::min(static_cast<size_t>(b), rows_->side_v_m.size() - 1);
  return top_southing_[y] + (b - static_cast<double>(y)) * rows_->side_v_m[y];
}

double CellGeometry::width_at_m(double b) const {
  if (!rows_) return width_;
  const double last = static_cast<double>(rows_->side_v_m.size());
  b = std::clamp(b, 0.0, last);
  const size_t y = std::min(static_cast<size_t>(b), rows_->side_v_m.size() - 1);
  const double f = b - static_cast<double>(y);
  return (1 - f) * rows_->side_h_m[y] + f * rows_->side_h_m[y + 1];
}

double CellGeometry::distance_m(double x1, double y1, double x2, double y2) const {
  if (!rows_) {
    const double dx = (x1 - x2) * width_, dy = (y1 - y2) * height_;
    return std::sqrt(dx * dx + dy * dy);
  }
  // Centres of rows lie half a row below their top boundary.
  const double dx = (x1 - x2) * width_at_m((y1 + y2) / 2 + 0.5);
  const double dy = southing_m(y1 + 0.5) - southing_m(y2 + 0.5);
  return std::sqrt(dx * dx + dy * dy);
}

void CellGeometry::corner_m(double x, double b, double x_ref, double& east, double& south) const {
  if (!rows_) {
    east = x * width_;
    south = b * height_;
    return;
  }
  east = (x - x_ref) * width_at_m(b);
  south = southing_m(b);
}

}  // namespace lsm
