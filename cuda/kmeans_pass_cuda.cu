// K-means assignment and per-cluster sums on the GPU.
//
// Each warp takes 32 x 4 consecutive cells (4 per lane, read as vectors a
// round ahead). For each cluster among them, each lane adds its cells' fixed-point
// features and one __reduce_add_sync per band sums the warp's (128 values of
// at most 2^23 fit an int32); lane 0 adds the warp's total to a table of
// sums. Where it fits in shared memory each warp
// has its own table, written by one lane at a time with plain adds (no
// atomics, no contention between warps); then a block's warps' tables are
// added and the block's partial goes to the global total with one integer
// atomic per entry. Larger tables (large k) are per block with shared
// atomics, or, beyond shared memory, in global memory. Integer sums are exact
// in any order, so every variant gives the CPU's sums bit for bit.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "kmeans_math.h"
#include "kmeans_pass_cuda.h"
#include "kmeans_update.h"

namespace lsm {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr unsigned kFullWarp = 0xffffffffu;
constexpr size_t kSharedLimit = 48 * 1024;  // without opting in to more
constexpr size_t kPreparedBytes = 64 * 1024;  // model and sums of up to ~2000 clusters of 3 bands

using Sum = unsigned long long;  // int64 sums in two's complement: adds wrap alike

enum class Tables { PerWarp, PerBlock, Global };

// A model small enough travels as a kernel parameter: no copy to the device
// per pass. Larger ones are copied through pinned memory.
constexpr int kParamFloats = 240;
struct ParamModel {
  float values[kParamFloats];  // centres [k][bands], then the scales [bands]
};

// The state of the device's own Lloyd loop, one buffer in GPU memory (and
// its pinned mirror): the last pass's sums, the data's band ranges, the
// centres and scales the next pass uses, the next centres, and the step.
struct LoopState {
  Sum* totals;         // [3][table]: the cooperative loop's rotating totals, zero on upload
  Sum* sums;           // [table]
  double *lo, *hi;     // [bands]
  float* centres;      // [k][bands]
  float* scale;        // [bands]
  float* next;         // [k][bands]
  float* inertia_scale;
  int* step;           // kmeans_update::LloydStep of the last update
  int* iterations;     // passes run
  unsigned* arrivals;  // blocks of the current pass done; the last one updates

