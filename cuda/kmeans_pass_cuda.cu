// K-means assignment and per-cluster sums on the GPU.
//
// Each warp takes 32 consecutive cells; lanes that chose the same cluster
// add their fixed-point features with one __reduce_add_sync per band (32
// values of at most 2^24 fit an int32), and one lane adds the warp's total
// to the block's sums in shared memory. Each block then writes its partial
// sums and a second kernel adds them up: no per-cell atomics on a handful of
// global addresses. When the block's table of sums would not fit in shared
// memory (very large k), the warps add straight to global memory; integer
// atomics are exact, so both give the CPU's sums bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "kmeans_math.h"
#include "kmeans_pass_cuda.h"

namespace lsm {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullWarp = 0xffffffffu;
constexpr size_t kSharedLimit = 48 * 1024;  // without opting in to more

using Sum = unsigned long long;  // int64 sums in two's complement: atomicAdd wraps alike

template <bool kGlobalSums>
__global__ void __launch_bounds__(kThreads) k_assign(const float* __restrict__ features, long long cells, int k,
                                                     int bands, const float* __restrict__ centres_g,
                                                     const float* __restrict__ scale_g, float inertia_scale,
                                                     Sum* __restrict__ out_sums, uint16_t* __restrict__ labels) {
  extern __shared__ Sum shared[];
  const int table = k * (bands + 1) + 1;  // per cluster: band sums, count; then the inertia
  Sum* sums = kGlobalSums ? out_sums : shared;
  float* centres_s = reinterpret_cast<float*>(shared + (kGlobalSums ? 0 : table));
  const float* centres = kGlobalSums ? centres_g : centres_s;
  float* scale = centres_s + (kGlobalSums ? 0 : k * bands);
  if (!kGlobalSums) {
    for (int t = threadIdx.x; t < table; t += blockDim.x) sums[t] = 0;
    for (int t = threadIdx.x; t < k * bands; t += blockDim.x) centres_s[t] = centres_g[t];
  }
  for (int t = threadIdx.x; t < bands; t += blockDim.x) scale[t] = scale_g[t];
  __syncthreads();

  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
  for (long long base = (static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32) * 32;
       base < cells; base += warps * 32) {
    const long long i = base + lane;
    const float* f = features + i * bands;
    int a = -1;
    float d2 = 0;
    if (i < cells) {
      if (!(f[0] != f[0])) a = kmeans_math::nearest_centre(f, centres, k, bands, &d2);
      if (labels) labels[i] = static_cast<uint16_t>(a + 1);
    }
    unsigned pending = __ballot_sync(kFullWarp, a >= 0);
    while (pending) {  // one round per distinct cluster among the warp's cells
      const int leader = __ffs(pending) - 1;
      const int c = __shfl_sync(kFullWarp, a, leader);
      const bool mine = a == c;
      const unsigned group = __ballot_sync(kFullWarp, mine);
      pending &= ~group;
      Sum* row = sums + c * (bands + 1);
      for (int b = 0; b < bands; ++b) {
        const int q = mine ? static_cast<int>(kmeans_math::to_fixed(kmeans_math::mul(f[b], scale[b]))) : 0;
        const int s = __reduce_add_sync(kFullWarp, q);
        if (lane == leader) atomicAdd(row + b, static_cast<Sum>(static_cast<long long>(s)));
      }
      const int qi = mine ? static_cast<int>(kmeans_math::to_fixed(kmeans_math::mul(d2, inertia_scale))) : 0;
      const int si = __reduce_add_sync(kFullWarp, qi);
      if (lane == leader) {
        atomicAdd(row + bands, static_cast<Sum>(__popc(group)));
        atomicAdd(sums + table - 1, static_cast<Sum>(static_cast<long long>(si)));
      }
    }
  }
  if (kGlobalSums) return;
  __syncthreads();
  Sum* partial = out_sums + static_cast<size_t>(blockIdx.x) * table;
  for (int t = threadIdx.x; t < table; t += blockDim.x) partial[t] = sums[t];
}

// Adds the blocks' partial tables: thread t sums entry t over all blocks.
__global__ void k_add_partials(const Sum* __restrict__ partials, int blocks, int table, Sum* __restrict__ total) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= table) return;
  Sum s = 0;
  for (int b = 0; b < blocks; ++b) s += partials[static_cast<size_t>(b) * table + t];
  total[t] = s;
}

