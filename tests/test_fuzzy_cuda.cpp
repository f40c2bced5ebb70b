// The CUDA fuzzy-connectedness engine streaming a volume larger than its
// device budget in slabs (issue 7): the same scene as the sequential kFOE,
// whatever the slab size. Skips where no GPU is present.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "fuzzy_connectedness.h"
#include "fuzzy_cuda.h"

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

}  // namespace
}  // namespace lsm
