#include "cell_neighbourhood_cuda.h"

#include <cstdint>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "fragstats_gyrate.h"
#include "patch_rows_cuda.h"
#include "nearest_patch_cuda.h"

namespace lsm {
namespace {

constexpr int kBlock = 256;
// Class adjacency matrices up to this many classes are accumulated in shared
// memory per block (2 x 48 x 48 x 4 bytes), larger ones in global memory.
constexpr int kSharedClasses = 48;

// One thread per cell. Adjacencies are counted as in the CPU reference: the
// right and the upper neighbour, each entered from both sides.
__global__ void k_neighbourhood(const uint32_t* __restrict__ pids, const uint32_t* __restrict__ class_of, int64_t width,
                                int64_t height, int classes, int depth, const int32_t* __restrict__ reach,
                                unsigned long long* __restrict__ diagonal, unsigned long long* __restrict__ sides_h,
                                unsigned long long* __restrict__ sides_v, uint8_t* __restrict__ core) {
  __shared__ unsigned int local_h[kSharedClasses * kSharedClasses], local_v[kSharedClasses * kSharedClasses];
  const bool shared = classes <= kSharedClasses;
  if (shared)
    for (int i = threadIdx.x; i < classes * classes; i += blockDim.x) local_h[i] = local_v[i] = 0;
  __syncthreads();
  const int64_t cell = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (cell < width * height) {
    const int64_t y = cell / width, x = cell - y * width;
    const uint32_t p = pids[cell];
    bool is_core = false;
    if (p) {
      const uint32_t ci = class_of[p];
      auto count = [&](uint32_t cj, unsigned int* local, unsigned long long* global) {
        if (shared) {
          atomicAdd(&local[ci * classes + cj], 1u);
          atomicAdd(&local[cj * classes + ci], 1u);
        } else {
          atomicAdd(&global[ci * classes + cj], 1ull);
          atomicAdd(&global[cj * classes + ci], 1ull);
        }
      };
      if (x + 1 < width && pids[cell + 1]) count(class_of[pids[cell + 1]], local_v, sides_v);
      if (y > 0) {
        const uint32_t* above = pids + cell - width;
        if (above[0]) count(class_of[above[0]], local_h, sides_h);
        const unsigned long long d = (x > 0 && above[-1] == p) + (x + 1 < width && above[1] == p);
        if (d) atomicAdd(&diagonal[p - 1], d);
      }
      is_core = y - depth >= 0 && y + depth < height;
      for (int dy = -depth; is_core && dy <= depth; ++dy) {
        const int r = reach[dy < 0 ? -dy : dy];
        if (x - r < 0 || x + r >= width) {
          is_core = false;
          break;
        }
        const uint32_t* row = pids + (y + dy) * width + x;
        for (int dx = -r; dx <= r; ++dx)
          if (row[dx] != p) {
            is_core = false;
            break;
          }
      }
    }
    core[cell] = is_core;
  }
  __syncthreads();
  if (shared)
    for (int i = threadIdx.x; i < classes * classes; i += blockDim.x) {
      if (local_h[i]) atomicAdd(&sides_h[i], static_cast<unsigned long long>(local_h[i]));
      if (local_v[i]) atomicAdd(&sides_v[i], static_cast<unsigned long long>(local_v[i]));
    }
}

class CudaNeighbourhoodCounter final : public NeighbourhoodCounter {
 public:
  explicit CudaNeighbourhoodCounter(int device) : device_(device) {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    prepare_device_pool(device_);
    LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~CudaNeighbourhoodCounter() override {
    for (DeviceBuffer* b : {&d_pids_, &d_class_, &d_reach_, &d_diag_, &d_h_, &d_v_, &d_core_}) b->release();
    nearest_.release();
    rows_.release();
    if (stream_) {
      cudaStreamSynchronize(stream_);
      cudaStreamDestroy(stream_);
    }
  }
  std::string name() const override { return "cuda"; }
  bool computes_enn(const PatchIdRaster& r) const override { return DeviceNearestPatch::fits(r.width * r.height); }
  bool computes_gyrate(const PatchIdRaster& r) const override { return r.width * r.height < (int64_t(1) << 31); }
  bool computes_row_extents(const PatchIdRaster& r) const override { return computes_gyrate(r); }

  void count(const PatchIdRaster& r, int depth, NeighbourhoodCounts& out) override {
    const std::vector<int32_t> reach = edge_depth_reach(depth);
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    const int64_t cells = r.width * r.height;
    const size_t k = r.classes, patches = r.class_of_pid->size() - 1;
    if (k > 0xFFFF) throw Error(ErrorKind::BadInput, "more than 65535 classes");
    out.diagonal_pairs.assign(patches, 0);
    out.sides_h.assign(k * k, 0);
    out.sides_v.assign(k * k, 0);
    out.core.assign(static_cast<size_t>(cells), 0);
    out.enn_squared.clear();
    out.gyrate_m.clear();
    out.row_extents = PatchRowExtents{};
    if (cells == 0) return;
    d_pids_.reserve(cells * sizeof(uint32_t), stream_);
    d_class_.reserve(r.class_of_pid->size() * sizeof(uint32_t), stream_);
    d_reach_.reserve(reach.size() * sizeof(int32_t), stream_);
    d_diag_.reserve(std::max<size_t>(patches, 1) * sizeof(uint64_t), stream_);
    d_h_.reserve(std::max<size_t>(k * k, 1) * sizeof(uint64_t), stream_);
    d_v_.reserve(std::max<size_t>(k * k, 1) * sizeof(uint64_t), stream_);
    d_core_.reserve(cells, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_pids_.get(), r.pids, cells * sizeof(uint32_t), cudaMemcpyHostToDevice, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_class_.get(), r.class_of_pid->data(), r.class_of_pid->size() * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_reach_.get(), reach.data(), reach.size() * sizeof(int32_t), cudaMemcpyHostToDevice,
                                   stream_));
    LSM_CUDA_CHECK(cudaMemsetAsync(d_diag_.get(), 0, patches * sizeof(uint64_t), stream_));
    LSM_CUDA_CHECK(cudaMemsetAsync(d_h_.get(), 0, k * k * sizeof(uint64_t), stream_));
    LSM_CUDA_CHECK(cudaMemsetAsync(d_v_.get(), 0, k * k * sizeof(uint64_t), stream_));
    const unsigned int blocks = static_cast<unsigned int>((cells + kBlock - 1) / kBlock);
    k_neighbourhood<<<blocks, kBlock, 0, stream_>>>(
        d_pids_.as<uint32_t>(), d_class_.as<uint32_t>(), r.width, r.height, static_cast<int>(k), depth,
        d_reach_.as<int32_t>(), d_diag_.as<unsigned long long>(), d_h_.as<unsigned long long>(),
        d_v_.as<unsigned long long>(), d_core_.as<uint8_t>());
    LSM_CUDA_CHECK_LAUNCH();
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.diagonal_pairs.data(), d_diag_.get(), patches * sizeof(uint64_t),
                                   cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.sides_h.data(), d_h_.get(), k * k * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.sides_v.data(), d_v_.get(), k * k * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.core.data(), d_core_.get(), cells, cudaMemcpyDeviceToHost, stream_));
    if (r.with_enn && computes_enn(r))  // on the patch IDs already on the device
      out.enn_squared = nearest_.search(d_pids_.as<uint32_t>(), d_class_.as<uint32_t>(), *r.class_of_pid, k, r.width,
                                        r.height, r.cell_width, r.cell_height, stream_);
    const bool gyrate = r.with_gyrate && computes_gyrate(r), extents = r.with_row_extents && computes_row_extents(r);
    if (gyrate || extents) {
      PatchRowStatistics s =
          rows_.compute(d_pids_.as<uint32_t>(), r.width, r.height, patches, r.cell_width, r.cell_height,
                        gyrate_fixed_exponent(r.width, r.height, r.cell_width, r.cell_height), gyrate, extents, stream_);
      out.gyrate_m = std::move(s.gyrate_m);
      out.row_extents = std::move(s.extents);
    }
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer d_pids_, d_class_, d_reach_, d_diag_, d_h_, d_v_, d_core_;
  DeviceNearestPatch nearest_;
  DevicePatchRows rows_;
};

}  // namespace

std::unique_ptr<NeighbourhoodCounter> make_cuda_neighbourhood_counter(int device) {
  return std::make_unique<CudaNeighbourhoodCounter>(device);
}

}  // namespace lsm
