#pragma once
// The per-cell arithmetic of the gradient, shared by the CPU and CUDA passes
// so that both round alike: taps in order -R..R, round-to-nearest multiplies
// and adds (kmeans_math.h), no fused multiply-add.
#include <cstdint>

#include "kmeans_math.h"

namespace lsm::gradient_math {

/// Correlation of row `row` (width cells) with `taps` (2R+1) at column x,
/// columns clamped to the row (replicate border).
LSM_HOST_DEVICE inline float correlate_row(const float* row, int64_t width, int64_t x, const float* taps, int radius) {
  float sum = 0;
  for (int i = -radius; i <= radius; ++i) {
    int64_t c = x + i;
    c = c < 0 ? 0 : c >= width ? width - 1 : c;
    sum = kmeans_math::add(sum, kmeans_math::mul(taps[i + radius], row[c]));
  }
  return sum;
}

/// Correlation down a column: values at column[j * stride], j = 0..2R.
LSM_HOST_DEVICE inline float correlate_column(const float* column, int64_t stride, const float* taps, int radius) {
  float sum = 0;
  for (int j = 0; j <= 2 * radius; ++j) sum = kmeans_math::add(sum, kmeans_math::mul(taps[j], column[j * stride]));
  return sum;
}

/// sqrt(gx^2 + gy^2), correctly rounded on both sides.
LSM_HOST_DEVICE inline float magnitude(float gx, float gy) {
  return sqrtf(kmeans_math::add(kmeans_math::mul(gx, gx), kmeans_math::mul(gy, gy)));
}

}  // namespace lsm::gradient_math
