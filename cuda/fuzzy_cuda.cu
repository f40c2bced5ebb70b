// Fuzzy connectedness on the GPU: max-min sweeps. Along a line of voxels the
// propagation K(p) = max(K(p), min(K(p-1), mu(p-1, p))) is a scan of the
// functions v -> max(C, min(v, A)), which are closed under composition
// (docs/FUZZY.md), so one warp scans a whole row with shuffles; columns and
// slice stacks are swept by one thread each, coalesced across x. A round
// sweeps x, y and z both ways; rounds repeat until one changes nothing.
// Values only grow and each is a real path's strength, so the fixed point
// reached is the reference's, bit for bit, whatever the thread schedule.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "fuzzy_cuda.h"
#include "fuzzy_math.h"

namespace lsm {

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// The planes on the device: `planes` slices of w x h, of which [z_lo, z_hi)
// are updated; the others are the neighbouring slabs' border slices, read only.
struct Slab {
  long long w, h, planes, z_lo, z_hi;
};

// Off-line predecessors of (x, y, z) for a sweep along `axis` in direction s
// (the predecessor's coordinate along the axis is p - s): the 8 (or 2, in an
// image seen as h = 1) neighbours across that plane other than the in-line
// one. Only for the full (8/26) adjacency.
__device__ float pull_across_lines(const float* scene, const float* values, const Slab& d, long long x, long long y,
                                   long long z, int axis, int s, float fc, const AffinityParameters& a) {
  float best = 0.0f;
  for (int u = -1; u <= 1; ++u)
    for (int v = -1; v <= 1; ++v) {
      if (u == 0 && v == 0) continue;
      const long long nx = axis == 0 ? x - s : x + u;
      const long long ny = axis == 1 ? y - s : axis == 0 ? y + u : y + v;
      const long long nz = axis == 2 ? z - s : z + v;
      if (nx < 0 || ny < 0 || nz < 0 || nx >= d.w || ny >= d.h || nz >= d.planes) continue;
      const long long j = (nz * d.h + ny) * d.w + nx;
      best = fmaxf(best, fminf(scene[j], fuzzy_math::affinity(values[j], fc, a)));
    }
  return best;
}

// Inclusive warp scan of (A, C): lane i ends with the composition of the
// functions of lanes 0..i, applied in lane order.
__device__ void scan_max_min(float& A, float& C, int lane) {
  for (int offset = 1; offset < 32; offset <<= 1) {
    const float A_before = __shfl_up_sync(kFullMask, A, offset);
    const float C_before = __shfl_up_sync(kFullMask, C, offset);
    if (lane >= offset) {
      C = fmaxf(C, fminf(C_before, A));
      A = fminf(A, A_before);
    }
  }
}

// Activity: the slab's updated planes are cut into bricks of 32 x 8 x 8
// voxels. A brick is swept in a round only when it or one of its 26
// neighbouring bricks changed in the previous round (the first round sweeps
// all), or when the value a sweep carries into it raises its first voxel.
// Skipping an unchanged brick is safe: none of its adjacencies can have been
// violated since it was last swept without change, and a round that changes
// nothing still proves the fixed point (docs/FUZZY.md).
constexpr int kBrickX = 32, kBrickY = 8, kBrickZ = 8;

struct Bricks {
  const unsigned char* active;  // this round's bricks to sweep
  unsigned char* touched;       // bricks changed in this round
  long long nx, ny, nz;
  __device__ long long of(long long x, long long y, long long z_rel) const {
    return ((z_rel / kBrickZ) * ny + y / kBrickY) * nx + x / kBrickX;
  }
};

// Voxels each thread loads ahead before the dependent max-min chain uses
// them: the chain is serial, the loads need not be (memory-level parallelism).
constexpr int kRowBatch = 4;  // chunks of 32 voxels (one brick wide) per warp

// One warp per row, forward then backward, a chunk of 32 voxels (one brick
// width) per step: chunk c holds x = 32c..32c+31, lane L the L-th voxel of
// the chunk in the sweep's order.
template <bool kFull>
__global__ void k_sweep_rows(float* scene, const float* __restrict__ values, Slab d, AffinityParameters a,
                             Bricks bricks, int* changed) {
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (warp >= d.h * (d.z_hi - d.z_lo)) return;  // uniform across the warp
  const long long y = warp % d.h, z_rel = warp / d.h, z = d.z_lo + z_rel;
  const long long base = (z * d.h + y) * d.w, chunks = (d.w + 31) / 32;
  bool any = false;
  for (int s = 1; s >= -1; s -= 2) {
    float carry = 0.0f, carry_f = NAN;  // the voxel before the next chunk: none at the row's start
    bool fresh = true;                  // whether carry, carry_f hold it
    for (long long j0 = 0; j0 < chunks; j0 += kRowBatch) {
      float f[kRowBatch], old[kRowBatch];
      bool active[kRowBatch];
#pragma unroll
      for (int b = 0; b < kRowBatch; ++b) {
        const long long c = s > 0 ? j0 + b : chunks - 1 - (j0 + b);
        const long long x = 32 * c + (s > 0 ? lane : 31 - lane);
        active[b] = j0 + b < chunks && bricks.active[bricks.of(32 * c, y, z_rel)];
        const bool load = active[b] && x < d.w;
        f[b] = load ? values[base + x] : NAN;
        old[b] = load ? scene[base + x] : 0.0f;
      }
#pragma unroll
      for (int b = 0; b < kRowBatch; ++b) {
        if (j0 + b >= chunks) break;  // uniform across the warp
        const long long c = s > 0 ? j0 + b : chunks - 1 - (j0 + b);
        const long long x = 32 * c + (s > 0 ? lane : 31 - lane);
        const bool valid = x < d.w;
        const long long first = s > 0 ? 32 * c : min(d.w - 1, 32 * c + 31);
        if (!active[b]) {
          // Sweep it anyway if the value carried from a swept chunk raises
          // its first voxel; after a skipped chunk, the next round will do.
          if (!fresh || !(fminf(carry, fuzzy_math::affinity(carry_f, values[base + first], a)) > scene[base + first])) {
            fresh = false;
            continue;
          }
          f[b] = valid ? values[base + x] : NAN;
          old[b] = valid ? scene[base + x] : 0.0f;
        } else if (!fresh) {  // the voxel before this chunk, as it is now
          carry = scene[base + first - s];
          carry_f = values[base + first - s];
        }
        fresh = true;
        float f_before = __shfl_up_sync(kFullMask, f[b], 1);
        if (lane == 0) f_before = carry_f;
        float A = valid ? fuzzy_math::affinity(f_before, f[b], a) : 0.0f;  // NaN before the row: 0
        float C = old[b];
        if (kFull && valid) C = fmaxf(C, pull_across_lines(scene, values, d, x, y, z, 0, s, f[b], a));
        scan_max_min(A, C, lane);
        const float updated = fmaxf(C, fminf(carry, A));
        const bool raised = valid && updated > old[b];
        if (raised) scene[base + x] = updated;
        if (__any_sync(kFullMask, raised)) {
          any = true;
          if (lane == 0) bricks.touched[bricks.of(32 * c, y, z_rel)] = 1;
        }
        carry = __shfl_sync(kFullMask, updated, 31);
        carry_f = __shfl_sync(kFullMask, f[b], 31);
      }
    }
    __syncwarp();  // the backward pass reads what other lanes wrote
  }
  if (any && lane == 0) *changed = 1;
}

// One thread per line along `axis` (1: columns, 2: slice stacks), forward
// then backward over [lo, hi) of the buffer's coordinate along the axis,
// `step` the index step along it, in batches of 8 voxels = one brick. A ghost
// slice before lo / after hi seeds the carry. All threads of a warp share
// their bricks (x within one brick width), so skipping is warp-uniform.
template <bool kFull>
__device__ bool sweep_line(float* scene, const float* values, const Slab& d, const Bricks& bricks, long long x,
                           long long y, long long z0, int axis, long long lo, long long hi, long long extent,
                           long long step, const AffinityParameters& a) {
  constexpr int kBatch = 8;
  static_assert(kBatch == kBrickY && kBatch == kBrickZ, "a batch is one brick along y and z");
  bool any = false;
  const long long origin = (z0 * d.h + y) * d.w + x;  // the voxel at coordinate 0 along the axis
  const long long n = hi - lo, batches = (n + kBatch - 1) / kBatch;
  auto brick_at = [&](long long p) {  // p: buffer coordinate along the axis
    return axis == 1 ? bricks.of(x, p, z0 - d.z_lo) : bricks.of(x, y, p - d.z_lo);
  };
  for (int s = 1; s >= -1; s -= 2) {
    const long long before = s > 0 ? lo - 1 : hi;
    float carry = 0.0f, f_before = NAN;
    bool fresh = true;
    if (before >= 0 && before < extent) {
      carry = scene[origin + before * step];
      f_before = values[origin + before * step];
    }
    // Counted loops: the form `for (; p >= lo && p < hi; p += s)` ran one
    // step only under nvcc 13 -O3 (seen on the H200), so the bounds stay simple.
    for (long long j = 0; j < batches; ++j) {
      const long long batch = s > 0 ? j : batches - 1 - j;
      const long long b_lo = lo + batch * kBatch, b_hi = min(hi, b_lo + kBatch), count = b_hi - b_lo;
      const long long first = s > 0 ? b_lo : b_hi - 1;
      if (!bricks.active[brick_at(b_lo)]) {  // as in k_sweep_rows
        const long long i = origin + first * step;
        if (!fresh || !(fminf(carry, fuzzy_math::affinity(f_before, values[i], a)) > scene[i])) {
          fresh = false;
          continue;
        }
      } else if (!fresh) {
        carry = scene[origin + (first - s) * step];
        f_before = values[origin + (first - s) * step];
      }
      fresh = true;
      float fs[kBatch], olds[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (b < count) {
          const long long i = origin + (first + s * b) * step;
          fs[b] = values[i];
          olds[b] = scene[i];
        }
      bool raised = false;
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        if (b >= count) break;
        const long long p = first + s * b, i = origin + p * step;
        const float f = fs[b], old = olds[b];
        float updated = fmaxf(old, fminf(carry, fuzzy_math::affinity(f_before, f, a)));
        if (kFull) {
          const long long py = axis == 1 ? p : y, pz = axis == 2 ? p : z0;
          updated = fmaxf(updated, pull_across_lines(scene, values, d, x, py, pz, axis, s, f, a));
        }
        if (updated > old) {
          scene[i] = updated;
          raised = true;
        }
        carry = updated;
        f_before = f;
      }
      if (raised) {
        bricks.touched[brick_at(b_lo)] = 1;
        any = true;
      }
    }
  }
  return any;
}

template <bool kFull>
__global__ void k_sweep_columns(float* scene, const float* __restrict__ values, Slab d, AffinityParameters a,
                                Bricks bricks, int* changed) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= d.w * (d.z_hi - d.z_lo)) return;
  const long long x = t % d.w, z = d.z_lo + t / d.w;
  if (sweep_line<kFull>(scene, values, d, bricks, x, 0, z, 1, 0, d.h, d.h, d.w, a)) *changed = 1;
}

