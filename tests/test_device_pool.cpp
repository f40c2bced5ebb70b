// lsm's device memory comes from its own pool per device: an lsm run leaves
// the device's default pool (which a host application such as QGIS or cupy
// may use) as it found it, and lsm's pool keeps what it frees.
#include <cuda_runtime.h>

#include <cstdint>

#include "device_pool.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

uint64_t release_threshold(cudaMemPool_t pool) {
  uint64_t value = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &value), cudaSuccess);
  return value;
}

TEST(DevicePool, LsmRunsLeaveTheDefaultPoolAlone) {
  LSM_REQUIRE_CUDA();
  cudaMemPool_t default_pool;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&default_pool, 0), cudaSuccess);
  const uint64_t before = release_threshold(default_pool);
  // A labeling run and a second pass on the GPU.
  auto raster = random_landscape(300, 200, 5, 3, 0.1);
  auto labeler = make_labeler(Backend::Cuda);
  ScanOptions o;
  o.keep_patch_ids = true;
  const PatchTable t = scan_patches(raster, *labeler, o);
  EXPECT_FALSE(t.patches.empty());
  EXPECT_EQ(release_threshold(default_pool), before);
  const cudaMemPool_t own = device_pool(0);
  EXPECT_NE(own, default_pool);
  EXPECT_EQ(release_threshold(own), UINT64_MAX);
  // Its memory was used: the pool holds the blocks the labeler reserved.
  uint64_t reserved = 0;
  ASSERT_EQ(cudaMemPoolGetAttribute(own, cudaMemPoolAttrReservedMemCurrent, &reserved), cudaSuccess);
  EXPECT_GT(reserved, 0u);
}

}  // namespace
}  // namespace lsm::test
