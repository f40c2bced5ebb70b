// launch_pyramid_levels (a resident pyramid in one launch) against the CPU
// pass level by level: bilinear with 1 and 3 bands (the 1-band path is its
// own code), area, nodata (NaN in bilinear levels, left out of area means),
// and its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "pyramid.h"
#include "pyramid_pass_cuda.h"
#include "test_helpers.h"

namespace lsm {
namespace {

void expect_levels_equal_cpu(Resampling resampling, int bands) {
  const int64_t w = 301, h = 187;
  std::mt19937_64 rng(uint64_t(bands) * 10 + int(resampling));
  std::uniform_real_distribution<float> u(0, 100);
  std::vector<float> image(static_cast<size_t>(w * h * bands));
  for (auto& v : image) v = u(rng);
  for (int b = 0; b < bands; ++b) image[(50 * w + 60) * bands + b] = NAN;  // a nodata cell
  PyramidOptions options;
  options.levels = 12;
  options.scale = 1.3;
  const auto sizes = pyramid_sizes(w, h, options);
  DeviceStream stream(0);
  DeviceBuffer source, out;
  int64_t total = 0;
  for (size_t l = 1; l < sizes.size(); ++l) total += sizes[l].first * sizes[l].second * bands;
  source.reserve(sizeof(float) * image.size(), stream);
  out.reserve(sizeof(float) * total, stream);
  LSM_CUDA_CHECK(cudaMemcpyAsync(source.get(), image.data(), sizeof(float) * image.size(), cudaMemcpyHostToDevice,
                                 stream));
  PyramidLevelTable table;
  table.count = static_cast<int>(sizes.size()) - 1;
  table.bands = bands;
  table.resampling = resampling;
  std::vector<LevelMapping> maps;
  int64_t at = 0;
  for (size_t l = 1; l < sizes.size(); ++l) {
    maps.push_back(level_mapping(w, h, sizes[l].first, sizes[l].second, resampling));
    table.levels[l - 1] = maps.back();
    table.out[l - 1] = out.as<float>() + at;
    at += sizes[l].first * sizes[l].second * bands;
  }
  launch_pyramid_levels(table, source.as<float>(), stream);
  std::vector<float> gpu(static_cast<size_t>(total));
  LSM_CUDA_CHECK(cudaMemcpyAsync(gpu.data(), out.get(), sizeof(float) * total, cudaMemcpyDeviceToHost, stream));
  LSM_CUDA_CHECK(cudaStreamSynchronize(stream));
  auto cpu = make_cpu_pyramid_pass();
  at = 0;
  size_t nan = 0;
  for (const LevelMapping& m : maps) {
    std::vector<float> ref(static_cast<size_t>(m.width * m.height * bands));
    cpu->resample(m, bands, image.data(), 0, h, 0, m.height, ref.data());
    for (size_t i = 0; i < ref.size(); ++i) {
      const float g = gpu[static_cast<size_t>(at) + i];
      if (std::isnan(ref[i])) {
        ++nan;
        ASSERT_TRUE(std::isnan(g)) << m.width << "x" << m.height << " at " << i;
      } else {
        ASSERT_EQ(g, ref[i]) << m.width << "x" << m.height << " at " << i;  // the same bits
      }
    }
    at += m.width * m.height * bands;
  }
  // Bilinear levels spread the nodata cell; area means leave it out.
  EXPECT_EQ(nan > 0, resampling == Resampling::Bilinear);
}

TEST(PyramidCudaLevels, OneLaunchEqualsTheCpuOnEveryLevel) {
  LSM_REQUIRE_CUDA();
  expect_levels_equal_cpu(Resampling::Bilinear, 1);
  expect_levels_equal_cpu(Resampling::Bilinear, 3);
  expect_levels_equal_cpu(Resampling::Area, 1);
}

TEST(PyramidCudaLevels, RefusesBadTables) {
  LSM_REQUIRE_CUDA();
  DeviceStream stream(0);
  DeviceBuffer source;
  source.reserve(64, stream);
  PyramidLevelTable table;
  EXPECT_THROW(launch_pyramid_levels(table, source.as<float>(), stream), Error);
  table.count = 1;
  table.resampling = Resampling::Gaussian;
  EXPECT_THROW(launch_pyramid_levels(table, source.as<float>(), stream), Error);
}

}  // namespace
}  // namespace lsm