template <bool kFull>
__global__ void k_sweep_stacks(float* scene, const float* __restrict__ values, Slab d, AffinityParameters a,
                               Bricks bricks, int* changed) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= d.w * d.h) return;
  const long long x = t % d.w, y = t / d.w;
  if (sweep_line<kFull>(scene, values, d, bricks, x, y, 0, 2, d.z_lo, d.z_hi, d.planes, d.w * d.h, a)) *changed = 1;
}

// active = the bricks touched last round and their 26 neighbours.
__global__ void k_dilate_bricks(const unsigned char* touched, unsigned char* active, long long nx, long long ny,
                                long long nz) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= nx * ny * nz) return;
  const long long bx = t % nx, by = (t / nx) % ny, bz = t / (nx * ny);
  unsigned char on = 0;
  for (long long z = max(0LL, bz - 1); z <= min(nz - 1, bz + 1); ++z)
    for (long long y = max(0LL, by - 1); y <= min(ny - 1, by + 1); ++y)
      for (long long x = max(0LL, bx - 1); x <= min(nx - 1, bx + 1); ++x) on |= touched[(z * ny + y) * nx + x];
  active[t] = on;
}

__global__ void k_set_seeds(float* scene, const long long* seeds, long long count) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < count) scene[seeds[t]] = 1.0f;
}

