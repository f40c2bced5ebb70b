#pragma once
// Byte class grids for the labeling benchmark and the device labeling tests:
// real structure (mirror mosaics of a real raster, exactly as
// ../shared/tools/mosaic_raster.py builds them) and the adversarial cases
// (uniform noise, one class everywhere, horizontal stripes). Row-major,
// width * height cells.
#include <cstdint>
#include <random>
#include <vector>

namespace lsm::bench {

/// Tiles `src` (src_w x src_h) over width x height, every other copy mirrored
/// left-right and every other row of copies mirrored top-bottom, so that
/// patches continue across the seams.
inline std::vector<uint8_t> mirror_mosaic(const std::vector<uint8_t>& src, int64_t src_w, int64_t src_h,
                                          int64_t width, int64_t height) {
  std::vector<uint8_t> out(static_cast<size_t>(width * height));
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < height; ++y) {
    const int64_t ty = y / src_h, yy = y % src_h, sy = (ty % 2) ? src_h - 1 - yy : yy;
    for (int64_t x = 0; x < width; ++x) {
      const int64_t tx = x / src_w, xx = x % src_w, sx = (tx % 2) ? src_w - 1 - xx : xx;
      out[static_cast<size_t>(y * width + x)] = src[static_cast<size_t>(sy * src_w + sx)];
    }
  }
  return out;
}

/// Independent uniform classes 1..classes in every cell (seeded, repeatable).
inline std::vector<uint8_t> uniform_noise(int64_t width, int64_t height, int classes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> out(static_cast<size_t>(width * height));
  for (uint8_t& c : out) c = static_cast<uint8_t>(1 + rng() % static_cast<uint64_t>(classes));
  return out;
}

/// Class 1 everywhere: one patch that crosses every block.
inline std::vector<uint8_t> one_class(int64_t width, int64_t height) {
  return std::vector<uint8_t>(static_cast<size_t>(width * height), 1);
}

/// Horizontal stripes `rows` cells high, classes 1 and 2 alternating: every
/// patch spans the whole width.
inline std::vector<uint8_t> stripes(int64_t width, int64_t height, int64_t rows) {
  std::vector<uint8_t> out(static_cast<size_t>(width * height));
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x) out[static_cast<size_t>(y * width + x)] = static_cast<uint8_t>(1 + (y / rows) % 2);
  return out;
}

}  // namespace lsm::bench
