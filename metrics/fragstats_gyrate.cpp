#include "fragstats_gyrate.h"

#include <algorithm>
#include <cmath>

#include "error.h"

namespace lsm {

GyrateRule parse_gyrate_rule(const std::string& text) {
  if (text == "fragstats") return GyrateRule::Fragstats;
  if (text == "centroid") return GyrateRule::Centroid;
  throw Error(ErrorKind::BadInput, "unknown GYRATE rule '" + text + "' (fragstats or centroid)");
}

double area_median(const std::vector<std::pair<int64_t, uint64_t>>& counts, uint64_t n) {
  const double half = static_cast<double>(n) / 2;
  uint64_t below = 0;
  for (const auto& [u, k] : counts) {
    if (static_cast<double>(below + k) >= half)
      return static_cast<double>(u) - 0.5 + (half - static_cast<double>(below)) / static_cast<double>(k);
    below += k;
  }
  throw Error(ErrorKind::Internal, "area_median: counts do not add up to n");
}

double fragstats_gyrate_m(const std::vector<CellRun>& runs, const CellGeometry& geometry) {
  if (runs.empty()) throw Error(ErrorKind::Internal, "fragstats_gyrate_m: a patch without cells");
  // Cells per row (runs arrive row by row) and per column (a difference array over the patch's columns).
  std::vector<std::pair<int64_t, uint64_t>> rows, cols;
  int32_t col_min = INT32_MAX, col_max = INT32_MIN;
  uint64_t n = 0;
  for (const CellRun& r : runs) {
    const uint64_t k = static_cast<uint64_t>(r.x1 - r.x0 + 1);
    n += k;
    if (rows.empty() || rows.back().first != r.row) rows.emplace_back(r.row, 0);
    rows.back().second += k;
    col_min = std::min(col_min, r.x0);
    col_max = std::max(col_max, r.x1);
  }
  if (n == 1) return geometry.width_at_m(runs[0].row + 0.5) / 2;  // FRAGSTATS prints half a cell width
  std::vector<int64_t> diff(static_cast<size_t>(col_max - col_min) + 2, 0);
  for (const CellRun& r : runs) {
    ++diff[static_cast<size_t>(r.x0 - col_min)];
    --diff[static_cast<size_t>(r.x1 - col_min) + 1];
  }
  int64_t k = 0;
  for (int64_t x = col_min; x <= col_max; ++x) {
    k += diff[static_cast<size_t>(x - col_min)];
    if (k > 0) cols.emplace_back(x, static_cast<uint64_t>(k));
  }
  const double my = area_median(rows, n), mx = area_median(cols, n);
  double sum = 0;
  if (geometry.geodesic()) {
    for (const CellRun& r : runs)
      for (int64_t x = r.x0; x <= r.x1; ++x) sum += geometry.distance_m(static_cast<double>(x), r.row, mx, my);
  } else {
    const double cw = geometry.side_h_m(0), ch = geometry.side_v_m(0);
    for (const CellRun& r : runs) {
      const double dy = (r.row - my) * ch, dy2 = dy * dy;
      for (int64_t x = r.x0; x <= r.x1; ++x) {
        const double dx = (static_cast<double>(x) - mx) * cw;
        sum += std::sqrt(dx * dx + dy2);
      }
    }
  }
  return sum / static_cast<double>(n);
}

}  // namespace lsm