unsigned blocks_for(long long threads, int per_block) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

class CudaFuzzyEngine final : public FuzzyEngine {
 public:
  CudaFuzzyEngine(int device, int64_t max_slab_voxels) : stream_(device), max_slab_voxels_(max_slab_voxels) {
    flag_host_.reserve(sizeof(int));
  }

  void run(const VolumeView& volume, const AffinityParameters& affinity, const std::vector<Voxel>& seeds,
           float* scene, const ProgressFn& progress) override {
    check_seeds(volume, seeds);
    stream_.activate();
    rounds_ = 0;
    transfer_seconds_ = propagate_seconds_ = 0;
    // An image is a volume of one-row slices: its rows become slices, so the
    // 4/8 neighbours of the image are exactly the 6/26 neighbours that exist.
    const bool image = volume.depth == 1;
    const long long w = volume.width, h = image ? 1 : volume.height, depth = image ? volume.height : volume.depth;
    const long long plane = w * h;
    std::vector<long long> seed_index;
    for (const Voxel& s : seeds) seed_index.push_back(((image ? s.y : s.z) * h + (image ? 0 : s.y)) * w + s.x);

    long long budget = max_slab_voxels_;
    if (budget <= 0) {
      size_t free_bytes = 0, total_bytes = 0;
      LSM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      budget = static_cast<long long>(free_bytes * 0.6 / (2 * sizeof(float)));
    }
    if (budget < 3 * plane) throw Error(ErrorKind::Device, "too little device memory for three slices of the volume");
    // Slabs of whole slices, with one ghost slice each side inside the budget.
    const long long slab_planes = std::min(depth, budget / plane - 2);
    const long long slab_count = (depth + slab_planes - 1) / slab_planes;
    const size_t buffer_bytes = sizeof(float) * std::min(depth, slab_planes + 2) * plane;
    values_.reserve(buffer_bytes, stream_);
    scene_.reserve(buffer_bytes, stream_);
    flag_.reserve(sizeof(int), stream_);
    seeds_.reserve(sizeof(long long) * seed_index.size(), stream_);
    // Unvisited slabs are zero but for their seeds; the host copy only
    // matters when slabs read each other's borders.
    if (slab_count > 1) {
      std::fill(scene, scene + volume.voxels(), 0.0f);
      for (long long i : seed_index) scene[i] = 1.0f;
    }

    // Slabs wait for work while a neighbour changed their shared border.
    std::vector<char> dirty(static_cast<size_t>(slab_count), 1), visited_before(static_cast<size_t>(slab_count), 0);
    std::vector<float> border_before;
    std::vector<long long> slab_seeds;
    long long pending = slab_count, visited = 0;
    for (int direction = 1; pending > 0; direction = -direction) {
      for (long long k = 0; k < slab_count; ++k) {
        const long long s = direction > 0 ? k : slab_count - 1 - k;
        if (!dirty[s]) continue;
        dirty[s] = 0;
        --pending;
        const long long z_lo = s * slab_planes, z_hi = std::min(depth, z_lo + slab_planes);
        const long long first = std::max(0LL, z_lo - 1), last = std::min(depth, z_hi + 1);
        const Slab d{w, h, last - first, z_lo - first, z_hi - first};
        const auto t0 = std::chrono::steady_clock::now();
        LSM_CUDA_CHECK(cudaMemcpyAsync(values_.get(), volume.values + first * plane,
                                       sizeof(float) * (last - first) * plane, cudaMemcpyHostToDevice, stream_));
        if (visited_before[s]) {
          LSM_CUDA_CHECK(cudaMemcpyAsync(scene_.get(), scene + first * plane, sizeof(float) * (last - first) * plane,
                                         cudaMemcpyHostToDevice, stream_));
        } else {  // zeros, the ghost slices, the seeds
          LSM_CUDA_CHECK(cudaMemsetAsync(scene_.get(), 0, sizeof(float) * (last - first) * plane, stream_));
          for (long long g : {first, last - 1})
            if (g < z_lo || g >= z_hi)
              LSM_CUDA_CHECK(cudaMemcpyAsync(scene_.as<float>() + (g - first) * plane, scene + g * plane,
                                             sizeof(float) * plane, cudaMemcpyHostToDevice, stream_));
          slab_seeds.clear();
          for (long long i : seed_index)
            if (i >= z_lo * plane && i < z_hi * plane) slab_seeds.push_back(i - first * plane);
          if (!slab_seeds.empty()) {
            LSM_CUDA_CHECK(cudaMemcpyAsync(seeds_.get(), slab_seeds.data(), sizeof(long long) * slab_seeds.size(),
                                           cudaMemcpyHostToDevice, stream_));
            k_set_seeds<<<blocks_for(static_cast<long long>(slab_seeds.size()), 128), 128, 0, stream_>>>(
                scene_.as<float>(), seeds_.as<long long>(), static_cast<long long>(slab_seeds.size()));
            LSM_CUDA_CHECK_LAUNCH();
          }
          visited_before[s] = 1;
        }
        if (slab_count > 1) {
          border_before.assign(scene + z_lo * plane, scene + z_lo * plane + plane);
          border_before.insert(border_before.end(), scene + (z_hi - 1) * plane, scene + z_hi * plane);
        }
        LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        const auto t1 = std::chrono::steady_clock::now();
        relax(d, affinity);
        const auto t2 = std::chrono::steady_clock::now();
        LSM_CUDA_CHECK(cudaMemcpyAsync(scene + z_lo * plane, scene_.as<float>() + (z_lo - first) * plane,
                                       sizeof(float) * (z_hi - z_lo) * plane, cudaMemcpyDeviceToHost, stream_));
        LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        const auto t3 = std::chrono::steady_clock::now();
        transfer_seconds_ += std::chrono::duration<double>(t1 - t0 + (t3 - t2)).count();
        propagate_seconds_ += std::chrono::duration<double>(t2 - t1).count();
        if (slab_count > 1) {
          const bool head_changed =
              !std::equal(scene + z_lo * plane, scene + z_lo * plane + plane, border_before.begin());
          const bool tail_changed =
              !std::equal(scene + (z_hi - 1) * plane, scene + z_hi * plane, border_before.begin() + plane);
          if (head_changed && s > 0 && !dirty[s - 1]) dirty[s - 1] = 1, ++pending;
          if (tail_changed && s + 1 < slab_count && !dirty[s + 1]) dirty[s + 1] = 1, ++pending;
        }
        ++visited;
        if (progress && !progress(std::min(0.99, static_cast<double>(visited) / static_cast<double>(visited + pending))))
          throw Error(ErrorKind::Io, "interrupted");
      }
    }
    if (progress && !progress(1.0)) throw Error(ErrorKind::Io, "interrupted");
  }

