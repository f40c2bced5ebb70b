// launch_hog_levels: the skimage-variant descriptors of several resident
// images of different sizes in two launches, equal to the CPU reference on
// each image alone (the same bits but for the device's atan2 and hypot, which
// may differ by an ulp; 1e-5 allowed, as HogCuda.SameAsCpu).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cuda_check.h"
#include "device_pool.h"
#include "hog.h"
#include "hog_pass_cuda.h"
#include "test_helpers.h"

namespace lsm {
namespace {

TEST(HogCudaLevels, TwoLaunchesEqualTheCpuOnEveryLevel) {
  LSM_REQUIRE_CUDA();
  HogOptions o;  // 8-pixel cells, 3 x 3 blocks, 9 bins, L2-Hys
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{203, 131}, {97, 64}, {24, 24}, {150, 33}};
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<float> u(0, 1);
  DeviceStream stream(0);
  HogLevelTable table;
  table.count = static_cast<int>(sizes.size());
  std::vector<DeviceBuffer> grey(sizes.size()), hist(sizes.size()), desc(sizes.size());
  std::vector<std::vector<float>> images;
  for (size_t l = 0; l < sizes.size(); ++l) {
    const auto [w, h] = sizes[l];
    images.emplace_back(static_cast<size_t>(w * h));
    for (auto& v : images.back()) v = u(rng);
    images.back()[static_cast<size_t>(w * (h / 2) + w / 3)] = l == 1 ? NAN : images.back()[0];  // nodata on level 1
    const HogGeometry g = hog_geometry(w, h, o);
    table.levels[l] = g;
    grey[l].reserve(sizeof(float) * (w * h + w), stream);  // one spare row before the image
    hist[l].reserve(sizeof(float) * g.cells_x * g.cells_y * o.bins, stream);
    desc[l].reserve(sizeof(double) * g.blocks_x * g.blocks_y * g.descriptor_length, stream);
    LSM_CUDA_CHECK(cudaMemcpyAsync(grey[l].as<float>() + w, images.back().data(), sizeof(float) * w * h,
                                   cudaMemcpyHostToDevice, stream));
    table.grey[l] = grey[l].as<float>();
    table.histograms[l] = hist[l].as<float>();
    table.descriptors[l] = desc[l].as<double>();
  }
  launch_hog_levels(o, table, stream);
  auto cpu = make_cpu_hog_pass();
  for (size_t l = 0; l < sizes.size(); ++l) {
    const auto [w, h] = sizes[l];
    const HogGeometry& g = table.levels[l];
    std::vector<double> gpu(static_cast<size_t>(g.blocks_x * g.blocks_y * g.descriptor_length)), ref(gpu.size());
    LSM_CUDA_CHECK(cudaMemcpyAsync(gpu.data(), desc[l].get(), sizeof(double) * gpu.size(), cudaMemcpyDeviceToHost,
                                   stream));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> padded(static_cast<size_t>((g.cells_y * o.cell + 2) * w), 0.0);
    for (int64_t y = 0; y < std::min(h, g.cells_y * o.cell + 1); ++y)
      for (int64_t x = 0; x < w; ++x) padded[(y + 1) * w + x] = images[l][y * w + x];
    std::vector<float> cells(static_cast<size_t>(g.cells_x * g.cells_y * o.bins));
    cpu->cell_histograms(o, g, padded.data(), 0, g.cells_y, cells.data());
    cpu->normalize_blocks(o, g, cells.data(), g.cells_y, ref.data());
    size_t nan = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (std::isnan(ref[i])) {
        ++nan;
        EXPECT_TRUE(std::isnan(gpu[i])) << "level " << l << " at " << i;
        continue;
      }
      ASSERT_NEAR(gpu[i], ref[i], 1e-5 * std::max(1e-3, std::fabs(ref[i]))) << "level " << l << " at " << i;
    }
    EXPECT_EQ(nan > 0, l == 1) << "level " << l;
  }
  for (auto* set : {&grey, &hist, &desc})
    for (auto& b : *set) b.release();
}

TEST(HogCudaLevels, RefusesBadTables) {
  LSM_REQUIRE_CUDA();
  DeviceStream stream(0);
  HogLevelTable table;
  EXPECT_THROW(launch_hog_levels(HogOptions{}, table, stream), Error);  // no level
  HogOptions dt;
  dt.variant = HogVariant::DalalTriggs;
  table.count = 1;
  EXPECT_THROW(launch_hog_levels(dt, table, stream), Error);
}

}  // namespace
}  // namespace lsm