class CudaKMeansPass final : public KMeansPass {
 public:
  explicit CudaKMeansPass(int device) : device_(device) {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    prepare_device_pool(device_);
    LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    LSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device_));
  }
  ~CudaKMeansPass() override {
    features_.release();
    model_.release();
    sums_.release();
    labels_.release();
    if (stream_) cudaStreamDestroy(stream_);
  }

  void set_data(const float* features, int64_t cells, int bands) override {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    cells_ = cells;
    bands_ = bands;
    const size_t bytes = static_cast<size_t>(cells) * bands * sizeof(float);
    features_.reserve(std::max<size_t>(bytes, 4), stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(features_.get(), features, bytes, cudaMemcpyHostToDevice, stream_));
  }

  void run(const KMeansModel& m, ClusterSums& sums, uint16_t* labels) override {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    const int table = m.k * (m.bands + 1) + 1;
    const size_t shared_bytes = sizeof(Sum) * table + sizeof(float) * (m.k * m.bands + m.bands);
    const bool global_sums = shared_bytes > kSharedLimit;

    // The model: centres then scales, staged through pinned memory.
    const size_t model_floats = static_cast<size_t>(m.k) * m.bands + m.bands;
    host_.reserve(std::max(model_floats * sizeof(float), sizeof(Sum) * table));
    float* staged = host_.as<float>();
    std::copy(m.centres.begin(), m.centres.end(), staged);
    std::copy(m.feature_scale.begin(), m.feature_scale.end(), staged + m.k * m.bands);
    model_.reserve(model_floats * sizeof(float), stream_);
    LSM_CUDA_CHECK(
        cudaMemcpyAsync(model_.get(), staged, model_floats * sizeof(float), cudaMemcpyHostToDevice, stream_));

    const long long warps_needed = (cells_ + 31) / 32;
    const int blocks = static_cast<int>(std::max<long long>(
        1, std::min<long long>((warps_needed + kThreads / 32 - 1) / (kThreads / 32), int64_t(sms_) * 8)));
    // Partial tables of every block, then the total at the end.
    sums_.reserve(sizeof(Sum) * table * (static_cast<size_t>(blocks) + 1), stream_);
    Sum* partials = sums_.as<Sum>();
    Sum* total = partials + static_cast<size_t>(blocks) * table;
    uint16_t* d_labels = nullptr;
    if (labels) {
      labels_.reserve(std::max<size_t>(2, sizeof(uint16_t) * cells_), stream_);
      d_labels = labels_.as<uint16_t>();
    }
    const float* centres = model_.as<float>();
    const float* scale = centres + m.k * m.bands;
    if (cells_ > 0) {
      if (global_sums) {
        LSM_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(Sum) * table, stream_));
        k_assign<true><<<blocks, kThreads, sizeof(float) * m.bands, stream_>>>(
            features_.as<float>(), cells_, m.k, m.bands, centres, scale, m.inertia_scale, total, d_labels);
        LSM_CUDA_CHECK_LAUNCH();
      } else {
        k_assign<false><<<blocks, kThreads, shared_bytes, stream_>>>(features_.as<float>(), cells_, m.k, m.bands,
                                                                     centres, scale, m.inertia_scale, partials,
                                                                     d_labels);
        LSM_CUDA_CHECK_LAUNCH();
        k_add_partials<<<(table + 255) / 256, 256, 0, stream_>>>(partials, blocks, table, total);
        LSM_CUDA_CHECK_LAUNCH();
      }
    } else {
      LSM_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(Sum) * table, stream_));
    }
    Sum* host_sums = host_.as<Sum>();  // the model was copied out before: same stream, in order
    LSM_CUDA_CHECK(cudaMemcpyAsync(host_sums, total, sizeof(Sum) * table, cudaMemcpyDeviceToHost, stream_));
    if (labels)
      LSM_CUDA_CHECK(cudaMemcpyAsync(labels, d_labels, sizeof(uint16_t) * cells_, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));

    for (int j = 0; j < m.k; ++j) {
      for (int b = 0; b < m.bands; ++b)
        sums.feature_sums[j * m.bands + b] += static_cast<int64_t>(host_sums[j * (m.bands + 1) + b]);
      sums.counts[j] += static_cast<int64_t>(host_sums[j * (m.bands + 1) + m.bands]);
    }
    sums.inertia += static_cast<int64_t>(host_sums[table - 1]);
  }

  const char* name() const override { return "cuda"; }

 private:
  int device_ = 0;
  int sms_ = 1;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer features_, model_, sums_, labels_;
  PinnedBuffer host_;
  int64_t cells_ = 0;
  int bands_ = 0;
};

}  // namespace

std::unique_ptr<KMeansPass> make_cuda_kmeans_pass(int device) { return std::make_unique<CudaKMeansPass>(device); }

}  // namespace lsm
