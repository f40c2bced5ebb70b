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

int gyrate_fixed_exponent(int64_t width, int64_t height, double cell_width, double cell_height) {
  // An upper bound of the raster's diagonal, below 2^e.
  const double extent = static_cast<double>(width) * cell_width + static_cast<double>(height) * cell_height;
  int e = 0;
  std::frexp(std::max(extent, 1e-300), &e);
  return std::min(57 - e, 900);
}

double fragstats_gyrate_m(const std::vector<CellRun>& runs, const CellGeometry& geometry, int fixed_exponent) {
  if (runs.empty()) throw Error(ErrorKind::Internal, "fragstats_gyrate_m: a patch without cells");
  // Cells per row (runs arrive row by row) and per column (a difference array
  // over the patch's columns), in scratch kept per thread: a table has
  // millions of patches, most of a few cells.
  thread_local std::vector<std::pair<int64_t, uint64_t>> rows, cols;
  thread_local std::vector<int64_t> diff;
  rows.clear();
  cols.clear();
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
  diff.assign(static_cast<size_t>(col_max - col_min) + 2, 0);
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
    return sum / static_cast<double>(n);
  }
  // Planar: the exact sum of fixed-point terms, in any order the same.
  const double cw = geometry.side_h_m(0), ch = geometry.side_v_m(0);
  const double scale = std::ldexp(1.0, fixed_exponent);
  unsigned __int128 exact = 0;
  for (const CellRun& r : runs) {
    const double dy = (r.row - my) * ch, dy2 = dy * dy;
    for (int64_t x = r.x0; x <= r.x1; ++x) {
      const double dx = (static_cast<double>(x) - mx) * cw;
      exact += static_cast<uint64_t>(gyrate_fixed_term(std::sqrt(dx * dx + dy2), scale));
    }
  }
  return gyrate_from_fixed_sum(n, static_cast<uint64_t>(exact >> 64), static_cast<uint64_t>(exact), fixed_exponent, cw);
}

double gyrate_from_fixed_sum(uint64_t cells, uint64_t sum_high, uint64_t sum_low, int fixed_exponent,
                             double cell_width_m) {
  if (cells == 0) throw Error(ErrorKind::Internal, "GYRATE of a patch without cells");
  if (cells == 1) return cell_width_m / 2;  // FRAGSTATS prints half a cell width
  const unsigned __int128 exact = (static_cast<unsigned __int128>(sum_high) << 64) | sum_low;
  // The conversion rounds once; scaling by a power of two is exact.
  return std::ldexp(static_cast<double>(exact), -fixed_exponent) / static_cast<double>(cells);
}

}  // namespace lsm
