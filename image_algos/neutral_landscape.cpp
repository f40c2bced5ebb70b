#include "neutral_landscape.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "hashing.h"

namespace lsm {
namespace {

// A well-mixed hash of the lattice point.
uint64_t mix(uint64_t x) { return splitmix64(x); }

double lattice(uint64_t seed, int octave, int64_t ix, int64_t iy) {
  const uint64_t h = mix(seed ^ mix(uint64_t(octave) * 0x100000001B3ull ^ mix(uint64_t(ix) ^ mix(uint64_t(iy)))));
  return double(h >> 11) * (1.0 / 9007199254740992.0);
}

double smooth(double t) { return t * t * (3 - 2 * t); }

}  // namespace

NeutralLandscape::NeutralLandscape(const NeutralLandscapeOptions& options) : o_(options) {
  if (o_.width <= 0 || o_.height <= 0) throw Error(ErrorKind::BadInput, "synth: width and height must be positive");
  if (o_.classes < 1 || o_.classes > 65535) throw Error(ErrorKind::BadInput, "synth: classes must be in 1..65535");
  if (!(o_.scale > 0)) throw Error(ErrorKind::BadInput, "synth: scale must be positive");
  if (!(o_.roughness > 0 && o_.roughness < 1)) throw Error(ErrorKind::BadInput, "synth: roughness must be in (0, 1)");
  if (o_.octaves < 1 || o_.octaves > 16) throw Error(ErrorKind::BadInput, "synth: octaves must be in 1..16");
  // Quantiles of a regular 257 x 257 sample: classes of (nearly) equal share.
  std::vector<double> sample;
  const int n = 257;
  sample.reserve(n * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      sample.push_back(surface(int64_t(double(i) / (n - 1) * double(o_.width - 1)),
                               int64_t(double(j) / (n - 1) * double(o_.height - 1))));
  std::sort(sample.begin(), sample.end());
  for (int k = 1; k < o_.classes; ++k) thresholds_.push_back(sample[sample.size() * k / o_.classes]);
}

double NeutralLandscape::surface(int64_t col, int64_t row) const {
  double value = 0, amplitude = 1, total = 0, frequency = 1.0 / o_.scale;
  for (int octave = 0; octave < o_.octaves; ++octave) {
    const double x = double(col) * frequency, y = double(row) * frequency;
    const double fx = std::floor(x), fy = std::floor(y);
    const int64_t ix = int64_t(fx), iy = int64_t(fy);
    const double tx = smooth(x - fx), ty = smooth(y - fy);
    const double a = lattice(o_.seed, octave, ix, iy), b = lattice(o_.seed, octave, ix + 1, iy);
    const double c = lattice(o_.seed, octave, ix, iy + 1), d = lattice(o_.seed, octave, ix + 1, iy + 1);
    value += amplitude * ((a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty);
    total += amplitude;
    amplitude *= o_.roughness;
    frequency *= 2;
  }
  return value / total;
}

void NeutralLandscape::classify(const Window& w, int32_t* out) const {
  for (int64_t y = 0; y < w.height; ++y)
    for (int64_t x = 0; x < w.width; ++x) {
      const double v = surface(w.x0 + x, w.y0 + y);
      out[y * w.width + x] =
          1 + int32_t(std::upper_bound(thresholds_.begin(), thresholds_.end(), v) - thresholds_.begin());
    }
}

}  // namespace lsm
