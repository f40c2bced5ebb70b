#pragma once
// The per-cell arithmetic of HOG (scikit-image's variant), shared by the CPU
// and CUDA passes. It follows skimage.feature.hog (0.19,
// skimage/feature/_hog.py and _hoghistogram.pyx) operation by operation, so
// that the descriptors equal scikit-image's:
//   * gradients by central differences in double, zero on the image's first
//     and last rows (g_row) and columns (g_col);
//   * magnitude = hypot(g_col, g_row); orientation = rad2deg(atan2(g_row,
//     g_col)) mod 180 (numpy's floored modulo; mod 360 when signed);
//   * a cell's bin i takes the cells with end_i <= orientation < start_i,
//     start_i = w * (i + 1) and end_i = w * i in single precision, w = float(180 / bins);
//   * a bin's total is a single-precision sum, cell rows then columns in
//     order, each addition done in double then rounded to float, divided by
//     the cell's pixel count in single precision;
//   * block normalisation in double with eps = 1e-5 (_hog_normalize_block),
//     the norm summed in numpy's pairwise order for up to 128 values (eight
//     strided partial sums, then a fixed tree).
#include <cmath>
#include <cstdint>

#include "kmeans_math.h"  // LSM_HOST_DEVICE, round-to-nearest add/mul

namespace lsm::hog_math {

/// numpy's rad2deg(x) % period for x = atan2(...) in [-pi, pi].
LSM_HOST_DEVICE inline double orientation_degrees(double g_row, double g_col, double period) {
  const double degrees = kmeans_math::mul(::atan2(g_row, g_col), 180.0 / 3.14159265358979323846);
  double m = ::fmod(degrees, period);
  if (m != 0) {
    if (m < 0) m = kmeans_math::add(m, period);
  } else {
    m = 0.0;  // numpy: copysign(0, period)
  }
  return m;
}

/// A quick single-precision rad2deg(atan2(g_row, g_col)), in [-180, 180],
/// good to 1e-4 degrees: for choosing a bin away from its edges only (the
/// CUDA pass checks a margin and takes orientation_degrees near an edge).
/// atan on [0, 1] is t * P(t^2), P of degree 6 fitted for lsm (Lawson-
/// weighted least squares): at most 3.4e-7 rad (2e-5 degrees) from atan in
/// float arithmetic, checked on 2 million points; the ratio's GPU division
/// (__fdividef) adds at most 2 ulp. NaN for a NaN component, a zero
/// gradient, or a component above 1e30 (outside __fdividef's range).
LSM_HOST_DEVICE inline float approximate_degrees(float g_row, float g_col) {
  const float ay = ::fabsf(g_row), ax = ::fabsf(g_col);
  if (!(ax <= 1e30f) || !(ay <= 1e30f) || (ax == 0.0f && ay == 0.0f)) return NAN;
  const float big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
#ifdef __CUDA_ARCH__
  const float t = __fdividef(small, big);
#else
  const float t = small / big;
#endif
  const float s = t * t;
  float p = 0.006811781786382198f;
  p = p * s - 0.03360418602824211f;
  p = p * s + 0.07962363213300705f;
  p = p * s - 0.1323333978652954f;
  p = p * s + 0.19807815551757812f;
  p = p * s - 0.3331736922264099f;
  p = p * s + 0.9999961256980896f;
  float a = p * t;
  if (ay > ax) a = 1.57079633f - a;
  if (g_col < 0) a = 3.14159265f - a;
  if (g_row < 0) a = -a;
  return a * 57.2957795f;
}

/// The bin of an orientation: the i with width * i <= orientation <
/// width * (i + 1), products in single precision as skimage's; -1 if none
/// (an orientation at or above width * bins, which rounding could allow).
LSM_HOST_DEVICE inline int orientation_bin(double orientation, float bin_width, int bins) {
  int guess = static_cast<int>(orientation / bin_width);
  guess = guess < 0 ? 0 : guess >= bins ? bins - 1 : guess;
  // The guess is off by at most one where float rounding moves the edges.
  for (int i = guess > 0 ? guess - 1 : 0; i <= guess + 1 && i < bins; ++i) {
    const float start = bin_width * static_cast<float>(i + 1), end = bin_width * static_cast<float>(i);
    if (orientation < start && orientation >= end) return i;
  }
  return -1;
}

/// A cell total's next value: the addition in double, rounded to float
/// (Cython's `float total; total += double`).
LSM_HOST_DEVICE inline float accumulate(float total, double magnitude) {
  return static_cast<float>(kmeans_math::add(static_cast<double>(total), magnitude));
}

/// |x| (L1 norms) or x * x (L2 norms), the terms of a block's norm.
LSM_HOST_DEVICE inline double norm_term(double x, bool squared) { return squared ? kmeans_math::mul(x, x) : ::fabs(x); }

/// Lane j's partial sum of a block's norm (j = 0..7): the terms of values
/// j, j + 8, j + 16, ... below n - n % 8, in order. numpy's pairwise sum
/// (np.sum in _hog_normalize_block) keeps eight such accumulators for up to
/// 128 values; here the GPU gives each to a lane.
LSM_HOST_DEVICE inline double partial_norm(const double* v, int n, bool squared, int j) {
  double r = norm_term(v[j], squared);
  for (int i = 8 + j; i < n - n % 8; i += 8) r = kmeans_math::add(r, norm_term(v[i], squared));
  return r;
}

/// A block's norm from the eight partial sums: ((r0 + r1) + (r2 + r3)) +
/// ((r4 + r5) + (r6 + r7)), then the last n % 8 terms in order; n < 8 is
/// summed in order from 0. The same order on every backend.
LSM_HOST_DEVICE inline double combine_norm(const double* r, const double* v, int n, bool squared) {
  using kmeans_math::add;
  if (n < 8) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum = add(sum, norm_term(v[i], squared));
    return sum;
  }
  double sum = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])));
  for (int i = n - n % 8; i < n; ++i) sum = add(sum, norm_term(v[i], squared));
  return sum;
}

