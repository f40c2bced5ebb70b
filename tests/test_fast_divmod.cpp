// FastDivmod (the kernels' division by a launch-time divisor) against the
// integer division, for every divisor up to 5000, powers of two and large
// divisors, on dividends up to 2^31 - 1. The host path computes the same
// multiply-high as the device's __umulhi. exact_small_quotient (the record
// pass's row of a block-local root) on every quotient below 2^10 of such
// divisors, up to 2^31 - 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "../cuda/fast_divmod.h"

namespace lsm {
namespace {

TEST(FastDivmod, EqualsIntegerDivision) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> any(0, (uint32_t(1) << 31) - 1);
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 5000; ++d) divisors.push_back(d);
  for (int k = 13; k < 31; ++k) divisors.insert(divisors.end(), {uint32_t(1) << k, (uint32_t(1) << k) - 1, (uint32_t(1) << k) + 1});
  divisors.push_back((uint32_t(1) << 31) - 1);
  for (uint32_t d : divisors) {
    const FastDivmod f(d);
    for (uint32_t n : {uint32_t(0), uint32_t(1), d - 1, d, d + 1, 2 * d - 1, 2 * d, (uint32_t(1) << 31) - 1})
      if (n < (uint32_t(1) << 31)) ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    for (int i = 0; i < 200; ++i) {
      const uint32_t n = any(rng);
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
  }
}

TEST(FastDivmod, ExactSmallQuotientOfMultiples) {
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 5000; ++d) divisors.push_back(d);
  for (int k = 13; k < 31; ++k) {
    const uint32_t p = uint32_t(1) << k;
    divisors.insert(divisors.end(), {p, p - 1, p + 1});
  }
  for (uint32_t d : divisors) {
    const float inverse = 1.0f / static_cast<float>(d);
    for (uint32_t q = 0; q < 1024 && uint64_t(q) * d < (uint64_t(1) << 31); ++q)
      ASSERT_EQ(exact_small_quotient(q * d, inverse), q) << q << " * " << d;
  }
}

}  // namespace
}  // namespace lsm
