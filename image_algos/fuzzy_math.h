#pragma once
// The arithmetic of fuzzy connectedness that the CPU and the GPU must do
// bit for bit alike: the affinity (fuzzy_connectedness.h), with an exp of
// our own built from single IEEE operations (explicit round-to-nearest
// multiplies and adds, no FMA contraction), because the C library's expf and
// CUDA's differ in the last bit; and the neighbour offsets of each adjacency.
// Users of this header compile their CPU code with -ffp-contract=off.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "fuzzy_connectedness.h"
#include "kmeans_math.h"  // mul, add, LSM_HOST_DEVICE

namespace lsm::fuzzy_math {

using kmeans_math::add;
using kmeans_math::mul;

/// Rounds to the nearest integer, ties to even (rintf on the GPU, nearbyint
/// in the default rounding mode on the host).
LSM_HOST_DEVICE inline float round_even(float x) {
#ifdef __CUDA_ARCH__
  return rintf(x);
#else
  return std::nearbyint(x);
#endif
}

/// e^t for t <= 0, to about 2 float ulp; 0 below t = -86 (e^-86 = 4e-38,
/// near the smallest normal float) and for NaN. Cody-Waite reduction
/// t = n ln2 + r with |r| <= ln2/2 (ln2 split in a 16-bit high part, so
/// n * ln2_hi is exact), Taylor polynomial of degree 7 for e^r (truncation
/// below 6e-9 relative), then scaling by 2^n built from its bits.
LSM_HOST_DEVICE inline float exp_nonpositive(float t) {
  if (!(t > -86.0f)) return 0.0f;
  if (t >= 0.0f) return 1.0f;
  const float n = round_even(mul(t, 1.44269504088896341f));
  const float ln2_hi = 0.693145751953125f, ln2_lo = 1.42860676533018704e-06f;
  float r = add(t, -mul(n, ln2_hi));
  r = add(r, -mul(n, ln2_lo));
  float p = 1.0f / 5040.0f;
  p = add(mul(p, r), 1.0f / 720.0f);
  p = add(mul(p, r), 1.0f / 120.0f);
  p = add(mul(p, r), 1.0f / 24.0f);
  p = add(mul(p, r), 1.0f / 6.0f);
  p = add(mul(p, r), 0.5f);
  p = add(mul(p, r), 1.0f);
  p = add(mul(p, r), 1.0f);
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;  // n in [-125, 0]
#ifdef __CUDA_ARCH__
  const float scale = __uint_as_float(bits);
#else
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
#endif
  return mul(p, scale);
}

/// mu(c, d) of intensities fc, fd (fuzzy_connectedness.h); 0 when either is NaN.
LSM_HOST_DEVICE inline float affinity(float fc, float fd, const AffinityParameters& a) {
  const float x1 = mul(add(fc, fd), 0.5f);
  const float d1 = add(x1, -a.mean);
  const float x2 = mul(fabsf(add(fc, -fd)), 0.5f);
  const float q = add(mul(mul(d1, d1), a.inv_4var), mul(mul(x2, x2), a.inv_4var_diff));
  return exp_nonpositive(-q);
}

/// The neighbour offsets of an adjacency: 4 or 8 in 2-D (depth 1), 6 or 26
/// in 3-D, in raster order (dz, then dy, then dx ascending). The first half
/// point backwards (to voxels earlier in raster order), the second half
/// mirror them in reverse order: offset[count - 1 - i] = -offset[i].
struct Offsets {
  int count = 0;
  int dx[26], dy[26], dz[26];
};

inline Offsets neighbour_offsets(Adjacency adjacency, bool volume) {
  Offsets o;
  for (int dz = volume ? -1 : 0; dz <= (volume ? 1 : 0); ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int steps = (dx != 0) + (dy != 0) + (dz != 0);
        if (steps == 0 || (adjacency == Adjacency::Face && steps > 1)) continue;
        o.dx[o.count] = dx;
        o.dy[o.count] = dy;
        o.dz[o.count] = dz;
        ++o.count;
      }
  return o;
}

/// The key of a connectivity for integer ordering: for floats >= 0 the bit
/// pattern orders like the value.
inline uint32_t order_key(float k) {
  uint32_t bits;
  std::memcpy(&bits, &k, sizeof bits);
  return bits;
}

}  // namespace lsm::fuzzy_math