/// sum_i |v_i| or sum_i v_i^2 over n values, in the order above.
LSM_HOST_DEVICE inline double block_norm(const double* v, int n, bool squared) {
  double r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (n >= 8)
    for (int j = 0; j < 8; ++j) r[j] = partial_norm(v, n, squared, j);
  return combine_norm(r, v, n, squared);
}

/// x / d for a norm d > 0. A zero x is returned as it is, which equals x / d
/// (sign included) and spares the GPU's IEEE division its slow path, which
/// it takes on every zero dividend (most bins of most blocks).
LSM_HOST_DEVICE inline double divide_by_norm(double x, double d) { return x == 0 ? x : x / d; }

/// Normalises one block of n values in place (skimage's _hog_normalize_block,
/// eps = 1e-5). `norm`: 0 L1, 1 L1-sqrt, 2 L2, 3 L2-Hys (clip 0.2).
LSM_HOST_DEVICE inline void normalize_block(double* v, int n, int norm) {
  constexpr double eps = 1e-5;
  if (norm <= 1) {
    const double d = kmeans_math::add(block_norm(v, n, false), eps);
    for (int i = 0; i < n; ++i) v[i] = norm == 0 ? divide_by_norm(v[i], d) : ::sqrt(divide_by_norm(v[i], d));
    return;
  }
  double d = ::sqrt(kmeans_math::add(block_norm(v, n, true), eps * eps));
  for (int i = 0; i < n; ++i) v[i] = divide_by_norm(v[i], d);
  if (norm == 2) return;
  for (int i = 0; i < n; ++i) v[i] = v[i] > 0.2 ? 0.2 : v[i];  // np.minimum(out, 0.2), which keeps NaN
  d = ::sqrt(kmeans_math::add(block_norm(v, n, true), eps * eps));
  for (int i = 0; i < n; ++i) v[i] = divide_by_norm(v[i], d);
}

}  // namespace lsm::hog_math
