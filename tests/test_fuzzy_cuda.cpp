// The CUDA fuzzy-connectedness engine streaming a volume larger than its
// device budget in slabs (issue 7): the same scene as the sequential kFOE,
// whatever the slab size. Skips where no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "fuzzy_connectedness.h"
#include "fuzzy_cuda.h"
#include "fuzzy_math.h"

namespace lsm {
namespace {

TEST(FuzzyCudaSlabs, SameSceneAsTheReferenceForEverySlabSize) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const int64_t w = 48, h = 40, d = 37;
  std::vector<float> values;
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0.0f, 6.0f);
  for (int64_t z = 0; z < d; ++z)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        values.push_back(100.0f + 30.0f * std::sin(0.3f * x) * std::sin(0.25f * y + 0.4f * z) + noise(rng));
  const VolumeView volume{values.data(), w, h, d};
  const std::vector<Voxel> seeds{{3, 4, 0}, {40, 30, 36}};
  for (Adjacency adj : {Adjacency::Face, Adjacency::Full}) {
    const AffinityParameters a = affinity_parameters({100.0, 12.0, 6.0}, adj);
    std::vector<float> expected(values.size()), scene(values.size());
    fuzzy_connectedness_reference(volume, a, seeds, expected.data());
    for (int64_t slab_planes : {1, 2, 5, 36, 0}) {
      auto engine = make_cuda_fuzzy_engine(0, slab_planes ? (slab_planes + 2) * w * h : 0);
      engine->run(volume, a, seeds, scene.data());
      int64_t differing = 0;
      for (size_t i = 0; i < scene.size(); ++i) differing += scene[i] != expected[i];
      EXPECT_EQ(differing, 0) << "slabs of " << slab_planes << " slices, full adjacency " << (adj == Adjacency::Full);
    }
  }
}

// A corridor of vertical lanes (along z) linked at alternating ends, in the
// x-z plane y = 1 of a volume walled everywhere else: its path crosses every
// slab border back and forth, once per lane. Connectivity along it is the
// running minimum of its affinities; every slab size must find exactly that.
TEST(FuzzyCudaSlabs, CorridorBackAndForthAcrossSlabs) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const int64_t w = 41, h = 3, d = 30;
  std::vector<float> values(static_cast<size_t>(w * h * d), 1000.0f);
  std::vector<int64_t> path;
  for (int64_t lane = 0; lane < (w + 1) / 2; ++lane) {
    const int64_t x = 2 * lane;
    for (int64_t k = 0; k < d; ++k) {
      const int64_t z = lane % 2 == 0 ? k : d - 1 - k;
      path.push_back((z * h + 1) * w + x);
    }
    if (x + 2 < w) path.push_back(((lane % 2 == 0 ? d - 1 : 0) * h + 1) * w + x + 1);  // the link
  }
  float f = 100.0f;
  for (size_t i = 0; i < path.size(); ++i) {
    values[static_cast<size_t>(path[i])] = f;
    f += (i % 7 < 3 ? 0.9f : -0.6f);
  }
  const AffinityParameters a = affinity_parameters({100.0, 15.0, 4.0}, Adjacency::Face);
  std::vector<float> expected(values.size(), 0.0f);
  float k = 1.0f;
  expected[static_cast<size_t>(path[0])] = k;
  for (size_t i = 1; i < path.size(); ++i) {
    k = std::min(k, fuzzy_math::affinity(values[path[i - 1]], values[path[i]], a));
    expected[static_cast<size_t>(path[i])] = k;
  }
  ASSERT_GT(expected[static_cast<size_t>(path.back())], 0.0f);
  const VolumeView volume{values.data(), w, h, d};
  const Voxel seed{0, 1, 0};
  std::vector<float> scene(values.size());
  fuzzy_connectedness_reference(volume, a, {seed}, scene.data());
  EXPECT_EQ(scene, expected);
  for (int64_t slab_planes : {1, 3, 7, 0}) {
    auto engine = make_cuda_fuzzy_engine(0, slab_planes ? (slab_planes + 2) * w * h : 0);
    engine->run(volume, a, {seed}, scene.data());
    EXPECT_EQ(scene, expected) << "slabs of " << slab_planes << " slices";
  }
}

}  // namespace
}  // namespace lsm
