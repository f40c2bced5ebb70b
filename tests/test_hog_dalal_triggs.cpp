// HOG's Dalal-Triggs variant: hand-made ramps with known votes, the bin
// interpolation, OpenCV's L2-Hys, an independent direct evaluation of the
// paper's trilinear, Gaussian-weighted sums on random 1- and 3-band images,
// nodata, strip invariance, bad input and CPU/CUDA parity. OpenCV's own
// HOGDescriptor is compared through the CLI (test_cli_image.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "error.h"
#include "hog.h"
#include "hog_dalal_triggs.h"
#include "hog_test_helpers.h"
#include "test_helpers.h"

namespace lsm {
namespace {

constexpr double kPi = 3.14159265358979323846;

using Descriptors = HogResult;

HogOptions dalal_triggs(int cell, int block, HogNorm norm = HogNorm::L2Hys) {
  HogOptions o;
  o.variant = HogVariant::DalalTriggs;
  o.cell = cell;
  o.block = block;
  o.norm = norm;
  return o;
}

Descriptors run(const std::vector<float>& image, int64_t w, int64_t h, int bands, const HogOptions& o,
                Backend backend = Backend::Cpu) {
  return run_hog_on(image, w, h, bands, o, backend);
}

std::vector<float> random_image(int64_t w, int64_t h, int bands, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(0, 255);  // 8-bit photo values, as OpenCV's HOG expects
  std::vector<float> v(static_cast<size_t>(w * h * bands));
  for (auto& x : v) x = float(u(rng));
  return v;
}

// 1-pixel cells in 2 x 2 blocks: sigma = 2 / 4, G(t) = exp(-2 (t - 1)^2), and
// each pixel lies on its cell's centre, so cell (k, l) of a block holds only
// pixel (k, l) with weight G(k) G(l). A ramp 2.5 x has gradient 5 at
// 0 degrees: a = -0.5, half the vote into bin 8 and half into bin 0.
TEST(HogDalalTriggs, OnePixelCellsWeighByTheGaussianWindow) {
  const int64_t w = 6, h = 5;
  std::vector<float> img(w * h);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) img[y * w + x] = 2.5f * x;
  const Descriptors d = run(img, w, h, 1, dalal_triggs(1, 2, HogNorm::L2));
  ASSERT_EQ(d.g.blocks_x, 5);
  const double e2 = std::exp(-2.0), e4 = std::exp(-4.0);
  const double cell_value[4] = {e4 * 2.5, e2 * 2.5, e2 * 2.5, 2.5};  // (0,0), (0,1), (1,0), (1,1)
  double squares = 0;
  for (double v : cell_value) squares += 2 * v * v;
  const double norm = std::sqrt(squares + 1e-10);
  for (int64_t by = 0; by < d.g.blocks_y; ++by)
    for (int64_t bx = 1; bx + 1 < d.g.blocks_x - 1; ++bx)  // no block touching columns 0 or 5
      for (int c = 0; c < 4; ++c)
        for (int b = 0; b < 9; ++b)
          EXPECT_NEAR(d.at(by, bx, c * 9 + b), b == 0 || b == 8 ? cell_value[c] / norm : 0.0, 1e-14)
              << by << "," << bx << " cell " << c << " bin " << b;
  // Block 0 holds column 0, whose gradient is zero (the image's edge): its
  // cells (0, 0) and (1, 0) are empty.
  const double edge_norm = std::sqrt(2 * (cell_value[1] * cell_value[1] + cell_value[3] * cell_value[3]) + 1e-10);
  EXPECT_EQ(d.at(0, 0, 0 * 9 + 0), 0.0);
  EXPECT_EQ(d.at(0, 0, 2 * 9 + 8), 0.0);
  EXPECT_NEAR(d.at(0, 0, 1 * 9 + 0), cell_value[1] / edge_norm, 1e-14);
}

// One-cell blocks of one pixel (sigma 0.25, window G(0) G(0) = exp(-2)^2): the vote alone.
// Gradient (2, 2) is at 45 degrees, a = 45 / 20 - 0.5 = 1.75: a quarter into
// bin 1, three quarters into bin 2. Gradient (0, -2) is at 180 degrees:
// unsigned, a = 8.5 (bins 8 and 0, half each); signed, a = 4 (all in bin 4).
TEST(HogDalalTriggs, VotesInterpolateBetweenBinCentres) {
  const int64_t w = 5, h = 5;
  std::vector<float> diagonal(w * h), falling(w * h);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      diagonal[y * w + x] = float(x + y);
      falling[y * w + x] = float(-x);
    }
  HogOptions o = dalal_triggs(1, 1, HogNorm::L1);
  const double g = std::exp(-4.0), m = 2 * std::sqrt(2.0) * g;
  Descriptors d = run(diagonal, w, h, 1, o);
  EXPECT_NEAR(d.at(2, 2, 1), 0.25 * m / (m + 1e-5), 1e-12);
  EXPECT_NEAR(d.at(2, 2, 2), 0.75 * m / (m + 1e-5), 1e-12);
  d = run(falling, w, h, 1, o);
  EXPECT_NEAR(d.at(2, 2, 8), 0.5 * 2 * g / (2 * g + 1e-5), 1e-12);
  EXPECT_NEAR(d.at(2, 2, 0), 0.5 * 2 * g / (2 * g + 1e-5), 1e-12);
  o.signed_orientation = true;
  d = run(falling, w, h, 1, o);
  EXPECT_NEAR(d.at(2, 2, 4), 2 * g / (2 * g + 1e-5), 1e-12);
  for (int b : {0, 1, 2, 3, 5, 6, 7, 8}) EXPECT_EQ(d.at(2, 2, b), 0.0) << b;
}

