#pragma once
// Device memory of lsm comes from CUDA's stream-ordered allocator
// (cudaMallocFromPoolAsync) on lsm's own cudaMemPool_t per device. The pool
// keeps freed memory (release threshold: unlimited), so buffers that
// operations grow and free are recycled instead of returned to the driver;
// the device's default pool, which a host application (QGIS, rasterio, cupy)
// may rely on, keeps its settings.
#include <cuda_runtime.h>

#include <cstddef>

namespace lsm {

/// lsm's pool of `device`, created on the first call (thread-safe) and kept
/// for the process's life. Throws lsm::Error(Device) when it cannot be made.
cudaMemPool_t device_pool(int device);
/// Creates the pool of `device` now (device_pool(), result unused).
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

  /// Ensures at least `bytes` bytes from the current device's pool, usable in
  /// `stream` order (a stream of the current device). Contents are not kept.
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

/// The stream of one operation on one device: makes the device current,
/// prepares its pool and creates a non-blocking stream, which it destroys
/// last. Declare it before the DeviceBuffers ordered on it, so that they are
/// released (stream-ordered) before the stream goes. Converts to
/// cudaStream_t. Throws lsm::Error(Device) when the device cannot be set up.
class DeviceStream {
 public:
  explicit DeviceStream(int device);
  ~DeviceStream();
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;
  operator cudaStream_t() const { return stream_; }
  int device() const { return device_; }
  /// Makes the device current for this thread (before work on the stream).
  void activate() const;

 private:
  int device_ = 0;
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
