#pragma once
// One overview cell, the same on the CPU and the GPU (overviews.h). The
// source window of overview cell d along an axis is GDAL's: from
// floor(d r + 1e-8) to ceil((d + 1) r - 1e-8) (at least one cell, clamped),
// with r = source size / overview size (2 for even sizes; a little less for
// odd ones, where windows reach 3 cells). The average weights the window's
// first and last cells by the part of them the overview cell covers, as GDAL
// does; both reductions skip NaN (nodata).
#include <math.h>

#include "kmeans_math.h"  // add, mul, LSM_HOST_DEVICE

namespace lsm::overview_math {

/// An axis of a level: the source window and the edge weights of each cell.
struct AxisWindow {
  long long lo, hi;          ///< source cells [lo, hi)
  double first_w, last_w;    ///< weights of cells lo and hi - 1 (1 inside)
};

LSM_HOST_DEVICE inline AxisWindow axis_window(long long d, double ratio, long long source_size) {
  const double a = kmeans_math::mul(static_cast<double>(d), ratio);
  const double b = kmeans_math::mul(static_cast<double>(d + 1), ratio);
  AxisWindow w;
  w.lo = static_cast<long long>(kmeans_math::add(a, 1e-8));
  w.hi = static_cast<long long>(ceil(kmeans_math::add(b, -1e-8)));
  if (w.hi == w.lo) ++w.hi;
  if (w.hi > source_size) w.hi = source_size;
  w.first_w = w.hi == w.lo + 1 ? 1.0 : 1.0 - (a - static_cast<double>(w.lo));
  w.last_w = 1.0 - (static_cast<double>(w.hi) - b);
  return w;
}

/// The weighted mean of the non-NaN source cells of the window, NaN if none.
/// `rows` points at source row `row0` of a full-width strip.
LSM_HOST_DEVICE inline float average(const float* rows, long long row0, long long width, const AxisWindow& wx,
                                     const AxisWindow& wy) {
  double total = 0, weight = 0;
  const float first = rows[(wy.lo - row0) * width + wx.lo];
  for (long long y = wy.lo; y < wy.hi; ++y) {
    const double w_y = y == wy.lo ? wy.first_w : y + 1 == wy.hi ? wy.last_w : 1.0;
    for (long long x = wx.lo; x < wx.hi; ++x) {
      const float v = rows[(y - row0) * width + x];
      if (v != v) continue;
      const double w = kmeans_math::mul(w_y, x == wx.lo ? wx.first_w : x + 1 == wx.hi ? wx.last_w : 1.0);
      total = kmeans_math::add(total, kmeans_math::mul(static_cast<double>(v), w));
      weight = kmeans_math::add(weight, w);
    }
  }
  return weight > 0 ? static_cast<float>(total / weight) : first;  // no data: `first` is NaN
}

/// The most frequent non-NaN value of the window (row-major scan); of tied
/// values the one whose count first exceeds the best so far, as GDAL's mode
/// counts while it scans. NaN if none. Windows hold at most 3 x 3 cells.
LSM_HOST_DEVICE inline float mode(const float* rows, long long row0, long long width, const AxisWindow& wx,
                                  const AxisWindow& wy) {
  float seen[9];
  int n = 0, best = -1, best_count = 0;
  for (long long y = wy.lo; y < wy.hi; ++y)
    for (long long x = wx.lo; x < wx.hi; ++x) {
      const float v = rows[(y - row0) * width + x];
      if (v != v || n >= 9) continue;
      seen[n] = v;
      int count = 0;
      for (int j = 0; j <= n; ++j) count += seen[j] == v;
      if (count > best_count) {
        best = n;
        best_count = count;
      }
      ++n;
    }
  return best < 0 ? rows[(wy.lo - row0) * width + wx.lo] : seen[best];  // all NaN: that NaN
}

}  // namespace lsm::overview_math