// OpenCV's L2-Hys: v / (|v| + 0.1 n), clip at 0.2, v / (|v| + 1e-3).
TEST(HogDalalTriggs, OpenCvL2Hys) {
  double v[2] = {3, 4};
  dalal_triggs::normalize_block(v, 2, int(HogNorm::L2Hys));
  // 3 / 5.2 and 4 / 5.2 both clip to 0.2; then 0.2 / (sqrt(0.08) + 1e-3).
  EXPECT_NEAR(v[0], 0.2 / (std::sqrt(0.08) + 1e-3), 1e-15);
  EXPECT_EQ(v[0], v[1]);
  double small[2] = {0.3, 0.4};  // 0.3 / 0.7 = 0.43 -> 0.2, 0.4 / 0.7 -> 0.2
  dalal_triggs::normalize_block(small, 2, int(HogNorm::L2Hys));
  EXPECT_EQ(small[0], small[1]);
  double tiny[2] = {0.03, 0.04};  // 0.03 / 0.25 = 0.12 and 0.16 stay unclipped
  dalal_triggs::normalize_block(tiny, 2, int(HogNorm::L2Hys));
  EXPECT_NEAR(tiny[0], 0.12 / (0.2 + 1e-3), 1e-12);
  EXPECT_NEAR(tiny[1], 0.16 / (0.2 + 1e-3), 1e-12);
}

// The paper's sums evaluated directly, independently of the window tables:
// every pixel of every block, every cell of the block, the bilinear weight
// max(0, 1 - |distance to the cell centre|) and the Gaussian written out.
std::vector<double> direct_dalal_triggs(const std::vector<float>& img, int64_t w, int64_t h, int bands,
                                        const HogOptions& o) {
  const HogGeometry g = hog_geometry(w, h, o);
  const int side = o.block * o.cell;
  const double sigma = o.window_sigma > 0 ? o.window_sigma : side / 4.0;
  const double period = o.signed_orientation ? 2 * kPi : kPi;
  std::vector<double> out;
  for (int64_t by = 0; by < g.blocks_y; ++by)
    for (int64_t bx = 0; bx < g.blocks_x; ++bx) {
      std::vector<double> v(static_cast<size_t>(g.descriptor_length), 0.0);
      for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) {
          const int64_t y = by * o.cell + i, x = bx * o.cell + j;
          double gr = 0, gc = 0, best = -1;
          for (int b = bands - 1; b >= 0; --b) {
            auto at = [&](int64_t yy, int64_t xx) { return double(img[(yy * w + xx) * bands + b]); };
            const double r = (y == 0 || y == h - 1) ? 0 : at(y + 1, x) - at(y - 1, x);
            const double c = (x == 0 || x == w - 1) ? 0 : at(y, x + 1) - at(y, x - 1);
            if (r * r + c * c > best) best = r * r + c * c, gr = r, gc = c;
          }
          const double magnitude = std::sqrt(gc * gc + gr * gr);
          double angle = std::atan2(gr, gc);
          if (angle < 0) angle += 2 * kPi;
          const double a = angle * o.bins / period - 0.5, lo = std::floor(a);
          const int b0 = int((int64_t(lo) % o.bins + o.bins) % o.bins), b1 = (b0 + 1) % o.bins;
          const double gauss = std::exp(-((i - side / 2.0) * (i - side / 2.0) + (j - side / 2.0) * (j - side / 2.0)) /
                                        (2 * sigma * sigma));
          for (int ky = 0; ky < o.block; ++ky)
            for (int kx = 0; kx < o.block; ++kx) {
              const double wy = std::max(0.0, 1 - std::fabs((i + 0.5) / o.cell - 0.5 - ky));
              const double wx = std::max(0.0, 1 - std::fabs((j + 0.5) / o.cell - 0.5 - kx));
              double* cell = v.data() + (ky * o.block + kx) * o.bins;
              cell[b0] += gauss * wy * wx * magnitude * (1 - (a - lo));
              cell[b1] += gauss * wy * wx * magnitude * (a - lo);
            }
        }
      dalal_triggs::normalize_block(v.data(), g.descriptor_length, int(o.norm));
      out.insert(out.end(), v.begin(), v.end());
    }
  return out;
}

