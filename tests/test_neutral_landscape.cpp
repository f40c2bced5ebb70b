#include "neutral_landscape.h"

#include <gtest/gtest.h>

#include <map>

#include "error.h"

namespace lsm {
namespace {

NeutralLandscapeOptions options(uint64_t seed) {
  NeutralLandscapeOptions o;
  o.width = 300;
  o.height = 200;
  o.classes = 4;
  o.seed = seed;
  return o;
}

std::vector<int32_t> generate(const NeutralLandscape& n, Window w) {
  std::vector<int32_t> out(static_cast<size_t>(w.width * w.height));
  n.classify(w, out.data());
  return out;
}

TEST(NeutralLandscape, DeterministicAndSeeded) {
  const Window all{0, 0, 300, 200};
  EXPECT_EQ(generate(NeutralLandscape(options(7)), all), generate(NeutralLandscape(options(7)), all));
  EXPECT_NE(generate(NeutralLandscape(options(7)), all), generate(NeutralLandscape(options(8)), all));
}

TEST(NeutralLandscape, WindowsAgreeWithTheWhole) {
  const NeutralLandscape n(options(3));
  const std::vector<int32_t> all = generate(n, {0, 0, 300, 200});
  const Window w{123, 45, 67, 89};
  const std::vector<int32_t> part = generate(n, w);
  for (int64_t y = 0; y < w.height; ++y)
    for (int64_t x = 0; x < w.width; ++x) ASSERT_EQ(part[y * w.width + x], all[(w.y0 + y) * 300 + w.x0 + x]);
}

TEST(NeutralLandscape, ClassesOfSimilarShare) {
  const std::vector<int32_t> all = generate(NeutralLandscape(options(5)), {0, 0, 300, 200});
  std::map<int32_t, int> count;
  for (int32_t c : all) count[c]++;
  ASSERT_EQ(count.size(), 4u);
  for (const auto& [code, n] : count) {
    EXPECT_GE(code, 1);
    EXPECT_LE(code, 4);
    EXPECT_NEAR(n / 60000.0, 0.25, 0.08) << "class " << code;
  }
}

TEST(NeutralLandscape, RejectsBadOptions) {
  NeutralLandscapeOptions o = options(1);
  o.classes = 0;
  EXPECT_THROW(NeutralLandscape{o}, Error);
  o = options(1);
  o.roughness = 1.5;
  EXPECT_THROW(NeutralLandscape{o}, Error);
  o = options(1);
  o.width = 0;
  EXPECT_THROW(NeutralLandscape{o}, Error);
}

}  // namespace
}  // namespace lsm
