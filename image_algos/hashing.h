#pragma once
// The counter-based hash of lsm's generators and samplers: each value comes
// from its coordinates and the seed alone, so any window or any order of
// visiting cells gives the same numbers.
#include <cstdint>

namespace lsm {

/// SplitMix64 (Steele, Lea & Flood 2014): a well-mixed 64-bit hash of x.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace lsm
