// HOG (scikit-image's variant): hand-made edges with known histograms, bin
// edges, signed orientations, nodata, block normalisations, strip
// invariance, bad input, CPU/CUDA parity. The astronaut references of
// scikit-image are checked through the CLI (test_cli_image.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "error.h"
#include "hog.h"
#include "hog_math.h"
#include "hog_test_helpers.h"
#include "test_helpers.h"

namespace lsm {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using Hog = HogResult;

Hog hog(const std::vector<float>& image, int64_t w, int64_t h, const HogOptions& o, Backend backend = Backend::Cpu) {
  return run_hog_on(image, w, h, 1, o, backend);
}

// The raw cell histograms: 1x1 blocks normalised by L1 are h / (h + 1e-5)
// for one non-zero bin, so use the pass directly instead.
std::vector<float> cell_histograms(const std::vector<float>& image, int64_t w, int64_t h, const HogOptions& o,
                                   Backend backend = Backend::Cpu) {
  const HogGeometry g = hog_geometry(w, h, o);
  std::vector<double> grey(static_cast<size_t>((g.cells_y * o.cell + 2) * w), 0.0);
  for (int64_t y = 0; y < std::min(h, g.cells_y * o.cell + 1); ++y)
    for (int64_t x = 0; x < w; ++x) grey[(y + 1) * w + x] = image[y * w + x];
  std::vector<float> hist(static_cast<size_t>(g.cells_y * g.cells_x * o.bins));
  make_hog_pass(backend)->cell_histograms(o, g, grey.data(), 0, g.cells_y, hist.data());
  return hist;
}

std::vector<float> random_image(int64_t w, int64_t h, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> v(static_cast<size_t>(w * h));
  for (auto& x : v) x = u(rng);
  return v;
}

// A vertical step between columns 7 and 8 of a 16 x 16 image: the central
// differences are 1 at columns 7 and 8 (rows 0..15), orientation 0: each
// cell's bin 0 holds 8 pixels of magnitude 1 over 64 pixels.
TEST(Hog, VerticalStepFillsBinZero) {
  std::vector<float> img(256);
  for (int y = 0; y < 16; ++y)
    for (int x = 8; x < 16; ++x) img[y * 16 + x] = 1;
  HogOptions o;
  o.block = 1;
  const auto h = cell_histograms(img, 16, 16, o);
  for (int c = 0; c < 4; ++c)
    for (int b = 0; b < 9; ++b) EXPECT_EQ(h[c * 9 + b], b == 0 ? 0.125f : 0.0f) << "cell " << c << " bin " << b;
  // The step falling instead (x >= 8 dark) points to 180 degrees: bin 0
  // unsigned, bin 4 ([160, 200)) of 9 signed bins over 360.
  for (auto& v : img) v = 1 - v;
  o.signed_orientation = true;
  const auto s = cell_histograms(img, 16, 16, o);
  for (int c = 0; c < 4; ++c)
    for (int b = 0; b < 9; ++b) EXPECT_EQ(s[c * 9 + b], b == 4 ? 0.125f : 0.0f) << "cell " << c << " bin " << b;
}

// A diagonal ramp grey = x + y: g_row = g_col = 2 inside, 45 degrees, bin 2
// ([40, 60)); the image's first/last rows and columns have one zero component.
TEST(Hog, DiagonalRampVotesAt45Degrees) {
  std::vector<float> img(16 * 8);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 16; ++x) img[y * 16 + x] = float(x + y);
  HogOptions o;
  o.block = 1;
  const auto h = cell_histograms(img, 16, 8, o);
  // Cell 0: rows 1..6 x columns 1..7 are interior (42 pixels, magnitude 2 sqrt 2);
  // row 0 and 7 (gradient (0, 2) -> 0 degrees, magnitude 2) and column 0 ((2, 0) -> 90 degrees).
  float interior = 0, zero = 0, ninety = 0;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      const bool edge_row = y == 0 || y == 7, edge_col = x == 0;
      if (edge_row && edge_col) continue;  // both components zero: magnitude 0
      if (edge_row) zero = hog_math::accumulate(zero, 2.0);
      else if (edge_col) ninety = hog_math::accumulate(ninety, 2.0);
      else interior = hog_math::accumulate(interior, std::hypot(2.0, 2.0));
    }
  EXPECT_EQ(h[0], zero / 64);
  EXPECT_EQ(h[2], interior / 64);
  EXPECT_EQ(h[4], ninety / 64);
  EXPECT_NEAR(h[2], 42 * 2 * std::sqrt(2.0) / 64, 1e-5);
  for (int b : {1, 3, 5, 6, 7, 8}) EXPECT_EQ(h[b], 0.0f);
}

