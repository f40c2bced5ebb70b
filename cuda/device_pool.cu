#include <cstdint>
#include <mutex>
#include <map>

#include "cuda_check.h"
#include "device_pool.h"

namespace lsm {

namespace {

// lsm's pools, one per device, created on first use and kept for the
// process's life (like RMM's cuda_async_memory_resource): freed blocks stay
// in them for the next operation. The device's default pool, which the host
// application (QGIS, rasterio, cupy) may use, is left as it is.
std::mutex pools_mutex;
std::map<int, cudaMemPool_t> pools;

}  // namespace

cudaMemPool_t device_pool(int device) {
  std::lock_guard<std::mutex> lock(pools_mutex);
  const auto it = pools.find(device);
  if (it != pools.end()) return it->second;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool;
  LSM_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  // Keep what is freed (release threshold: unlimited), so that buffers that
  // operations grow and free are recycled instead of returned to the driver.
  uint64_t threshold = UINT64_MAX;
  LSM_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  pools.emplace(device, pool);
  return pool;
}

void prepare_device_pool(int device) { device_pool(device); }

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
  int device = 0;
  LSM_CUDA_CHECK(cudaGetDevice(&device));  // the stream's device: its DeviceStream made it current
  LSM_CUDA_CHECK(cudaMallocFromPoolAsync(&ptr_, want, device_pool(device), stream));
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
