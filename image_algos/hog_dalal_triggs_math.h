#pragma once
// The arithmetic of HOG's Dalal-Triggs variant (`lsm hog --variant
// dalal-triggs`), shared by the CPU and CUDA passes: Dalal & Triggs (2005),
// "Histograms of oriented gradients for human detection", CVPR, sec. 6.2-6.4,
// with the constants of OpenCV's cv::HOGDescriptor (objdetect/src/hog.cpp,
// 4.x), so that the descriptors equal OpenCV's up to OpenCV's approximate
// atan2 (cv::cartToPolar, about 1e-4 in a normalised value):
//   * gradients by central differences, zero on the image's first and last
//     rows and columns (OpenCV's reflect-101 border gives the same); for
//     3 bands, the band with the largest squared magnitude, B then G then R
//     on ties (OpenCV's BGR channel order, strict comparison);
//   * magnitude sqrt(g_col^2 + g_row^2), angle atan2(g_row, g_col) in
//     [0, 2 pi); a = angle * bins / period - 0.5 (period pi, or 2 pi when
//     signed): the vote goes to bins floor(a) and floor(a) + 1 (mod bins)
//     with weights 1 - frac(a) and frac(a) (bins centred on (i + 0.5) * width);
//   * in a block of side s = block * cell pixels, pixel (i, j) weighs
//     G(i) G(j) * W_k(i) W_l(j) into the block's cell (k, l): G(t) =
//     exp(-(t - s/2)^2 / (2 sigma^2)) (OpenCV's window: centred on pixel s/2,
//     sigma = s / 4 by default), W_k(t) = max(0, 1 - |(t + 0.5) / cell - 0.5 - k|)
//     (bilinear in the cell centres, cells outside the block dropped);
//   * every product and sum rounded once in double (no FMA), each cell's
//     bins summed over the block's pixels in row-major order;
//   * L2-Hys as OpenCV: v / (|v|_2 + 0.1 n), clipped at 0.2, then
//     v / (|v|_2 + 1e-3); L1, L1-sqrt and L2 as the skimage variant (hog_math.h).
#include <cmath>
#include <cstdint>

#include "hog_math.h"
#include "kmeans_math.h"  // LSM_HOST_DEVICE, round-to-nearest add/mul

