#include "streamed_distribution.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace lsm {
namespace {

// An unsigned key whose order is the order of the doubles (no NaN).
uint64_t order_key(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits >> 63 ? ~bits : bits | (uint64_t(1) << 63);
}

double from_key(uint64_t key) {
  const uint64_t bits = key >> 63 ? key & ~(uint64_t(1) << 63) : ~key;
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// The value of rank `rank` (0-based, ascending) among the replayed values, by
// fixing 16 bits of its key per pass.
double select_rank(const PairReplay& replay, bool skip_nan, uint64_t rank) {
  uint64_t prefix = 0;
  for (int shift = 48; shift >= 0; shift -= 16) {
    const uint64_t fixed_mask = shift == 48 ? 0 : ~uint64_t(0) << (shift + 16);
    std::vector<uint64_t> counts(65536, 0);
    replay([&](double v, double) {
      if (skip_nan && std::isnan(v)) return;
      const uint64_t key = order_key(v);
      if ((key & fixed_mask) == prefix) ++counts[(key >> shift) & 0xFFFF];
    });
    uint64_t bucket = 0;
    while (rank >= counts[bucket]) rank -= counts[bucket++];
    prefix |= bucket << shift;
  }
  return from_key(prefix);
}

}  // namespace

Distribution streamed_distribution(const PairReplay& replay, bool skip_nan, uint64_t max_in_memory) {
  uint64_t n = 0;
  double sum = 0;
  replay([&](double v, double) {
    if (skip_nan && std::isnan(v)) return;
    ++n;
    sum += v;
  });
  if (n <= max_in_memory) {
    std::vector<double> v, w;
    v.reserve(n);
    w.reserve(n);
    replay([&](double x, double y) {
      if (skip_nan && std::isnan(x)) return;
      v.push_back(x);
      w.push_back(y);
    });
    return distribution(v, w);
  }
  // As distribution(): mn from the sum in order, then weights, squares, extremes.
  const double nd = static_cast<double>(n), mn = sum / nd;
  double wsum = 0, wv = 0, ss = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  replay([&](double v, double w) {
    if (skip_nan && std::isnan(v)) return;
    wsum += w;
    wv += w * v;
    ss += (v - mn) * (v - mn);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  });
  const uint64_t h = n / 2;
  const double upper = select_rank(replay, skip_nan, h);
  const double md = n % 2 ? upper : (select_rank(replay, skip_nan, h - 1) + upper) / 2;
  const double sd = std::sqrt(ss / nd);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {mn, wsum > 0 ? wv / wsum : nan, md, hi - lo, sd, mn != 0 ? sd / mn * 100 : nan};
}

}  // namespace lsm
