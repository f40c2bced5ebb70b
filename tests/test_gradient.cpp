// Gaussian-derivative gradients: kernels, a direct double-precision 2-D
// convolution, ramps, borders, nodata, strip invariance, CPU/CUDA parity.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "error.h"
#include "gradient.h"
#include "test_helpers.h"

namespace lsm {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Planes {
  int64_t width = 0, height = 0;
  std::vector<float> v;  // kGradientPlanes x height x width
  float at(int plane, int64_t x, int64_t y) const { return v[(plane * height + y) * width + x]; }
};

Planes gradient(const std::vector<float>& image, int64_t w, int64_t h, GradientOptions o = {},
                Backend backend = Backend::Cpu) {
  MemoryFeatureRaster r(w, h, 1, image);
  auto pass = make_gradient_pass(backend);
  Planes p{w, h, std::vector<float>(static_cast<size_t>(kGradientPlanes * w * h), -1.0f)};
  run_gradient(r, o, *pass, [&](const Window& win, const float* planes) {
    for (int q = 0; q < kGradientPlanes; ++q)
      for (int64_t y = 0; y < win.height; ++y)
        for (int64_t x = 0; x < w; ++x)
          p.v[(q * h + win.y0 + y) * w + x] = planes[(q * win.height + y) * w + x];
  });
  return p;
}

std::vector<float> random_image(int64_t w, int64_t h, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(static_cast<size_t>(w * h));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) v[y * w + x] = float(100 * std::sin(x * 0.3) * std::cos(y * 0.2) + rng() % 50);
  return v;
}

TEST(GradientKernels, NormalisedAndOfTheRightSymmetry) {
  const GradientKernels k = gradient_kernels(1.0, 3);
  ASSERT_EQ(k.smooth.size(), 7u);
  double sum = 0, moment = 0;
  for (int i = -3; i <= 3; ++i) {
    sum += k.smooth[i + 3];
    moment += i * double(k.derivative[i + 3]);
    EXPECT_EQ(k.smooth[i + 3], k.smooth[3 - i]);
    EXPECT_EQ(k.derivative[i + 3], -k.derivative[3 - i]);
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_NEAR(moment, 1.0, 1e-6);
  EXPECT_NEAR(k.smooth[3], 1 / (1 + 2 * std::exp(-0.5) + 2 * std::exp(-2.0) + 2 * std::exp(-4.5)), 1e-7);
  EXPECT_THROW(gradient_kernels(0.0, 3), Error);
  EXPECT_THROW(gradient_kernels(1.0, 0), Error);
  EXPECT_THROW(gradient_kernels(1.0, 33), Error);
}

// Every output against the 2-D correlation evaluated directly in double
// precision with the replicate border.
TEST(Gradient, MatchesADirectDoublePrecisionConvolution) {
  const int64_t w = 37, h = 23;
  const std::vector<float> image = random_image(w, h, 3);
  GradientOptions o;
  o.sigma = 1.4;
  o.radius = 4;
  const Planes p = gradient(image, w, h, o);
  const GradientKernels k = gradient_kernels(o.sigma, o.radius);
  auto pixel = [&](int64_t x, int64_t y) {
    return double(image[std::clamp<int64_t>(y, 0, h - 1) * w + std::clamp<int64_t>(x, 0, w - 1)]);
  };
  double worst = 0;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      double gx = 0, gy = 0;
      for (int j = -o.radius; j <= o.radius; ++j)
        for (int i = -o.radius; i <= o.radius; ++i) {
          gx += double(k.smooth[j + o.radius]) * double(k.derivative[i + o.radius]) * pixel(x + i, y + j);
          gy += double(k.derivative[j + o.radius]) * double(k.smooth[i + o.radius]) * pixel(x + i, y + j);
        }
      const double mag = std::hypot(gx, gy);
      worst = std::max({worst, std::abs(p.at(kGradientX, x, y) - gx), std::abs(p.at(kGradientY, x, y) - gy),
                        std::abs(p.at(kGradientMagnitude, x, y) - mag)});
      if (mag > 1) EXPECT_NEAR(p.at(kGradientOrientation, x, y), std::atan2(gy, gx), 1e-4) << x << "," << y;
    }
  EXPECT_LT(worst, 2e-4);  // values up to ~100 per cell, float sums of 81 products
}