TEST(HogMath, OrientationsAndBinEdges) {
  EXPECT_EQ(hog_math::orientation_degrees(0, -1, 180), 0.0);      // 180 degrees folds to 0
  EXPECT_EQ(hog_math::orientation_degrees(-0.0, -1, 180), 0.0);   // -180 too
  EXPECT_NEAR(hog_math::orientation_degrees(-1, 0, 180), 90.0, 1e-12);
  EXPECT_NEAR(hog_math::orientation_degrees(-1, 0, 360), 270.0, 1e-12);
  EXPECT_EQ(hog_math::orientation_bin(0.0, 20.0f, 9), 0);
  EXPECT_EQ(hog_math::orientation_bin(19.999999, 20.0f, 9), 0);
  EXPECT_EQ(hog_math::orientation_bin(20.0, 20.0f, 9), 1);
  EXPECT_EQ(hog_math::orientation_bin(179.9999, 20.0f, 9), 8);
  // 180 / 7 is inexact: the edges are the single-precision products, as in skimage.
  const float w7 = static_cast<float>(180.0 / 7);
  const double edge = double(w7 * 3.0f);
  EXPECT_EQ(hog_math::orientation_bin(edge, w7, 7), 3);
  EXPECT_EQ(hog_math::orientation_bin(std::nextafter(edge, 0.0), w7, 7), 2);
  EXPECT_EQ(hog_math::orientation_bin(179.99999999, w7, 7), 6);
}


// The CUDA pass picks most bins from approximate_degrees and trusts it only
// 1e-3 degrees away from an edge: its error must stay well below that in
// every octant, at every scale of gradient.
TEST(HogMath, ApproximateDegreesWithin1e4OfAtan2) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), exponent(-20.0, 20.0);
  double worst = 0;
  for (int i = 0; i < 2000000; ++i) {
    const double scale = std::pow(2.0, exponent(rng));
    const float g_row = static_cast<float>(unit(rng) * scale), g_col = static_cast<float>(unit(rng) * scale);
    if (g_row == 0 && g_col == 0) continue;
    const double exact = std::atan2(double(g_row), double(g_col)) * 180.0 / 3.14159265358979323846;
    worst = std::max(worst, std::fabs(hog_math::approximate_degrees(g_row, g_col) - exact));
  }
  EXPECT_LT(worst, 1e-4);
  EXPECT_NEAR(hog_math::approximate_degrees(-1, 0), -90.0, 1e-4);
  EXPECT_NEAR(hog_math::approximate_degrees(1, -1), 135.0, 1e-4);
  EXPECT_TRUE(std::isnan(hog_math::approximate_degrees(0, 0)));
  EXPECT_TRUE(std::isnan(hog_math::approximate_degrees(kNaN, 1)));
  EXPECT_TRUE(std::isnan(hog_math::approximate_degrees(1, 3e30f)));
}
TEST(HogMath, BlockNormalisations) {
  const double in[4] = {1, 0, 3, 0};
  double v[4];
  std::copy(in, in + 4, v);
  hog_math::normalize_block(v, 4, int(HogNorm::L1));
  EXPECT_DOUBLE_EQ(v[2], 3 / (4 + 1e-5));
  std::copy(in, in + 4, v);
  hog_math::normalize_block(v, 4, int(HogNorm::L1Sqrt));
  EXPECT_DOUBLE_EQ(v[0], std::sqrt(1 / (4 + 1e-5)));
  std::copy(in, in + 4, v);
  hog_math::normalize_block(v, 4, int(HogNorm::L2));
  EXPECT_DOUBLE_EQ(v[2], 3 / std::sqrt(10 + 1e-10));
  // L2-Hys: 0.316 and 0.949 clip to 0.2 each, then renormalise: 1/sqrt(2) each.
  std::copy(in, in + 4, v);
  hog_math::normalize_block(v, 4, int(HogNorm::L2Hys));
  EXPECT_NEAR(v[0], std::sqrt(0.5), 1e-9);
  EXPECT_NEAR(v[2], std::sqrt(0.5), 1e-9);
  EXPECT_EQ(v[1], 0.0);
}

