#include "kmeans_seeding.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "error.h"
#include "hashing.h"

namespace lsm {

namespace {
// A uniform double in [0, 1) from the generator's raw bits (the same on every
// standard library, unlike std::uniform_real_distribution).
double uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

double squared_distance(const float* a, const float* b, int bands) {
  double d2 = 0;
  for (int i = 0; i < bands; ++i) {
    const double d = double(a[i]) - double(b[i]);
    d2 += d * d;
  }
  return d2;
}
}  // namespace

bool in_kmeans_sample(uint64_t cell, uint64_t seed, uint64_t threshold) {
  if (threshold == UINT64_MAX) return true;
  return splitmix64(cell ^ splitmix64(seed)) < threshold;
}

uint64_t sample_threshold(int64_t cells, int64_t target) {
  if (target >= cells) return UINT64_MAX;
  return static_cast<uint64_t>(std::ldexp(double(target) / double(cells), 64));
}

std::vector<float> kmeans_plus_plus(const std::vector<float>& points, int bands, int k, uint64_t seed, int run) {
  const size_t n = points.size() / bands;
  if (n == 0) throw Error(ErrorKind::BadInput, "no valid cells to seed K-means from");
  std::mt19937_64 rng(splitmix64(seed) ^ splitmix64(0xC0FFEEull + uint64_t(run)));
  std::vector<float> centres;
  centres.reserve(static_cast<size_t>(k) * bands);
  auto point = [&](size_t i) { return points.data() + i * bands; };

  const size_t first = std::min(n - 1, static_cast<size_t>(uniform01(rng) * double(n)));
  centres.insert(centres.end(), point(first), point(first) + bands);
  std::vector<double> closest(n), candidate_d2(n), best_d2(n);
  double potential = 0;
  for (size_t i = 0; i < n; ++i) potential += closest[i] = squared_distance(point(i), point(first), bands);

  const int trials = 2 + static_cast<int>(std::log(double(k)));
  std::vector<double> cumulative(n);
  for (int c = 1; c < k; ++c) {
    if (!(potential > 0))
      throw Error(ErrorKind::BadInput, "--k " + std::to_string(k) + " is more than the " + std::to_string(c) +
                                           " distinct feature vectors in the sample of " + std::to_string(n) +
                                           " cells");
    double sum = 0;
    for (size_t i = 0; i < n; ++i) cumulative[i] = sum += closest[i];
    double best_potential = -1;
    size_t best = 0;
    for (int t = 0; t < trials; ++t) {
      const double r = uniform01(rng) * sum;
      size_t cand = std::upper_bound(cumulative.begin(), cumulative.end(), r) - cumulative.begin();
      cand = std::min(cand, n - 1);
      while (cand > 0 && closest[cand] == 0) --cand;  // never a point already at a centre
      double pot = 0;
      for (size_t i = 0; i < n; ++i)
        pot += candidate_d2[i] = std::min(closest[i], squared_distance(point(i), point(cand), bands));
      if (best_potential < 0 || pot < best_potential) {
        best_potential = pot;
        best = cand;
        best_d2.swap(candidate_d2);
      }
    }
    centres.insert(centres.end(), point(best), point(best) + bands);
    closest.swap(best_d2);
    potential = best_potential;
  }
  return centres;
}

}  // namespace lsm
