#pragma once
// Device memory of lsm comes from CUDA's stream-ordered allocator
// (cudaMallocAsync on the device's default cudaMemPool_t). The pool keeps
// freed memory (release threshold: unlimited), so buffers that operations
// grow and free are recycled instead of returned to the driver.
#include <cuda_runtime.h>

#include <cstddef>

namespace lsm {

/// Configures the default pool of `device` once per process (thread-safe).
void prepare_device_pool(int device);

/// A device buffer owned by one stream, grown on demand from the pool.
/// Growing frees the old block on the same stream (stream-ordered), so no
/// device-wide synchronisation is ever needed.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Ensures at least `bytes` bytes, usable in `stream` order. Contents are not kept.
  void reserve(size_t bytes, cudaStream_t stream);
  /// Returns the block to the pool (stream-ordered); safe to call twice.
  void release() noexcept;
  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
};

/// Pinned (page-locked) host memory for asynchronous copies, grown on demand.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  /// Ensures at least `bytes` bytes; the caller must have synchronised the
  /// stream that last used the buffer.
  void reserve(size_t bytes);
  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace lsm
