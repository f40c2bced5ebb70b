#pragma once
// Division by a divisor fixed at launch, for index arithmetic in kernels: a
// multiply-high and a shift instead of the dozens of instructions of a
// 32-bit (or the subroutine of a 64-bit) integer division. The multiplier is
// the round-up reciprocal of Granlund & Montgomery (1994), "Division by
// invariant integers using multiplication", sec. 4, exact for every
// dividend below 2^31.
#include <cstdint>

#ifdef __CUDACC__
#define LSM_FAST_DIVMOD_HD __host__ __device__
#else
#define LSM_FAST_DIVMOD_HD
#endif

namespace lsm {

struct FastDivmod {
  uint32_t divisor = 1, multiplier = 0, shift = 0;

  FastDivmod() = default;
  /// `d` in 1 .. 2^31 - 1.
  explicit FastDivmod(uint32_t d) : divisor(d) {
    if (d == 1) return;
    uint32_t log = 0;  // ceil(log2(d))
    while ((uint64_t(1) << log) < d) ++log;
    const uint32_t p = 31 + log;
    multiplier = static_cast<uint32_t>(((uint64_t(1) << p) + d - 1) / d);
    shift = p - 32;
  }

  /// n / divisor for n < 2^31.
  LSM_FAST_DIVMOD_HD uint32_t div(uint32_t n) const {
    if (divisor == 1) return n;
#ifdef __CUDA_ARCH__
    return __umulhi(n, multiplier) >> shift;
#else
    return static_cast<uint32_t>((uint64_t(n) * multiplier) >> 32) >> shift;
#endif
  }
};

/// n / d where n is known to be a multiple of d with a quotient below 2^10,
/// from `inverse` = 1.0f / d (as float): three float instructions and no
/// divisor's multiplier and shift held in registers. Exact for n < 2^31:
/// float(n), `inverse` and their product each err by at most 2^-24
/// relatively, so the product is within 2^10 * 3 * 2^-24 of the quotient,
/// far under the 0.5 that rounding needs.
LSM_FAST_DIVMOD_HD inline uint32_t exact_small_quotient(uint32_t n, float inverse) {
  return static_cast<uint32_t>(static_cast<float>(n) * inverse + 0.5f);
}

}  // namespace lsm
