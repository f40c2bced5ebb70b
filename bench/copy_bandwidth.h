#pragma once
// The device's copy bandwidth, the yardstick of the GPU benchmarks' floors.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda_check.h"
#include "device_pool.h"

namespace lsm::bench {

// Device-to-device copy bandwidth, bytes read plus bytes written per second.
inline double copy_bandwidth(cudaStream_t st) {
  const size_t bytes = size_t(1) << 31;
  DeviceBuffer a, b;
  a.reserve(bytes, st);
  b.reserve(bytes, st);
  LSM_CUDA_CHECK(cudaMemsetAsync(a.get(), 1, bytes, st));
  cudaEvent_t e0, e1;
  LSM_CUDA_CHECK(cudaEventCreate(&e0));
  LSM_CUDA_CHECK(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int r = 0; r < 10; ++r) {
    LSM_CUDA_CHECK(cudaEventRecord(e0, st));
    LSM_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, st));
    LSM_CUDA_CHECK(cudaEventRecord(e1, st));
    LSM_CUDA_CHECK(cudaEventSynchronize(e1));
    float t = 0;
    LSM_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (r > 0) ms.push_back(t);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return 2.0 * double(bytes) / ([&] { std::sort(ms.begin(), ms.end()); return ms[ms.size() / 2]; }() * 1e-3);
}

}  // namespace lsm::bench