  static size_t bytes(int k, int bands) {
    const int table = k * (bands + 1) + 1;
    return sizeof(Sum) * 4 * table + 2 * sizeof(double) * bands + sizeof(float) * (2 * k * bands + bands + 1) +
           3 * sizeof(int);
  }
  static LoopState at(void* base, int k, int bands) {
    LoopState s;
    char* p = static_cast<char*>(base);
    auto take = [&p](size_t n) { char* q = p; p += n; return q; };
    s.totals = reinterpret_cast<Sum*>(take(sizeof(Sum) * 3 * (k * (bands + 1) + 1)));
    s.sums = reinterpret_cast<Sum*>(take(sizeof(Sum) * (k * (bands + 1) + 1)));
    s.lo = reinterpret_cast<double*>(take(sizeof(double) * bands));
    s.hi = reinterpret_cast<double*>(take(sizeof(double) * bands));
    s.centres = reinterpret_cast<float*>(take(sizeof(float) * k * bands));
    s.scale = reinterpret_cast<float*>(take(sizeof(float) * bands));
    s.next = reinterpret_cast<float*>(take(sizeof(float) * k * bands));
    s.inertia_scale = reinterpret_cast<float*>(take(sizeof(float)));
    s.step = reinterpret_cast<int*>(take(sizeof(int)));
    s.iterations = reinterpret_cast<int*>(take(sizeof(int)));
    s.arrivals = reinterpret_cast<unsigned*>(take(sizeof(unsigned)));
    return s;
  }
};

// The host's update (kmeans_update.h) by one block: new centres cluster by
// cluster from `sums` (a table of the pass, readable by the block), the
// step, and, when they moved, the centres replaced by the new ones (`next`
// is scratch). Every thread of the block calls it; the step is the block's.
__device__ kmeans_update::LloydStep block_update(const int64_t* sums, int k, int bands, const float* scale,
                                                 float* centres, float* next, double tol) {
  __shared__ unsigned long long max_d2_bits;  // non-negative doubles order like their bits
  if (threadIdx.x == 0) max_d2_bits = 0;
  __syncthreads();
  bool moved = false;
  for (int j = threadIdx.x; j < k; j += blockDim.x) {
    const double d2 =
        kmeans_update::update_centre(j, bands, sums, bands + 1, sums + bands, bands + 1, scale, centres, next, &moved);
    atomicMax(&max_d2_bits, static_cast<unsigned long long>(__double_as_longlong(d2)));
  }
  const bool any_moved = __syncthreads_or(moved);
  const kmeans_update::LloydStep step =
      kmeans_update::lloyd_step(any_moved, __longlong_as_double(static_cast<long long>(max_d2_bits)), tol);
  if (step != kmeans_update::kUnchanged)
    for (int t = threadIdx.x; t < k * bands; t += blockDim.x) centres[t] = next[t];
  __syncthreads();
  return step;
}

// The update after a pass of the launched loop, by the pass's last block.
// `total` is read from L2 (__ldcg), where the other blocks' atomics went.
__device__ void lloyd_update(const LoopState& s, const Sum* total, int k, int bands, double tol) {
  const int table = k * (bands + 1) + 1;
  for (int t = threadIdx.x; t < table; t += blockDim.x) s.sums[t] = __ldcg(total + t);
  __syncthreads();
  const kmeans_update::LloydStep step =
      block_update(reinterpret_cast<const int64_t*>(s.sums), k, bands, s.scale, s.centres, s.next, tol);
  if (threadIdx.x == 0) {
    if (step != kmeans_update::kUnchanged)
      *s.inertia_scale = kmeans_update::inertia_scale_for(s.centres, k, bands, s.lo, s.hi);
    *s.iterations += 1;
    *s.step = step;
    *s.arrivals = 0;
  }
}

// Where a pass finds its model: the centres and scales in global memory
// (centres non-null) or in `param`; the inertia scale at inertia_scale_at
// (non-null) or in inertia_scale. A pass of the device's own Lloyd loop
// (in_loop) returns at once when an earlier update ended the loop, and its
// last block updates the loop's state.
struct PassModel {
  int k = 0, bands = 0;
  const float* centres = nullptr;
  const float* scale = nullptr;
  float inertia_scale = 1;
  const float* inertia_scale_at = nullptr;
  bool in_loop = false;
  LoopState loop{};
  double tol = 0;
};

// Assigns this warp's share of the cells (a grid-stride loop) and adds their
// sums to `sums`: the warp's own table (PerWarp: plain adds by lane 0) or a
// table shared with other warps (atomics). `table` = k x (bands + 1) + 1.
template <int kBands, Tables kTables>
__device__ __forceinline__ void sum_cells(const float* __restrict__ features, long long cells, int k, int bands,
                                          const float* centres, const float* scale, float inertia_scale, Sum* sums,
                                          int table, uint16_t* __restrict__ labels) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  // With the band count known, each lane takes kUnroll consecutive cells a
  // round, and the next round is read before this one is used: more bytes
  // in flight hide memory latency. A full round (32 x 4 cells) is read as
  // kBands fully coalesced 16-byte vectors per lane, then passed through
  // shared memory so that each lane holds its own cells (conflict-free for
  // 3 bands); the last, partial round is read cell by cell.
  constexpr int kUnroll = kBands > 0 ? 4 : 1;
  constexpr int kHeld = kBands > 0 ? kBands : 1;
  constexpr int kRound = 32 * kUnroll;
  __shared__ float4 stage[kBands > 1 ? kWarps : 1][32 * kHeld];
  const long long stride = static_cast<long long>(gridDim.x) * kWarps * kRound;
  auto full = [&](long long base) { return base + kRound <= cells; };
  // Reads a full round as raw vectors (issued ahead of their use).
  auto load_full = [&](long long base, float4 (&raw)[kHeld]) {
    if constexpr (kBands > 0) {  // features are 256-byte aligned and base x kBands x 4 bytes a multiple of 16
      const float4* v = reinterpret_cast<const float4*>(features + base * kBands);
#pragma unroll
      for (int q = 0; q < kBands; ++q) raw[q] = __ldcs(v + q * 32 + lane);  // read once: stream
    }
  };
  // Reads a partial round (the warp's last) cell by cell.
  auto load_partial = [&](long long base, float (&to)[kUnroll][kHeld]) {
    if constexpr (kBands > 0) {
      const long long first = base + lane * kUnroll;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (first + u < cells)
#pragma unroll
          for (int b = 0; b < kBands; ++b) to[u][b] = features[(first + u) * kBands + b];
    }
  };
  // Gives a full round's raw vectors to the lanes whose cells they hold.
  auto distribute = [&](const float4 (&raw)[kHeld], float (&to)[kUnroll][kHeld]) {
    if constexpr (kBands > 0) {
      float flat[kUnroll * kHeld];
      if constexpr (kBands == 1) {
        reinterpret_cast<float4*>(flat)[0] = raw[0];  // vector `lane` holds the lane's 4 cells
      } else {
#pragma unroll
        for (int q = 0; q < kBands; ++q) stage[warp][q * 32 + lane] = raw[q];
        __syncwarp();
#pragma unroll
        for (int q = 0; q < kBands; ++q) reinterpret_cast<float4*>(flat)[q] = stage[warp][lane * kBands + q];
        __syncwarp();
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
#pragma unroll
        for (int b = 0; b < kBands; ++b) to[u][b] = flat[u * kBands + b];
    }
  };
  long long base = (static_cast<long long>(blockIdx.x) * kWarps + warp) * kRound;
  float held[kUnroll][kHeld];  // this round's features (compile-time bands only)
  float4 raw[kHeld];  // the next full round, in flight
  if (base < cells && full(base)) load_full(base, raw);
  for (; base < cells; base += stride) {
    if (full(base)) distribute(raw, held);
    else load_partial(base, held);
    if (base + stride < cells && full(base + stride)) load_full(base + stride, raw);
    auto feature = [&](int u, int b) {
      if constexpr (kBands > 0) return held[u][b];
      else return features[(base + lane) * bands + b];  // kUnroll is 1
    };
    int a[kUnroll];  // the cells' clusters, -1 for nodata, outside or already summed
    float d2[kUnroll];
    if constexpr (kBands > 0) {
      // Centre by centre for all the lane's cells: each centre is read from
      // shared memory once per round, and the cells' distances are
      // independent chains. Same arithmetic and tie rule as nearest_centre().
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        a[u] = 0;
        d2[u] = kmeans_math::squared_distance(held[u], centres, kBands);
      }
      for (int j = 1; j < k; ++j) {
        float c[kBands];
#pragma unroll
        for (int b = 0; b < kBands; ++b) c[b] = centres[j * kBands + b];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const float d = kmeans_math::squared_distance(held[u], c, kBands);
          if (d < d2[u]) {
            d2[u] = d;
            a[u] = j;
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const long long i = base + lane * kUnroll + u;
        if (i >= cells || held[u][0] != held[u][0]) a[u] = -1;  // outside, or nodata (NaN)
        if (labels && i < cells) labels[i] = static_cast<uint16_t>(a[u] + 1);
      }
    } else {
      const long long i = base + lane;  // kUnroll is 1
      a[0] = -1;
      d2[0] = 0;
      if (i < cells) {
        const float* f = features + i * bands;
        if (!(f[0] != f[0])) a[0] = kmeans_math::nearest_centre(f, centres, k, bands, &d2[0]);
        if (labels) labels[i] = static_cast<uint16_t>(a[0] + 1);
      }
    }
    // One round per distinct cluster among the warp's 32 x kUnroll cells,
    // lowest first: each lane adds its cells of the cluster, then one warp
    // reduction per sum. Photos and land cover are coherent, so a round
    // usually covers many cells.
    auto add = [&](Sum* at, int v) {
      if constexpr (kTables == Tables::PerWarp) *at += static_cast<Sum>(static_cast<long long>(v));  // one writer
      else atomicAdd(at, static_cast<Sum>(static_cast<long long>(v)));
    };
    for (;;) {
      unsigned lowest = 0xffffffffu;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (a[u] >= 0) lowest = min(lowest, static_cast<unsigned>(a[u]));
      const unsigned c = __reduce_min_sync(kFullWarp, lowest);
      if (c == 0xffffffffu) break;
      Sum* row = sums + c * (bands + 1);
#pragma unroll
      for (int b = 0; b < (kBands > 0 ? kBands : bands); ++b) {
        int q = 0;  // at most 32 x kUnroll values of at most 2^23: fits an int32
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          if (a[u] == static_cast<int>(c)) q += kmeans_math::to_fixed(kmeans_math::mul(feature(u, b), scale[b]));
        const int s = __reduce_add_sync(kFullWarp, q);
        if (lane == 0) add(row + b, s);
      }
      int n = 0, qi = 0;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (a[u] == static_cast<int>(c)) {
          ++n;
          qi += kmeans_math::to_fixed(kmeans_math::mul(d2[u], inertia_scale));
          a[u] = -1;
        }
      n = __reduce_add_sync(kFullWarp, n);
      qi = __reduce_add_sync(kFullWarp, qi);
      if (lane == 0) {
        add(row + bands, n);
        add(sums + table - 1, qi);
      }
      __syncwarp();
    }
  }
}

// kBands > 0: the band count known at compile time (loops unrolled, the
// cell's features in registers); 0: model.bands at run time.
template <int kBands, Tables kTables>
__global__ void __launch_bounds__(kThreads, 4) k_assign(const float* __restrict__ features, long long cells,
                                                     const PassModel model, const __grid_constant__ ParamModel param,
                                                     Sum* __restrict__ total, Sum* __restrict__ next_total,
                                                     uint16_t* __restrict__ labels) {
  if (model.in_loop && *model.loop.step != kmeans_update::kMoved) return;
  const int k = model.k;
  const int bands = kBands > 0 ? kBands : model.bands;
  const float* centres_arg = model.centres;
  const float* scale_arg = model.scale;
  const float inertia_scale = model.inertia_scale_at ? *model.inertia_scale_at : model.inertia_scale;
  const float* centres_g = centres_arg ? centres_arg : param.values;
  const float* scale_g = centres_arg ? scale_arg : param.values + k * bands;
  extern __shared__ Sum shared[];
  const int table = k * (bands + 1) + 1;  // per cluster: band sums, count; then the inertia
  const int tables = kTables == Tables::PerWarp ? kWarps : kTables == Tables::PerBlock ? 1 : 0;
  const int warp = threadIdx.x / 32;
  Sum* sums = kTables == Tables::Global ? total : shared + (kTables == Tables::PerWarp ? warp * table : 0);
  float* centres_s = reinterpret_cast<float*>(shared + tables * table);
  const float* centres = kTables == Tables::Global ? centres_g : centres_s;
  float* scale = centres_s + (kTables == Tables::Global ? 0 : k * bands);
  if (kTables != Tables::Global) {
    for (int t = threadIdx.x; t < tables * table; t += blockDim.x) shared[t] = 0;
    for (int t = threadIdx.x; t < k * bands; t += blockDim.x) centres_s[t] = centres_g[t];
  }
  for (int t = threadIdx.x; t < bands; t += blockDim.x) scale[t] = scale_g[t];
  // The next pass adds into the other buffer: clearing it here saves a memset per pass.
  if (blockIdx.x == 0)
    for (int t = threadIdx.x; t < table; t += blockDim.x) next_total[t] = 0;
  __syncthreads();

  sum_cells<kBands, kTables>(features, cells, k, bands, centres, scale, inertia_scale, sums, table, labels);
  if constexpr (kTables != Tables::Global) {
    __syncthreads();
    for (int t = threadIdx.x; t < table; t += blockDim.x) {
      Sum s = 0;
      for (int w = 0; w < tables; ++w) s += shared[w * table + t];
      if (s) atomicAdd(total + t, s);
    }
  }
  if (model.in_loop) {  // the last block to finish runs the update
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(model.loop.arrivals, 1u) == gridDim.x - 1;
    __syncthreads();
    if (last) {
      __threadfence();
      lloyd_update(model.loop, total, k, bands, model.tol);
    }
  }
}

// Lloyd's whole loop in one cooperative launch (per-warp tables, bands known
// at compile time): a pass, a grid-wide barrier, then every block computes
// the same update from the pass's total, so one barrier per iteration
// suffices. Totals rotate through three tables: pass `it` adds into
// totals[it % 3] while block 0 clears totals[(it + 1) % 3], which was last
// read by the updates of pass it - 2, before the barrier of pass it - 1.
// Block 0 leaves the final state in `s`, with the sums of a pass against the
// final centres (LloydOutcome::sums_final).
template <int kBands>
__global__ void __launch_bounds__(kThreads, 4) k_lloyd_loop(const float* __restrict__ features, long long cells,
                                                         LoopState s, Sum* __restrict__ totals, int k, int max_iter,
                                                         double tol) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  constexpr int bands = kBands;
  const int table = k * (bands + 1) + 1;
  extern __shared__ Sum shared[];  // kWarps tables, the pass's total, centres, scales, next centres
  int64_t* total_s = reinterpret_cast<int64_t*>(shared + kWarps * table);
  float* centres = reinterpret_cast<float*>(shared + (kWarps + 1) * table);
  float* scale = centres + k * bands;
  float* next = scale + bands;
  __shared__ float inertia_scale;
  for (int t = threadIdx.x; t < k * bands; t += blockDim.x) centres[t] = s.centres[t];
  for (int t = threadIdx.x; t < bands; t += blockDim.x) scale[t] = s.scale[t];
  if (threadIdx.x == 0) inertia_scale = *s.inertia_scale;
  int it = 0;
  // One pass into totals[it % 3], then the barrier; the total is left in total_s.
  auto pass = [&] {
    Sum* total = totals + (it % 3) * table;
    for (int t = threadIdx.x; t < kWarps * table; t += blockDim.x) shared[t] = 0;
    if (blockIdx.x == 0)
      for (int t = threadIdx.x; t < table; t += blockDim.x) totals[((it + 1) % 3) * table + t] = 0;
    __syncthreads();
    sum_cells<kBands, Tables::PerWarp>(features, cells, k, bands, centres, scale, inertia_scale,
                                       shared + (threadIdx.x / 32) * table, table, nullptr);
    __syncthreads();
    for (int t = threadIdx.x; t < table; t += blockDim.x) {
      Sum sum = 0;
      for (int w = 0; w < kWarps; ++w) sum += shared[w * table + t];
      if (sum) atomicAdd(total + t, sum);
    }
    grid.sync();
    for (int t = threadIdx.x; t < table; t += blockDim.x) total_s[t] = static_cast<int64_t>(__ldcg(total + t));
    __syncthreads();
  };
  kmeans_update::LloydStep step = kmeans_update::kMoved;
  while (step == kmeans_update::kMoved && it < max_iter) {
    pass();
    ++it;
    step = block_update(total_s, k, bands, scale, centres, next, tol);
    if (threadIdx.x == 0 && step != kmeans_update::kUnchanged)
      inertia_scale = kmeans_update::inertia_scale_for(centres, k, bands, s.lo, s.hi);
    __syncthreads();
  }
  // The counts and inertia of the final centres: the last pass's when they
  // did not move, else one more pass (not counted as an iteration).
  if (step != kmeans_update::kUnchanged) pass();
  if (blockIdx.x == 0) {
    for (int t = threadIdx.x; t < table; t += blockDim.x) s.sums[t] = static_cast<Sum>(total_s[t]);
    for (int t = threadIdx.x; t < k * bands; t += blockDim.x) s.centres[t] = centres[t];
    if (threadIdx.x == 0) {
      *s.inertia_scale = inertia_scale;
      *s.iterations = it;
      *s.step = step;
    }
  }
}