TEST(HogDalalTriggs, EqualsTheDirectSums) {
  struct Case {
    int64_t w, h;
    int bands, cell, block, bins;
    bool signed_orientation;
    HogNorm norm;
    double sigma;
  };
  for (const Case& c : {Case{37, 29, 1, 8, 2, 9, false, HogNorm::L2Hys, 0},
                        Case{41, 35, 3, 6, 3, 7, true, HogNorm::L2Hys, 0},
                        Case{30, 26, 3, 5, 2, 12, false, HogNorm::L1Sqrt, 7.5},
                        Case{23, 31, 1, 3, 3, 4, true, HogNorm::L2, 0}}) {
    const auto img = random_image(c.w, c.h, c.bands, uint64_t(c.w * c.h));
    HogOptions o = dalal_triggs(c.cell, c.block, c.norm);
    o.bins = c.bins;
    o.signed_orientation = c.signed_orientation;
    o.window_sigma = c.sigma;
    const Descriptors d = run(img, c.w, c.h, c.bands, o);
    const auto direct = direct_dalal_triggs(img, c.w, c.h, c.bands, o);
    ASSERT_EQ(d.d.size(), direct.size());
    for (size_t i = 0; i < direct.size(); ++i)
      ASSERT_NEAR(d.d[i], direct[i], 1e-9 * std::max(1.0, std::fabs(direct[i])))
          << c.w << "x" << c.h << " bands " << c.bands << " at " << i;
  }
}

TEST(HogDalalTriggs, ResultDoesNotDependOnStrips) {
  const int64_t w = 67, h = 59;
  const auto img = random_image(w, h, 3, 4);
  HogOptions o = dalal_triggs(6, 3);
  const Descriptors whole = run(img, w, h, 3, o);
  for (int64_t strip : {1, 2, 5}) {
    o.strip_cells = strip;
    EXPECT_EQ(run(img, w, h, 3, o).d, whole.d) << strip << " block rows per strip";
  }
}

// A NaN pixel reaches the blocks in which it weighs into a cell.
TEST(HogDalalTriggs, NodataMakesItsBlocksNan) {
  const int64_t w = 48, h = 48;
  auto img = random_image(w, h, 1, 8);
  img[20 * w + 30] = std::numeric_limits<float>::quiet_NaN();  // its gradient neighbours: rows 19-21, columns 29-31
  const Descriptors d = run(img, w, h, 1, dalal_triggs(8, 2));
  for (int64_t by = 0; by < d.g.blocks_y; ++by)
    for (int64_t bx = 0; bx < d.g.blocks_x; ++bx) {
      // Block (by, bx) covers rows 8 by .. 8 by + 15, columns 8 bx .. 8 bx + 15.
      const bool holds = 8 * by <= 21 && 19 <= 8 * by + 15 && 8 * bx <= 31 && 29 <= 8 * bx + 15;
      EXPECT_EQ(std::isnan(d.at(by, bx, 0)), holds) << by << "," << bx;
    }
}

TEST(HogDalalTriggs, BadInput) {
  EXPECT_EQ(parse_hog_variant("dalal-triggs"), HogVariant::DalalTriggs);
  EXPECT_EQ(parse_hog_variant("skimage"), HogVariant::Skimage);
  EXPECT_THROW(parse_hog_variant("opencv"), Error);
  HogOptions o = dalal_triggs(8, 2);
  o.window_sigma = -1;
  EXPECT_THROW(hog_geometry(64, 64, o), Error);
  EXPECT_THROW(run(random_image(15, 40, 1, 1), 15, 40, 1, dalal_triggs(8, 2)), Error);  // narrower than a block
}

TEST(HogDalalTriggsCuda, SameAsCpu) {
  LSM_REQUIRE_CUDA();
  for (int bands : {1, 3}) {
    const int64_t w = 301, h = 247;
    auto img = random_image(w, h, bands, 12 + bands);
    img[(100 * w + 50) * bands] = std::numeric_limits<float>::quiet_NaN();
    for (int variant = 0; variant < 3; ++variant) {
      HogOptions o = dalal_triggs(variant == 2 ? 16 : 8, variant == 1 ? 3 : 2, static_cast<HogNorm>(3 - variant));
      o.signed_orientation = variant == 1;
      o.bins = variant == 2 ? 12 : 9;
      o.strip_cells = 9;
      expect_gpu_matches_cpu(run(img, w, h, bands, o), run(img, w, h, bands, o, Backend::Cuda),
                             std::to_string(bands) + " bands, variant " + std::to_string(variant));
    }
  }
}

}  // namespace
}  // namespace lsm
