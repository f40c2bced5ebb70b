// Pyramid levels: sizes, bilinear against a direct double-precision
// evaluation, area means, Gaussian smoothing, the base level, nodata, strip
// invariance, bad input, CPU/CUDA parity.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "error.h"
#include "pyramid.h"
#include "test_helpers.h"

namespace lsm {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> random_image(int64_t w, int64_t h, int bands, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0, 255);
  std::vector<float> v(static_cast<size_t>(w * h * bands));
  for (auto& x : v) x = u(rng);
  return v;
}

// A level read whole, or in strips of `strip` rows.
std::vector<float> level(const std::vector<float>& img, int64_t w, int64_t h, int bands, int64_t lw, int64_t lh,
                         Resampling r, Backend backend = Backend::Cpu, int64_t strip = 0) {
  MemoryFeatureRaster source(w, h, bands, img);
  auto pass = make_pyramid_pass(backend);
  PyramidLevelRaster l(source, lw, lh, r, *pass);
  std::vector<float> out(static_cast<size_t>(lw * lh * bands));
  if (strip == 0) strip = lh;
  for (int64_t y = 0; y < lh; y += strip)
    l.read(Window{0, y, lw, std::min(strip, lh - y)}, out.data() + y * lw * bands);
  return out;
}

TEST(Pyramid, SizesOfThePapersPyramid) {
  const auto s = pyramid_sizes(1920, 1080, PyramidOptions{});
  ASSERT_EQ(s.size(), 31u);
  EXPECT_EQ(s[0], std::make_pair(int64_t(1920), int64_t(1080)));
  EXPECT_EQ(s[1], std::make_pair(int64_t(1829), int64_t(1029)));  // 1828.57, 1028.57
  EXPECT_EQ(s[30], std::make_pair(int64_t(444), int64_t(250)));   // / 1.05^30 = 4.3219
}

// Bilinear: u = (x + 0.5) sx - 0.5 clamped, evaluated here in double.
TEST(Pyramid, BilinearMatchesADirectEvaluation) {
  const int64_t w = 37, h = 23, lw = 28, lh = 17;
  const auto img = random_image(w, h, 1, 1);
  const auto out = level(img, w, h, 1, lw, lh, Resampling::Bilinear);
  const double sx = double(w) / lw, sy = double(h) / lh;
  auto weight = [](double u, int64_t size, int64_t* i0, int64_t* i1) {
    u = std::clamp(u, 0.0, double(size - 1));
    *i0 = static_cast<int64_t>(std::floor(u));
    *i1 = std::min(*i0 + 1, size - 1);
    return u - *i0;
  };
  for (int64_t y = 0; y < lh; ++y)
    for (int64_t x = 0; x < lw; ++x) {
      int64_t x0, x1, y0, y1;
      const double a = weight((x + 0.5) * sx - 0.5, w, &x0, &x1), c = weight((y + 0.5) * sy - 0.5, h, &y0, &y1);
      const double top = (1 - a) * img[y0 * w + x0] + a * img[y0 * w + x1];
      const double bottom = (1 - a) * img[y1 * w + x0] + a * img[y1 * w + x1];
      const double expect = (1 - c) * top + c * bottom;
      EXPECT_NEAR(out[y * lw + x], expect, 1e-5 * 255) << x << "," << y;
    }
}

TEST(Pyramid, AreaIsTheOverlapWeightedMean) {
  // 3 x 3 to 2 x 2: each level pixel covers 1.5 x 1.5 source pixels.
  const std::vector<float> img = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto out = level(img, 3, 3, 1, 2, 2, Resampling::Area);
  // Top-left: rows/columns 0 (weight 1) and 1 (weight 0.5): (1 + 0.5*2 + 0.5*4 + 0.25*5) / 2.25.
  EXPECT_FLOAT_EQ(out[0], float((1 + 1 + 2 + 1.25) / 2.25));
  EXPECT_FLOAT_EQ(out[3], float((0.25 * 5 + 0.5 * 6 + 0.5 * 8 + 9) / 2.25));
  // 4 x 4 to 2 x 2 is the 2 x 2 mean; a NaN is left out.
  std::vector<float> four(16);
  for (int i = 0; i < 16; ++i) four[i] = float(i);
  four[0] = kNaN;
  const auto half = level(four, 4, 4, 1, 2, 2, Resampling::Area);
  EXPECT_FLOAT_EQ(half[0], (1 + 4 + 5) / 3.0f);
  EXPECT_FLOAT_EQ(half[3], (10 + 11 + 14 + 15) / 4.0f);
}