namespace lsm::dalal_triggs {

/// The block window along one axis, computed once on the host and used by
/// every backend: local pixel t of a block (0 <= t < side) weighs
/// `first_weight[t]` into cell `first_cell[t]` and `next_weight[t]` into cell
/// first_cell[t] + 1 (a weight is zero for a cell outside the block). Each
/// weight is G(t) * W(t). Plain pointers so that device copies can be viewed.
struct WindowView {
  const int* first_cell;
  const double* first_weight;
  const double* next_weight;
};

/// A pixel's orientation vote: `lower` into `bin`, `upper` into bin + 1
/// (mod bins); bin = -1 for nodata (both NaN).
struct Vote {
  int bin;
  double lower, upper;
};

/// The vote of a pixel with gradient (g_row, g_col). `angle_scale` = bins /
/// period in radians (computed on the host, so identical everywhere).
LSM_HOST_DEVICE inline Vote vote(double g_row, double g_col, int bins, double angle_scale) {
  using kmeans_math::add;
  using kmeans_math::mul;
  const double magnitude = ::sqrt(add(mul(g_col, g_col), mul(g_row, g_row)));
  double angle = ::atan2(g_row, g_col);
  if (!(magnitude == magnitude) || !(angle == angle)) return Vote{-1, magnitude + angle, magnitude + angle};
  if (angle < 0) angle = add(angle, 2 * 3.14159265358979323846);
  const double a = add(mul(angle, angle_scale), -0.5);
  const double floor_a = ::floor(a);
  const double frac = add(a, -floor_a);
  int bin = static_cast<int>(floor_a) % bins;  // floor_a in [-1, 2 bins]
  if (bin < 0) bin += bins;
  return Vote{bin, mul(magnitude, add(1.0, -frac)), mul(magnitude, frac)};
}

/// The gradient of the band with the largest squared magnitude among
/// `bands` (1 or 3) planes at the same pixel, B then G then R on ties.
/// `row_step`, `col_step`: 0 on the image's edges (the gradient is 0 there),
/// else the plane's row stride and 1.
LSM_HOST_DEVICE inline Vote pixel_vote(const double* const* planes, int bands, int64_t at, int64_t row_step,
                                       int64_t col_step, int bins, double angle_scale) {
  using kmeans_math::add;
  using kmeans_math::mul;
  double best_row = 0, best_col = 0, best = -1;
  for (int b = bands - 1; b >= 0; --b) {
    const double* p = planes[b] + at;
    const double g_row = row_step ? add(p[row_step], -p[-row_step]) : 0.0;
    const double g_col = col_step ? add(p[col_step], -p[-col_step]) : 0.0;
    const double squared = add(mul(g_col, g_col), mul(g_row, g_row));
    if (squared > best || best < 0 || !(squared == squared)) {
      best = squared;
      best_row = g_row;
      best_col = g_col;
      if (!(squared == squared)) break;  // nodata in any band makes the pixel nodata
    }
  }
  return vote(best_row, best_col, bins, angle_scale);
}

/// The weight of local pixel t of a block into the block's cell k along one
/// axis (0 when k is not one of the pixel's two cells).
LSM_HOST_DEVICE inline double axis_weight(const WindowView& w, int t, int k) {
  return w.first_cell[t] == k ? w.first_weight[t] : w.first_cell[t] + 1 == k ? w.next_weight[t] : 0.0;
}

/// The un-normalised `bins` values of cell (ky, kx) of the block whose top
/// left pixel is (row0, col0) in the vote planes (row stride `width`),
/// summed over the pixels of the block that weigh into it, row-major.
/// `out` is overwritten.
LSM_HOST_DEVICE inline void block_cell(const WindowView& w, int side, int cell, const int* bin, const double* lower,
                                       const double* upper, int64_t width, int64_t row0, int64_t col0, int ky,
                                       int kx, int bins, double* out) {
  using kmeans_math::add;
  using kmeans_math::mul;
  for (int b = 0; b < bins; ++b) out[b] = 0;
  const int i0 = ky > 0 ? (ky - 1) * cell : 0, i1 = (ky + 2) * cell < side ? (ky + 2) * cell : side;
  const int j0 = kx > 0 ? (kx - 1) * cell : 0, j1 = (kx + 2) * cell < side ? (kx + 2) * cell : side;
  for (int i = i0; i < i1; ++i) {
    const double wy = axis_weight(w, i, ky);
    if (wy == 0) continue;
    const int64_t row = (row0 + i) * width + col0;
    for (int j = j0; j < j1; ++j) {
      const double wx = axis_weight(w, j, kx);
      if (wx == 0) continue;
      const double weight = mul(wy, wx);
      const int64_t p = row + j;
      const int b = bin[p];
      if (b < 0) {  // nodata: NaN into every bin of the cells it weighs into
        for (int q = 0; q < bins; ++q) out[q] = add(out[q], lower[p]);
        continue;
      }
      out[b] = add(out[b], mul(weight, lower[p]));
      const int next = b + 1 == bins ? 0 : b + 1;
      out[next] = add(out[next], mul(weight, upper[p]));
    }
  }
}

/// Normalises one block of n values in place. `norm`: 0 L1, 1 L1-sqrt, 2 L2
/// (as hog_math::normalize_block), 3 L2-Hys with OpenCV's constants.
LSM_HOST_DEVICE inline void normalize_block(double* v, int n, int norm) {
  using kmeans_math::add;
  using kmeans_math::mul;
  if (norm != 3) {
    hog_math::normalize_block(v, n, norm);
    return;
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) sum = add(sum, mul(v[i], v[i]));
  double scale = 1.0 / add(::sqrt(sum), 0.1 * n);
  sum = 0;
  for (int i = 0; i < n; ++i) {
    const double x = mul(v[i], scale);
    v[i] = x > 0.2 ? 0.2 : x;  // keeps NaN
    sum = add(sum, mul(v[i], v[i]));
  }
  scale = 1.0 / add(::sqrt(sum), 1e-3);
  for (int i = 0; i < n; ++i) v[i] = mul(v[i], scale);
}

}  // namespace lsm::dalal_triggs
