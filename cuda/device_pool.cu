#include <cstdint>
#include <mutex>
#include <set>

#include "cuda_check.h"
#include "device_pool.h"

namespace lsm {

void prepare_device_pool(int device) {
  static std::mutex mutex;
  static std::set<int> prepared;
  std::lock_guard<std::mutex> lock(mutex);
  if (prepared.count(device)) return;
  cudaMemPool_t pool;
  LSM_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t threshold = UINT64_MAX;
  LSM_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  prepared.insert(device);
}

DeviceStream::DeviceStream(int device) : device_(device) {
  LSM_CUDA_CHECK(cudaSetDevice(device_));
  prepare_device_pool(device_);
  LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

DeviceStream::~DeviceStream() {
  if (stream_) cudaStreamDestroy(stream_);  // called from destructors: nothing to report to
}

void DeviceStream::activate() const { LSM_CUDA_CHECK(cudaSetDevice(device_)); }

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() noexcept {
  if (ptr_) cudaFreeAsync(ptr_, stream_);  // called from destructors: nothing to report to
  ptr_ = nullptr;
  bytes_ = 0;
}

void DeviceBuffer::reserve(size_t bytes, cudaStream_t stream) {
  if (bytes <= bytes_ && stream == stream_) return;
  if (ptr_) LSM_CUDA_CHECK(cudaFreeAsync(ptr_, stream_));
  ptr_ = nullptr;
  bytes_ = 0;
  // Grow by half again so that slowly growing tiles do not reallocate every time.
  const size_t want = bytes + bytes / 2;
  LSM_CUDA_CHECK(cudaMallocAsync(&ptr_, want, stream));
  bytes_ = want;
  stream_ = stream;
}

PinnedBuffer::~PinnedBuffer() {
  if (ptr_) cudaFreeHost(ptr_);
}

void PinnedBuffer::reserve(size_t bytes) {
  if (bytes <= bytes_) return;
  if (ptr_) LSM_CUDA_CHECK(cudaFreeHost(ptr_));
  ptr_ = nullptr;
  bytes_ = 0;
  const size_t want = bytes + bytes / 2;
  LSM_CUDA_CHECK(cudaMallocHost(&ptr_, want));
  bytes_ = want;
}

}  // namespace lsm
