#pragma once
// The arithmetic a K-means pass must do identically on the CPU and on the
// GPU: squared distances in float, accumulated in band order with explicit
// round-to-nearest multiplies and adds (no fused multiply-add, whose single
// rounding would make the GPU pick another centre on near-ties), and the
// rounding of features to fixed-point integers.
#include <cmath>
#include <cstdint>
#if !defined(__CUDA_ARCH__) && defined(__x86_64__)
#include <xmmintrin.h>
#endif

#ifdef __CUDACC__
#define LSM_HOST_DEVICE __host__ __device__
#else
#define LSM_HOST_DEVICE
#endif

namespace lsm::kmeans_math {

LSM_HOST_DEVICE inline float mul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;  // this file's users compile with -ffp-contract=off
#endif
}

LSM_HOST_DEVICE inline float add(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/// Double-precision multiply and add, each rounded once (no FMA), for the
/// centre update that the host and the GPU must compute alike.
LSM_HOST_DEVICE inline double mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

LSM_HOST_DEVICE inline double add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

/// Rounds to the nearest integer, ties to even (what std::nearbyint in the
/// default rounding mode, cvtss2si and __float2int_rn all do). |x| must be at
/// most 2^31: fixed-point values are at most 2^23 by construction, so the
/// 32-bit conversion (full speed on the GPU, unlike the 64-bit one) suffices.
LSM_HOST_DEVICE inline int32_t to_fixed(float x) {
#if defined(__CUDA_ARCH__)
  return __float2int_rn(x);
#elif defined(__x86_64__)
  return _mm_cvtss_si32(_mm_set_ss(x));  // one instruction, MXCSR's default round-to-nearest-even
#else
  return static_cast<int32_t>(std::nearbyint(x));
#endif
}

/// Squared Euclidean distance between a cell's features and a centre
/// (bands >= 1; the first square starts the sum, as 0 + x = x for x >= +0).
LSM_HOST_DEVICE inline float squared_distance(const float* f, const float* c, int bands) {
  const float d0 = f[0] - c[0];
  float d2 = mul(d0, d0);
  for (int b = 1; b < bands; ++b) {
    const float d = f[b] - c[b];
    d2 = add(d2, mul(d, d));
  }
  return d2;
}

/// Index of the nearest of k centres ([k][bands]); ties go to the lower index.
LSM_HOST_DEVICE inline int nearest_centre(const float* f, const float* centres, int k, int bands, float* best_d2) {
  int best = 0;
  float best_d = squared_distance(f, centres, bands);
  for (int j = 1; j < k; ++j) {
    const float d = squared_distance(f, centres + j * bands, bands);
    if (d < best_d) {
      best_d = d;
      best = j;
    }
  }
  *best_d2 = best_d;
  return best;
}

}  // namespace lsm::kmeans_math