using AssignKernel = void (*)(const float*, long long, PassModel, ParamModel, Sum*, Sum*, uint16_t*);

template <int kBands>
AssignKernel assign_kernel(Tables tables) {
  switch (tables) {
    case Tables::PerWarp: return k_assign<kBands, Tables::PerWarp>;
    case Tables::PerBlock: return k_assign<kBands, Tables::PerBlock>;
    default: return k_assign<kBands, Tables::Global>;
  }
}

// One wave of blocks (as many as fit the device at once, never more than the
// cells need): a grid of 1.3 waves would leave most multiprocessors idle
// while the last blocks run their whole share of the grid-stride loop.
template <int kBands>
void launch_assign(Tables tables, long long blocks_needed, int sms, size_t shared_bytes, cudaStream_t stream,
                   const float* features, long long cells, const PassModel& model, const ParamModel& param,
                   Sum* total, Sum* next_total, uint16_t* labels) {
  const AssignKernel kernel = assign_kernel<kBands>(tables);
  int per_sm = 0;
  LSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, shared_bytes));
  const int blocks = static_cast<int>(std::max<long long>(1, std::min<long long>(blocks_needed, int64_t(std::max(per_sm, 1)) * sms)));
  kernel<<<blocks, kThreads, shared_bytes, stream>>>(features, cells, model, param, total, next_total, labels);
  LSM_CUDA_CHECK_LAUNCH();
}