TEST(Gradient, RampGivesItsSlopeInTheInterior) {
  const int64_t w = 20, h = 15;
  std::vector<float> image(static_cast<size_t>(w * h));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) image[y * w + x] = float(2 * x + 3 * y);
  const Planes p = gradient(image, w, h);
  for (int64_t y = 3; y < h - 3; ++y)
    for (int64_t x = 3; x < w - 3; ++x) {
      EXPECT_NEAR(p.at(kGradientX, x, y), 2.0, 1e-4);
      EXPECT_NEAR(p.at(kGradientY, x, y), 3.0, 1e-4);
      EXPECT_NEAR(p.at(kGradientMagnitude, x, y), std::sqrt(13.0), 1e-4);
      EXPECT_NEAR(p.at(kGradientOrientation, x, y), std::atan2(3.0, 2.0), 1e-5);
    }
  // At the left edge the replicated cells flatten the ramp: a smaller gx.
  EXPECT_LT(p.at(kGradientX, 0, 7), 2.0f);
  EXPECT_GT(p.at(kGradientX, 0, 7), 0.5f);
}

TEST(Gradient, OneCellWideAndOneRowRasters) {
  std::vector<float> column(17);
  for (int i = 0; i < 17; ++i) column[i] = float(i * i);
  const Planes tall = gradient(column, 1, 17);
  const Planes wide = gradient(column, 17, 1);
  // Every column replicates the only one: no gradient across it (up to the
  // float rounding of the taps' sums, values here reach 256).
  for (int i = 0; i < 17; ++i) {
    EXPECT_NEAR(tall.at(kGradientX, 0, i), 0.0, 1e-5);
    EXPECT_NEAR(wide.at(kGradientY, i, 0), 0.0, 1e-5);
    EXPECT_NEAR(tall.at(kGradientY, 0, i), wide.at(kGradientX, i, 0), 1e-4);  // the same profile, transposed
  }
  EXPECT_NEAR(tall.at(kGradientY, 0, 8), 16.0, 1e-3);  // sum_i D(i) (y + i)^2 = 2y: 16 at y = 8
}

TEST(Gradient, NodataReachesExactlyTheSupport) {
  const int64_t w = 15, h = 13;
  std::vector<float> image = random_image(w, h, 9);
  image[6 * w + 7] = kNaN;
  const Planes p = gradient(image, w, h);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      const bool reached = std::abs(x - 7) <= 3 && std::abs(y - 6) <= 3;
      for (int q = 0; q < kGradientPlanes; ++q) EXPECT_EQ(std::isnan(p.at(q, x, y)), reached) << q << " " << x << "," << y;
    }
}

TEST(Gradient, ResultDoesNotDependOnStrips) {
  const int64_t w = 41, h = 29;
  const std::vector<float> image = random_image(w, h, 5);
  const Planes reference = gradient(image, w, h);
  for (int64_t rows : {1, 2, 5, 28, 1000}) {
    GradientOptions o;
    o.strip_rows = rows;
    const Planes p = gradient(image, w, h, o);
    EXPECT_EQ(p.v, reference.v) << "strip rows " << rows;
  }
}

TEST(Gradient, BadInput) {
  MemoryFeatureRaster three(4, 4, 3, std::vector<float>(48, 1.0f));
  auto pass = make_cpu_gradient_pass();
  EXPECT_THROW(run_gradient(three, {}, *pass, [](const Window&, const float*) {}), Error);
  MemoryFeatureRaster one(4, 4, 1, std::vector<float>(16, 1.0f));
  GradientOptions o;
  o.strip_rows = 0;
  EXPECT_THROW(run_gradient(one, o, *pass, [](const Window&, const float*) {}), Error);
  o = {};
  o.sigma = -1;
  EXPECT_THROW(run_gradient(one, o, *pass, [](const Window&, const float*) {}), Error);
}

TEST(GradientCuda, SameAsCpu) {
  LSM_REQUIRE_CUDA();
  const int64_t w = 1031, h = 517;
  std::vector<float> image = random_image(w, h, 11);
  image[200 * w + 300] = kNaN;
  for (int radius : {3, 7, 28, 32}) {  // 3 to 28: 16-row tiles; 32: 8 rows
    GradientOptions o;
    o.radius = radius;
    o.sigma = radius / 3.0;
    o.strip_rows = 100;
    const Planes cpu = gradient(image, w, h, o, Backend::Cpu);
    const Planes cuda = gradient(image, w, h, o, Backend::Cuda);
    const size_t plane = static_cast<size_t>(w * h);
    for (int q = 0; q < kGradientPlanes; ++q) {
      size_t differing = 0;
      for (size_t i = q * plane; i < (q + 1) * plane; ++i) {
        const float a = cpu.v[i], b = cuda.v[i];
        if (std::isnan(a) || std::isnan(b)) {
          differing += std::isnan(a) != std::isnan(b);
        } else if (q == kGradientOrientation) {
          differing += std::abs(a - b) > 1e-5f * std::max(1.0f, std::abs(a));  // atan2f: 2 ulp
        } else {
          differing += a != b;  // the same float operations in the same order
        }
      }
      EXPECT_EQ(differing, 0u) << "plane " << q << " radius " << radius;
    }
  }
}

}  // namespace
}  // namespace lsm
