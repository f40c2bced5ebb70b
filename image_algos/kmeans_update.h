#pragma once
// The update between two K-means passes: new centres from a pass's integer
// sums, the convergence test and the fixed-point scales of the next pass.
// Host and GPU run these same functions (the CUDA backend iterates Lloyd's
// algorithm without returning to the host), so a run takes the same steps
// and stops at the same iteration on either.
#include <cstdint>

#include "kmeans_math.h"

namespace lsm::kmeans_update {

/// |value| x scale <= 2^23, so the 128 values a GPU warp sums at once (32
/// lanes x 4 cells) fit an int32.
constexpr int kFixedBits = 23;

/// The largest power of two s with max_abs x s <= 2^23 (1 for max_abs 0),
/// exponent clamped to [-100, 100]. Exact: taken from the binary exponent,
/// no logarithm whose rounding could differ between host and device.
LSM_HOST_DEVICE inline float fixed_point_scale(double max_abs) {
  if (!(max_abs > 0)) return 1.0f;
  int e = 0;
  const double m = frexp(max_abs, &e);  // max_abs = m x 2^e, m in [0.5, 1)
  int s = (m == 0.5 ? kFixedBits + 1 : kFixedBits) - e;
  s = s < -100 ? -100 : s > 100 ? 100 : s;
  return static_cast<float>(ldexp(1.0, s));
}

/// The scale of the squared distances of a pass against `centres` ([k][bands])
/// over data whose band b spans [lo[b], hi[b]]: no squared distance exceeds
/// the sum over bands of the squared span of data and centres together
/// (+0.1% for float rounding).
LSM_HOST_DEVICE inline float inertia_scale_for(const float* centres, int k, int bands, const double* lo,
                                               const double* hi) {
  double d2_max = 0;
  for (int b = 0; b < bands; ++b) {
    double l = lo[b], h = hi[b];
    for (int j = 0; j < k; ++j) {
      const double c = centres[j * bands + b];
      l = c < l ? c : l;
      h = c > h ? c : h;
    }
    d2_max = kmeans_math::add(d2_max, kmeans_math::mul(h - l, h - l));
  }
  return fixed_point_scale(kmeans_math::mul(d2_max, 1.001));
}

/// Writes cluster j's new centre to next[j] ([k][bands]): the mean of its
/// cells, sum / count / scale in double rounded once to float; an empty
/// cluster keeps its centre. Sums are read at feature_sums[j * sum_stride + b],
/// counts at counts[j * count_stride]. Sets *moved when a coordinate changed and
/// returns the squared shift of the centre.
LSM_HOST_DEVICE inline double update_centre(int j, int bands, const int64_t* feature_sums, int sum_stride,
                                            const int64_t* counts, int count_stride, const float* feature_scale, const float* centres, float* next,
                                            bool* moved) {
  const int64_t n = counts[j * count_stride];
  double d2 = 0;
  for (int b = 0; b < bands; ++b) {
    const float old = centres[j * bands + b];
    const float c = n == 0 ? old
                           : static_cast<float>(double(feature_sums[j * sum_stride + b]) / double(n) /
                                                double(feature_scale[b]));
    next[j * bands + b] = c;
    if (c != old) *moved = true;
    const double d = double(c) - double(old);
    d2 = kmeans_math::add(d2, kmeans_math::mul(d, d));
  }
  return d2;
}

/// How an update ends Lloyd's iterations.
enum LloydStep : int {
  kMoved = 0,      ///< centres moved by more than tol: iterate again
  kUnchanged = 1,  ///< centres bit-identical: no assignment changed; the pass's sums are final
  kWithinTol = 2,  ///< moved by at most tol (tol > 0): stop; one more pass gives the final sums
};

/// The step after an update whose centres `moved` (any coordinate) with the
/// largest squared shift `max_d2`.
LSM_HOST_DEVICE inline LloydStep lloyd_step(bool moved, double max_d2, double tol) {
  if (!moved) return kUnchanged;
  return tol > 0 && sqrt(max_d2) <= tol ? kWithinTol : kMoved;
}

}  // namespace lsm::kmeans_update