// Where a pass keeps its tables of sums, and the shared memory it needs.
struct Layout {
  Tables tables;
  size_t shared_bytes;
};

class CudaKMeansPass final : public KMeansPass {
 public:
  explicit CudaKMeansPass(int device) : device_(device) {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    prepare_device_pool(device_);
    LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    LSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device_));
    int cooperative = 0;
    LSM_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device_));
    cooperative_ = cooperative != 0;
  }
  ~CudaKMeansPass() override {
    features_.release();
    model_.release();
    sums_.release();
    labels_.release();
    loop_.release();
    if (stream_) cudaStreamDestroy(stream_);
  }

  void set_data(const float* features, int64_t cells, int bands) override {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    cells_ = cells;
    bands_ = bands;
    const size_t bytes = static_cast<size_t>(cells) * bands * sizeof(float);
    features_.reserve(std::max<size_t>(bytes, 4), stream_);
    // The small buffers of run() are set up here, with the upload, so that the
    // first Lloyd iteration does not pay for a pinned allocation.
    host_.reserve(kPreparedBytes);
    model_.reserve(kPreparedBytes, stream_);
    sums_.reserve(kPreparedBytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(features_.get(), features, bytes, cudaMemcpyHostToDevice, stream_));
  }

  void run(const KMeansModel& m, ClusterSums& sums, uint16_t* labels) override {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    const int table = m.k * (m.bands + 1) + 1;
    const Layout layout = layout_for(m.k, m.bands);
    // The model: centres then scales, as a kernel parameter when small
    // (and not read from global memory), else staged through pinned memory.
    const size_t model_floats = static_cast<size_t>(m.k) * m.bands + m.bands;
    const bool by_param = model_floats <= static_cast<size_t>(kParamFloats) && layout.tables != Tables::Global;
    ParamModel param{};
    std::copy(m.centres.begin(), m.centres.end(), by_param ? param.values : staged_model(model_floats, table));
    std::copy(m.feature_scale.begin(), m.feature_scale.end(),
              (by_param ? param.values : host_.as<float>()) + m.k * m.bands);
    if (!by_param)
      LSM_CUDA_CHECK(cudaMemcpyAsync(model_.get(), host_.get(), model_floats * sizeof(float), cudaMemcpyHostToDevice,
                                     stream_));
    clear_totals(table);
    Sum* total = sums_.as<Sum>() + (parity_ ? table : 0);
    Sum* next_total = sums_.as<Sum>() + (parity_ ? 0 : table);
    parity_ = !parity_;
    uint16_t* d_labels = nullptr;
    if (labels) {
      labels_.reserve(std::max<size_t>(2, sizeof(uint16_t) * cells_), stream_);
      d_labels = labels_.as<uint16_t>();
    }
    PassModel model;
    model.k = m.k;
    model.bands = m.bands;
    model.centres = by_param ? nullptr : model_.as<float>();
    model.scale = by_param ? nullptr : model_.as<float>() + m.k * m.bands;
    model.inertia_scale = m.inertia_scale;
    if (cells_ == 0) {  // no kernel to clear the next total
      LSM_CUDA_CHECK(cudaMemsetAsync(next_total, 0, sizeof(Sum) * table, stream_));
    } else {
      launch(layout, model, param, total, next_total, d_labels);
    }
    host_.reserve(sizeof(Sum) * table);  // no-op unless k grew past the prepared size
    Sum* host_sums = host_.as<Sum>();  // the model was copied out before: same stream, in order
    LSM_CUDA_CHECK(cudaMemcpyAsync(host_sums, total, sizeof(Sum) * table, cudaMemcpyDeviceToHost, stream_));
    if (labels)
      LSM_CUDA_CHECK(cudaMemcpyAsync(labels, d_labels, sizeof(uint16_t) * cells_, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    add_sums(host_sums, m.k, m.bands, sums);
  }

  // Lloyd's loop on the device: passes, each ending with the update by its
  // last block, are queued in batches, and the host looks at the step only
  // between batches. Passes queued after the loop has ended return at once
  // (PassModel::in_loop), so a batch's overshoot costs a few empty launches.
  bool iterate(const KMeansModel& start, const std::vector<double>& lo, const std::vector<double>& hi, int max_iter,
               double tol, LloydOutcome& outcome, const ProgressFn& progress) override {
    if (cells_ == 0) return false;
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    const int k = start.k, bands = start.bands;
    const size_t bytes = LoopState::bytes(k, bands);
    host_.reserve(bytes);  // the stream is idle: run() and iterate() end synchronised
    loop_.reserve(bytes, stream_);
    const LoopState host = LoopState::at(host_.get(), k, bands), device = LoopState::at(loop_.get(), k, bands);
    std::copy(lo.begin(), lo.end(), host.lo);
    std::copy(hi.begin(), hi.end(), host.hi);
    std::copy(start.centres.begin(), start.centres.end(), host.centres);
    std::copy(start.feature_scale.begin(), start.feature_scale.end(), host.scale);
    *host.inertia_scale = start.inertia_scale;
    *host.step = kmeans_update::kMoved;
    *host.iterations = 0;
    *host.arrivals = 0;
    std::fill(host.totals, host.totals + 3 * (k * (bands + 1) + 1), Sum{0});
    LSM_CUDA_CHECK(cudaMemcpyAsync(loop_.get(), host_.get(), bytes, cudaMemcpyHostToDevice, stream_));
    const Layout layout = layout_for(k, bands);
    outcome.sums_final = layout.tables == Tables::PerWarp && bands <= 4 && cooperative_;
    if (outcome.sums_final) {
      iterate_cooperatively(device, k, bands, max_iter, tol);
    } else {
      iterate_by_launches(layout, device, k, bands, max_iter, tol, bytes, progress);
    }
    LSM_CUDA_CHECK(cudaMemcpyAsync(host_.get(), loop_.get(), bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    // The totals are not left cleared: clear both before the next run().
    cleared_table_ = -1;
    outcome.centres.assign(host.centres, host.centres + k * bands);
    outcome.sums.reset(k, bands);
    add_sums(host.sums, k, bands, outcome.sums);
    outcome.iterations = *host.iterations;
    outcome.step = *host.step;
    if (progress && !progress(1.0)) throw Error(ErrorKind::Io, "interrupted");
    return true;
  }

 private:
  // The whole loop in one cooperative launch (k_lloyd_loop).
  void iterate_cooperatively(const LoopState& device, int k, int bands, int max_iter, double tol) {
    const int table = k * (bands + 1) + 1;
    const size_t shared_bytes = sizeof(Sum) * (kWarps + 1) * table + sizeof(float) * (2 * k * bands + bands);
    auto launch = [&](auto kernel) {
      // The occupancy query is remembered: restarts launch the same kernel.
      if (coop_occupancy_.bands != bands || coop_occupancy_.shared_bytes != shared_bytes) {
        int per_sm = 0;
        LSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, shared_bytes));
        coop_occupancy_ = {bands, shared_bytes, per_sm};
      }
      const int per_sm = coop_occupancy_.per_sm;
      const long long blocks_needed = ((cells_ + 31) / 32 + kWarps - 1) / kWarps;
      // Every block must be resident at once for the grid-wide barrier.
      const int blocks = static_cast<int>(std::max<long long>(1, std::min<long long>(blocks_needed, int64_t(std::max(per_sm, 1)) * sms_)));
      const float* f = features_.as<float>();
      long long cells = cells_;
      LoopState state = device;
      Sum* totals = device.totals;
      void* args[] = {&f, &cells, &state, &totals, &k, &max_iter, &tol};
      LSM_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), blocks, kThreads, args,
                                                 shared_bytes, stream_));
    };
    switch (bands) {
      case 1: launch(k_lloyd_loop<1>); break;
      case 2: launch(k_lloyd_loop<2>); break;
      case 3: launch(k_lloyd_loop<3>); break;
      default: launch(k_lloyd_loop<4>); break;
    }
  }

  // The loop as a pass kernel per iteration, the update by each pass's last
  // block; the host looks at the step between batches.
  void iterate_by_launches(const Layout& layout, const LoopState& device, int k, int bands, int max_iter, double tol,
                           size_t bytes, const ProgressFn& progress) {
    const int table = k * (bands + 1) + 1;
    const LoopState host = LoopState::at(host_.get(), k, bands);
    clear_totals(table);
    PassModel model;
    model.k = k;
    model.bands = bands;
    model.centres = device.centres;
    model.scale = device.scale;
    model.inertia_scale_at = device.inertia_scale;
    model.in_loop = true;
    model.loop = device;
    model.tol = tol;
    const ParamModel unused{};
    constexpr int kBatch = 8;  // passes queued between two looks at the step
    int queued = 0;
    while (queued < max_iter) {
      for (int end = std::min(max_iter, queued + kBatch); queued < end; ++queued) {
        Sum* total = sums_.as<Sum>() + (parity_ ? table : 0);
        Sum* next_total = sums_.as<Sum>() + (parity_ ? 0 : table);
        parity_ = !parity_;
        launch(layout, model, unused, total, next_total, nullptr);
      }
      LSM_CUDA_CHECK(cudaMemcpyAsync(host_.get(), loop_.get(), bytes, cudaMemcpyDeviceToHost, stream_));
      LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (*host.step != kmeans_update::kMoved) break;
      if (progress && !progress(double(queued) / max_iter)) {
        cleared_table_ = -1;
        throw Error(ErrorKind::Io, "interrupted");
      }
    }
  }

 public:

  const char* name() const override { return "cuda"; }

 private:
  Layout layout_for(int k, int bands) const {
    const int table = k * (bands + 1) + 1;
    const size_t centre_bytes = sizeof(float) * (k * bands + bands);
    if (sizeof(Sum) * table * kWarps + centre_bytes <= kSharedLimit)
      return {Tables::PerWarp, sizeof(Sum) * table * kWarps + centre_bytes};
    if (sizeof(Sum) * table + centre_bytes <= kSharedLimit) return {Tables::PerBlock, sizeof(Sum) * table + centre_bytes};
    return {Tables::Global, sizeof(float) * bands};
  }

  void launch(const Layout& l, const PassModel& model, const ParamModel& param, Sum* total, Sum* next_total,
              uint16_t* labels) {
    const float* f = features_.as<float>();
    const long long blocks_needed = ((cells_ + 31) / 32 + kWarps - 1) / kWarps;
    auto with_bands = [&](auto bands_constant) {
      launch_assign<decltype(bands_constant)::value>(l.tables, blocks_needed, sms_, l.shared_bytes, stream_, f, cells_,
                                                     model, param, total, next_total, labels);
    };
    switch (model.bands) {
      case 1: with_bands(std::integral_constant<int, 1>{}); break;
      case 2: with_bands(std::integral_constant<int, 2>{}); break;
      case 3: with_bands(std::integral_constant<int, 3>{}); break;
      case 4: with_bands(std::integral_constant<int, 4>{}); break;
      default: with_bands(std::integral_constant<int, 0>{}); break;
    }
  }

  // Two totals: a pass adds into one and clears the other for the next.
  void clear_totals(int table) {
    if (table == cleared_table_) return;
    sums_.reserve(2 * sizeof(Sum) * table, stream_);
    LSM_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, 2 * sizeof(Sum) * table, stream_));
    cleared_table_ = table;
  }

  static void add_sums(const Sum* table_sums, int k, int bands, ClusterSums& sums) {
    for (int j = 0; j < k; ++j) {
      for (int b = 0; b < bands; ++b)
        sums.feature_sums[j * bands + b] += static_cast<int64_t>(table_sums[j * (bands + 1) + b]);
      sums.counts[j] += static_cast<int64_t>(table_sums[j * (bands + 1) + bands]);
    }
    sums.inertia += static_cast<int64_t>(table_sums[k * (bands + 1)]);
  }

  // Pinned staging for a model too large to pass as a parameter; the stream
  // is idle here (run() ends with a synchronisation), as reserve() requires.
  float* staged_model(size_t model_floats, int table) {
    host_.reserve(std::max(model_floats * sizeof(float), sizeof(Sum) * table));
    model_.reserve(model_floats * sizeof(float), stream_);
    return host_.as<float>();
  }

 private:
  int device_ = 0;
  int sms_ = 1;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer features_, model_, sums_, labels_, loop_;
  struct {
    int bands = 0;
    size_t shared_bytes = 0;
    int per_sm = 0;
  } coop_occupancy_;
  bool cooperative_ = false;  // the device can launch cooperative kernels
  PinnedBuffer host_;
  int64_t cells_ = 0;
  int bands_ = 0;
  int cleared_table_ = -1;  // the table size both totals were cleared for
  bool parity_ = false;     // which total the next pass adds into
};

}  // namespace

std::unique_ptr<KMeansPass> make_cuda_kmeans_pass(int device) { return std::make_unique<CudaKMeansPass>(device); }

}  // namespace lsm