  const char* name() const override { return "cuda"; }
  RunStats stats() const override { return {rounds_, transfer_seconds_, propagate_seconds_}; }

 private:
  // Sweeps the slab on the device until a round changes nothing: every
  // brick in the first round, then the bricks near last round's changes.
  void relax(const Slab& d, const AffinityParameters& a) {
    float* scene = scene_.as<float>();
    const float* values = values_.as<float>();
    int* changed = flag_.as<int>();
    const bool full = a.adjacency == Adjacency::Full;
    const long long planes = d.z_hi - d.z_lo, rows = d.h * planes;
    const long long nx = (d.w + kBrickX - 1) / kBrickX, ny = (d.h + kBrickY - 1) / kBrickY,
                    nz = (planes + kBrickZ - 1) / kBrickZ, count = nx * ny * nz;
    active_.reserve(count, stream_);
    touched_.reserve(count, stream_);
    const Bricks bricks{active_.as<unsigned char>(), touched_.as<unsigned char>(), nx, ny, nz};
    LSM_CUDA_CHECK(cudaMemsetAsync(active_.get(), 1, count, stream_));
    for (;;) {
      ++rounds_;
      LSM_CUDA_CHECK(cudaMemsetAsync(changed, 0, sizeof(int), stream_));
      LSM_CUDA_CHECK(cudaMemsetAsync(touched_.get(), 0, count, stream_));
      const unsigned row_blocks = blocks_for(rows * 32, 256);
      if (full) k_sweep_rows<true><<<row_blocks, 256, 0, stream_>>>(scene, values, d, a, bricks, changed);
      else k_sweep_rows<false><<<row_blocks, 256, 0, stream_>>>(scene, values, d, a, bricks, changed);
      LSM_CUDA_CHECK_LAUNCH();
      if (d.h > 1) {
        const unsigned blocks = blocks_for(d.w * planes, 128);
        if (full) k_sweep_columns<true><<<blocks, 128, 0, stream_>>>(scene, values, d, a, bricks, changed);
        else k_sweep_columns<false><<<blocks, 128, 0, stream_>>>(scene, values, d, a, bricks, changed);
        LSM_CUDA_CHECK_LAUNCH();
      }
      if (planes > 1 || d.planes > 1) {
        const unsigned blocks = blocks_for(d.w * d.h, 128);
        if (full) k_sweep_stacks<true><<<blocks, 128, 0, stream_>>>(scene, values, d, a, bricks, changed);
        else k_sweep_stacks<false><<<blocks, 128, 0, stream_>>>(scene, values, d, a, bricks, changed);
        LSM_CUDA_CHECK_LAUNCH();
      }
      k_dilate_bricks<<<blocks_for(count, 256), 256, 0, stream_>>>(touched_.as<unsigned char>(),
                                                                   active_.as<unsigned char>(), nx, ny, nz);
      LSM_CUDA_CHECK_LAUNCH();
      LSM_CUDA_CHECK(cudaMemcpyAsync(flag_host_.get(), changed, sizeof(int), cudaMemcpyDeviceToHost, stream_));
      LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (*flag_host_.as<int>() == 0) return;
    }
  }

  DeviceStream stream_;  // first: the buffers below are released on it before it goes
  int64_t max_slab_voxels_ = 0;
  DeviceBuffer values_, scene_, flag_, active_, touched_, seeds_;
  PinnedBuffer flag_host_;
  int64_t rounds_ = 0;
  double transfer_seconds_ = 0, propagate_seconds_ = 0;
};

}  // namespace

std::unique_ptr<FuzzyEngine> make_cuda_fuzzy_engine(int device, int64_t max_slab_voxels) {
  return std::make_unique<CudaFuzzyEngine>(device, max_slab_voxels);
}

}  // namespace lsm
