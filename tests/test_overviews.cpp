// Overviews (lsm pyramid --overviews, issue 6): GDAL's level sizes and
// factors, GDAL's source windows (2 x 2, and the weighted 2-3 cell windows of
// odd sizes), average and mode with nodata and GDAL's tie rule, strips, and
// the CUDA pass against the CPU reference bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <random>
#include <vector>

#include "error.h"
#include "overviews.h"

namespace lsm {
namespace {

std::vector<float> reduce_all(OverviewPass& pass, const std::vector<float>& in, int64_t w, int64_t h,
                              OverviewMethod m, int64_t strip = 1 << 20) {
  const OverviewGeometry g = overview_geometry(w, h);
  std::vector<float> out(static_cast<size_t>(g.width * g.height));
  for (int64_t y0 = 0; y0 < g.height; y0 += strip) {
    const int64_t rows = std::min(strip, g.height - y0);
    int64_t first = 0, last = 0;
    overview_source_rows(g, y0, y0 + rows, &first, &last);
    pass.reduce(g, m, in.data() + first * w, first, last - first, y0, rows, out.data() + y0 * g.width);
  }
  return out;
}

TEST(Overviews, FactorsAndSizesAsGdal) {
  EXPECT_EQ(overview_factors(1000, 800), (std::vector<int>{2, 4}));
  EXPECT_EQ(overview_factors(256, 100), (std::vector<int>{}));
  EXPECT_EQ(overview_factors(257, 10), (std::vector<int>{2}));
  EXPECT_EQ(overview_factors(100000, 3), (std::vector<int>{2, 4, 8, 16, 32, 64, 128, 256, 512}));  // 196 wide
  EXPECT_EQ(overview_size(1001, 2), 501);
  EXPECT_EQ(overview_size(1001, 4), 251);
  const OverviewGeometry g = overview_geometry(1001, 6);
  EXPECT_EQ(g.width, 501);
  EXPECT_EQ(g.height, 3);
  EXPECT_DOUBLE_EQ(g.ratio_x, 1001.0 / 501.0);
  EXPECT_DOUBLE_EQ(g.ratio_y, 2.0);
  EXPECT_THROW(parse_overview_method("bilinear"), Error);
}

TEST(Overviews, AverageOfEvenBlocksWithNodata) {
  const float n = NAN;
  const std::vector<float> in{1, 2, 5, n,   //
                              3, 4, n, n,   //
                              n, n, 7, 8,   //
                              n, n, 9, 10};
  auto pass = make_cpu_overview_pass();
  const auto out = reduce_all(*pass, in, 4, 4, OverviewMethod::Average);
  EXPECT_FLOAT_EQ(out[0], 2.5f);
  EXPECT_FLOAT_EQ(out[1], 5.0f);  // only one cell has data
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_FLOAT_EQ(out[3], 8.5f);
}

// Width 3 -> 2 cells, ratio 1.5: windows [0, 2) and [1, 3), the shared
// middle cell weighted 0.5 in each (GDAL's weighted average).
TEST(Overviews, OddSizesUseGdalsWeightedWindows) {
  auto pass = make_cpu_overview_pass();
  const auto out = reduce_all(*pass, {1, 2, 3}, 3, 1, OverviewMethod::Average);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[0], static_cast<float>((1 * 1.0 + 2 * 0.5) / 1.5));
  EXPECT_FLOAT_EQ(out[1], static_cast<float>((2 * 0.5 + 3 * 1.0) / 1.5));
  const auto modes = reduce_all(*pass, {4, 9, 9}, 3, 1, OverviewMethod::Mode);
  EXPECT_EQ(modes[0], 4.0f);  // [4, 9]: a tie, the first value to lead
  EXPECT_EQ(modes[1], 9.0f);
}

TEST(Overviews, ModeAndGdalsTieRule) {
  auto pass = make_cpu_overview_pass();
  const float n = NAN;
  // Blocks (row-major): [1 2 / 2 1] -> 2 reaches a count of 2 first;
  // [3 3 / 5 5] -> 3; [n 6 / n n] -> 6; [n n / n n] -> nodata.
  const std::vector<float> in{1, 2, 3, 3, n, 6, n, n,  //
                              2, 1, 5, 5, n, n, n, n};
  const auto out = reduce_all(*pass, in, 8, 2, OverviewMethod::Mode);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], 3.0f);
  EXPECT_EQ(out[2], 6.0f);
  EXPECT_TRUE(std::isnan(out[3]));
}

TEST(Overviews, StripsDoNotChangeTheResult) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(0, 100);
  const int64_t w = 301, h = 203;
  std::vector<float> in(static_cast<size_t>(w * h));
  for (float& v : in) v = u(rng) < 10 ? NAN : std::floor(u(rng) / 20);
  auto pass = make_cpu_overview_pass();
  for (OverviewMethod m : {OverviewMethod::Average, OverviewMethod::Mode}) {
    const auto whole = reduce_all(*pass, in, w, h, m);
    for (int64_t strip : {1, 7, 50}) {
      const auto strips = reduce_all(*pass, in, w, h, m, strip);
      EXPECT_EQ(0, std::memcmp(whole.data(), strips.data(), whole.size() * sizeof(float))) << strip;
    }
  }
}

TEST(OverviewsCuda, SameAsCpu) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(0, 1000);
  for (const auto& [w, h] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 1}, {1001, 777}, {2048, 1024}}) {
    std::vector<float> in(static_cast<size_t>(w * h));
    for (float& v : in) v = u(rng) < 50 ? NAN : u(rng);
    auto cpu = make_cpu_overview_pass();
    auto cuda = make_overview_pass(Backend::Cuda);
    for (OverviewMethod m : {OverviewMethod::Average, OverviewMethod::Mode}) {
      if (m == OverviewMethod::Mode)
        for (float& v : in) v = std::isnan(v) ? v : std::floor(v / 250);
      const auto a = reduce_all(*cpu, in, w, h, m, 100), b = reduce_all(*cuda, in, w, h, m, 100);
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << w << "x" << h;
    }
  }
}

}  // namespace
}  // namespace lsm