TEST(Pyramid, GaussianKeepsAConstantAndSmoothsAStep) {
  const int64_t w = 40, h = 30;
  std::vector<float> flat(static_cast<size_t>(w * h), 7.0f);
  for (float v : level(flat, w, h, 1, 20, 15, Resampling::Gaussian)) EXPECT_NEAR(v, 7.0f, 1e-5);
  const LevelMapping m = level_mapping(w, h, 20, 15, Resampling::Gaussian);
  EXPECT_EQ(m.radius_x, 3);  // sigma 2 * 2 / 6 = 0.667, round(4 sigma) = 3
  std::vector<float> step(static_cast<size_t>(w * h), 0.0f);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = w / 2; x < w; ++x) step[y * w + x] = 1;
  const auto g = level(step, w, h, 1, 20, 15, Resampling::Gaussian);
  const auto b = level(step, w, h, 1, 20, 15, Resampling::Bilinear);
  // Bilinear samples x = 9 at source 18.5 (0) and x = 10 at 20.5 (1); the Gaussian blurs both.
  EXPECT_EQ(b[9], 0.0f);
  EXPECT_EQ(b[10], 1.0f);
  EXPECT_GT(g[9], 0.05f);
  EXPECT_LT(g[10], 0.95f);
}

TEST(Pyramid, LevelZeroIsTheBaseAndNodataStaysPut) {
  const int64_t w = 9, h = 5;
  auto img = random_image(w, h, 3, 2);
  img[(2 * w + 4) * 3] = kNaN;  // a nodata cell (first band NaN)
  for (Resampling r : {Resampling::Bilinear, Resampling::Area, Resampling::Gaussian}) {
    const auto out = level(img, w, h, 3, w, h, r);
    for (size_t i = 0; i < img.size(); ++i) {
      if (i / 3 == size_t(2 * w + 4)) EXPECT_TRUE(std::isnan(out[i])) << i;  // every band
      else EXPECT_EQ(out[i], img[i]) << i;
    }
  }
}

TEST(Pyramid, ResultDoesNotDependOnStrips) {
  const int64_t w = 53, h = 41;
  const auto img = random_image(w, h, 2, 3);
  for (Resampling r : {Resampling::Bilinear, Resampling::Area, Resampling::Gaussian}) {
    const auto whole = level(img, w, h, 2, 31, 19, r);
    for (int64_t strip : {1, 2, 7}) EXPECT_EQ(level(img, w, h, 2, 31, 19, r, Backend::Cpu, strip), whole) << strip;
  }
}

TEST(Pyramid, BadInput) {
  PyramidOptions o;
  o.levels = 31;
  try {
    pyramid_sizes(20, 10, o);  // 10 / 1.05^l < 0.5 from l = 62: fine; 20 x 10 at scale 2 is not
    o.scale = 2;
    pyramid_sizes(20, 10, o);
    FAIL() << "a level below one pixel was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("smaller than one pixel"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use at most 5 levels"), std::string::npos) << e.what();
  }
  o.scale = 1;
  EXPECT_THROW(pyramid_sizes(100, 100, o), Error);
  o.scale = 1.05;
  o.levels = 0;
  EXPECT_THROW(pyramid_sizes(100, 100, o), Error);
  EXPECT_THROW(parse_resampling("cubic"), Error);
  EXPECT_THROW(level_mapping(1000, 1000, 10, 10, Resampling::Gaussian), Error);  // 100 times smaller
}

TEST(PyramidCuda, SameAsCpu) {
  LSM_REQUIRE_CUDA();
  const int64_t w = 301, h = 203;
  auto img = random_image(w, h, 3, 4);
  img[(50 * w + 60) * 3] = kNaN;
  for (Resampling r : {Resampling::Bilinear, Resampling::Area, Resampling::Gaussian})
    for (auto [lw, lh] : {std::make_pair(int64_t(287), int64_t(193)), std::make_pair(int64_t(70), int64_t(47))}) {
      const auto cpu = level(img, w, h, 3, lw, lh, r, Backend::Cpu, 13);
      const auto gpu = level(img, w, h, 3, lw, lh, r, Backend::Cuda, 13);
      ASSERT_EQ(cpu.size(), gpu.size());
      for (size_t i = 0; i < cpu.size(); ++i) {
        if (std::isnan(cpu[i])) EXPECT_TRUE(std::isnan(gpu[i])) << i;
        else EXPECT_EQ(gpu[i], cpu[i]) << "resampling " << int(r) << " level " << lw << " at " << i;
      }
    }
}

}  // namespace
}  // namespace lsm
