// Results never depend on the tile size or the backend: patch tables and
// patch-ID rasters are compared with an independent brute-force labeling.
#include "test_helpers.h"

namespace lsm::test {
namespace {

struct TileShape {
  int64_t w, h;
};

std::vector<TileShape> shapes(int64_t width) {
  // whole raster (0 = auto picks the whole of these small rasters), 64, 17, 1 x N strips, odd rectangles
  return {{0, 0}, {64, 64}, {17, 17}, {width, 1}, {1, 37}, {5, 3}};
}

class Parity : public ::testing::TestWithParam<int> {};

TEST_P(Parity, TileSizesMatchBruteForce) {
  const NeighbourRule rule = GetParam() == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
  for (uint64_t seed : {1u, 2u}) {
    auto raster = random_landscape(150, 97, 4, seed, seed == 2 ? 0.2 : 0.0);
    const Reference ref = brute_force(raster, rule);
    ASSERT_GT(ref.patches.size(), 20u) << "landscape too simple to test seams";
    for (const TileShape& s : shapes(150)) {
      EXPECT_EQ(scan(raster, rule, s.w, s.h).patches, ref.patches) << "tile " << s.w << "x" << s.h;
      EXPECT_EQ(patch_ids(raster, rule, s.w, s.h), ref.labels) << "tile " << s.w << "x" << s.h;
    }
  }
}

TEST_P(Parity, CudaMatchesCpu) {
  LSM_REQUIRE_CUDA();
  const NeighbourRule rule = GetParam() == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
  for (uint64_t seed : {3u, 4u}) {
    auto raster = random_landscape(1500, 1100, 6, seed, seed == 4 ? 0.15 : 0.0);
    const Reference ref = brute_force(raster, rule);
    for (const TileShape& s : {TileShape{0, 0}, TileShape{64, 64}, TileShape{17, 17}, TileShape{1500, 1},
                               TileShape{1500, 1100}}) {
      EXPECT_EQ(scan(raster, rule, s.w, s.h, Backend::Cuda).patches, ref.patches) << "tile " << s.w << "x" << s.h;
      EXPECT_EQ(patch_ids(raster, rule, s.w, s.h, Backend::Cuda), ref.labels) << "tile " << s.w << "x" << s.h;
    }
  }
}

// Class codes that do not fit a byte (three-digit CORINE codes, a negative
// code) reach the device as Int32 strips instead of packed bytes.
TEST_P(Parity, CudaMatchesCpuOnCodesBeyondAByte) {
  LSM_REQUIRE_CUDA();
  const NeighbourRule rule = GetParam() == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
  MemoryClassRaster raster = with_wide_codes(random_landscape(700, 500, 6, 5, 0.1));
  const Reference ref = brute_force(raster, rule);
  ASSERT_GT(ref.patches.size(), 20u) << "landscape too simple to test seams";
  for (const TileShape& s : {TileShape{0, 0}, TileShape{64, 64}, TileShape{700, 1}}) {
    EXPECT_EQ(scan(raster, rule, s.w, s.h, Backend::Cuda).patches, ref.patches) << "tile " << s.w << "x" << s.h;
    EXPECT_EQ(patch_ids(raster, rule, s.w, s.h, Backend::Cuda), ref.labels) << "tile " << s.w << "x" << s.h;
  }
}

INSTANTIATE_TEST_SUITE_P(NeighbourRules, Parity, ::testing::Values(4, 8),
                         [](const auto& info) { return "rule" + std::to_string(info.param); });

}  // namespace
}  // namespace lsm::test