// Blocks are the cells' histograms in row-major cell order, bins innermost.
TEST(Hog, BlockLayoutIsSkimagesFeatureVectorFalse) {
  const int64_t w = 40, h = 32;
  const auto img = random_image(w, h, 3);
  HogOptions o;
  o.block = 2;
  o.norm = HogNorm::L1;
  const auto cells = cell_histograms(img, w, h, o);
  const Hog d = hog(img, w, h, o);
  ASSERT_EQ(d.g.blocks_x, 4);
  ASSERT_EQ(d.g.blocks_y, 3);
  for (int64_t by = 0; by < 3; ++by)
    for (int64_t bx = 0; bx < 4; ++bx) {
      double sum = 0;
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
          for (int b = 0; b < 9; ++b) sum += cells[((by + r) * 5 + bx + c) * 9 + b];
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
          for (int b = 0; b < 9; ++b)
            EXPECT_NEAR(d.at(by, bx, (r * 2 + c) * 9 + b), cells[((by + r) * 5 + bx + c) * 9 + b] / (sum + 1e-5),
                        1e-12);
    }
}

// A NaN pixel votes NaN into every bin of the cells whose gradients reach it.
TEST(Hog, NodataMakesItsBlocksNan) {
  const int64_t w = 48, h = 48;
  auto img = random_image(w, h, 5);
  img[20 * w + 30] = kNaN;  // cell (2, 3); its neighbours' gradients stay in that cell
  HogOptions o;
  o.block = 2;
  const Hog d = hog(img, w, h, o);
  for (int64_t by = 0; by < d.g.blocks_y; ++by)
    for (int64_t bx = 0; bx < d.g.blocks_x; ++bx) {
      const bool holds = by <= 2 && 2 <= by + 1 && bx <= 3 && 3 <= bx + 1;
      EXPECT_EQ(std::isnan(d.at(by, bx, 0)), holds) << by << "," << bx;
    }
}

TEST(Hog, ResultDoesNotDependOnStrips) {
  const int64_t w = 101, h = 83;  // partial cells at the right and bottom
  const auto img = random_image(w, h, 9);
  HogOptions o;
  o.cell = 6;
  o.block = 3;
  o.bins = 7;
  const Hog whole = hog(img, w, h, o);
  for (int64_t strip : {1, 2, 5}) {
    o.strip_cells = strip;
    EXPECT_EQ(hog(img, w, h, o).d, whole.d) << strip << " cell rows per strip";
  }
}

TEST(Hog, BadInput) {
  const auto img = random_image(20, 30, 1);
  HogOptions o;
  EXPECT_THROW(hog(img, 20, 30, o), Error);  // 20 < one block of 24 pixels
  try {
    hog_geometry(20, 30, o);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("smaller than one HOG block of 24 x 24 pixels"), std::string::npos) << e.what();
  }
  o.cell = 0;
  EXPECT_THROW(hog_geometry(100, 100, o), Error);
  EXPECT_THROW(parse_hog_norm("L3"), Error);
  EXPECT_EQ(parse_hog_norm("L1-sqrt"), HogNorm::L1Sqrt);
  MemoryFeatureRaster two_bands(30, 30, 2, std::vector<float>(1800, 1.0f));
  auto pass = make_cpu_hog_pass();
  EXPECT_THROW(run_hog(two_bands, HogOptions{}, *pass, [](int64_t, int64_t, const double*) {}), Error);
}

TEST(HogCuda, SameAsCpu) {
  LSM_REQUIRE_CUDA();
  const int64_t w = 333, h = 261;
  auto img = random_image(w, h, 11);
  img[100 * w + 50] = kNaN;
  for (int variant = 0; variant < 5; ++variant) {
    HogOptions o;
    o.norm = static_cast<HogNorm>(variant % 4);
    o.bins = variant == 1 ? 7 : variant == 4 ? 30 : 9;
    o.signed_orientation = variant == 2;
    o.cell = variant == 3 ? 16 : variant == 4 ? 4 : variant == 2 ? 6 : 8;  // 6: 36 pixels a cell
    o.block = variant == 3 ? 2 : variant == 4 ? 6 : 3;  // variant 4: 1080 values a block, one warp per thread block
    o.strip_cells = 7;
    expect_gpu_matches_cpu(hog(img, w, h, o), hog(img, w, h, o, Backend::Cuda), "variant " + std::to_string(variant));
  }
}

}  // namespace
}  // namespace lsm
