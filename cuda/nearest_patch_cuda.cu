#include "nearest_patch_cuda.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>

#include "cuda_check.h"
#include "error.h"

namespace lsm {
namespace {

constexpr int kBlock = 256;
constexpr unsigned long long kNoneBits = 0x7FF0000000000000ull;  // +infinity: no other patch found

unsigned int blocks_for(int64_t n) { return static_cast<unsigned int>((n + kBlock - 1) / kBlock); }

int bits_for(int64_t n) {  // bits that hold 0 .. n - 1
  int b = 0;
  while ((int64_t(1) << b) < n) ++b;
  return b;
}

// The sort key of a site: class | column | row, so that sorting groups each
// class's columns (a "segment") and orders the rows within one.
struct KeyLayout {
  int row_bits, column_bits;
  __device__ unsigned long long key(uint32_t klass, int64_t x, int64_t y) const {
    return (static_cast<unsigned long long>(klass) << (row_bits + column_bits)) |
           (static_cast<unsigned long long>(x) << row_bits) | static_cast<unsigned long long>(y);
  }
  __device__ int64_t row(unsigned long long k) const { return static_cast<int64_t>(k & ((1ull << row_bits) - 1)); }
  __device__ int64_t column(unsigned long long k) const {
    return static_cast<int64_t>((k >> row_bits) & ((1ull << column_bits) - 1));
  }
  __device__ uint32_t klass(unsigned long long k) const { return static_cast<uint32_t>(k >> (row_bits + column_bits)); }
  __device__ unsigned long long segment(unsigned long long k) const { return k >> row_bits; }
};

// An edge cell (a 4-neighbour inside the raster in another patch) of a class with two patches or more.
struct IsSite {
  const uint32_t* pids;
  const uint32_t* class_of;
  const uint8_t* wanted;
  int64_t width, height;
  __device__ bool operator()(uint32_t cell_index) const {
    const int64_t cell = cell_index;
    const uint32_t p = pids[cell];
    if (!p || !wanted[class_of[p]]) return false;
    const int64_t y = cell / width, x = cell - y * width;
    return (x > 0 && pids[cell - 1] != p) || (x + 1 < width && pids[cell + 1] != p) ||
           (y > 0 && pids[cell - width] != p) || (y + 1 < height && pids[cell + width] != p);
  }
};

__global__ void k_site_keys(const uint32_t* __restrict__ cells, int64_t n, const uint32_t* __restrict__ pids,
                            const uint32_t* __restrict__ class_of, int64_t width, KeyLayout layout,
                            unsigned long long* __restrict__ keys) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int64_t cell = cells[i], y = cell / width;
  keys[i] = layout.key(class_of[pids[cell]], cell - y * width, y);
}

// Per sorted site: its row and patch, and 1 where a run of one patch within a segment starts.
__global__ void k_decode(const unsigned long long* __restrict__ keys, int64_t n, const uint32_t* __restrict__ pids,
                         int64_t width, KeyLayout layout, int32_t* __restrict__ rows, uint32_t* __restrict__ site_pid,
                         int32_t* __restrict__ run_starts) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long key = keys[i];
  const int64_t y = layout.row(key);
  const uint32_t p = pids[y * width + layout.column(key)];
  rows[i] = static_cast<int32_t>(y);
  site_pid[i] = p;
  bool starts = i == 0;
  if (!starts) {
    const unsigned long long before = keys[i - 1];
    starts = layout.segment(before) != layout.segment(key) ||
             pids[layout.row(before) * width + layout.column(before)] != p;
  }
  run_starts[i] = starts;
}

// segments[k * width + c]: the first sorted site of class k in column c (a
// lower bound), for every class and column, and one past the last at the end.
__global__ void k_segments(const unsigned long long* __restrict__ keys, int64_t n, int64_t classes, int64_t width,
                           KeyLayout layout, int32_t* __restrict__ segments) {
  const int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s > classes * width) return;
  const unsigned long long target =
      s == classes * width ? layout.key(static_cast<uint32_t>(classes), 0, 0) : layout.key(static_cast<uint32_t>(s / width), s % width, 0);
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  segments[s] = static_cast<int32_t>(lo);
}

__global__ void k_run_first(const int32_t* __restrict__ run_starts, const int32_t* __restrict__ run, int64_t n,
                            int32_t* __restrict__ run_first) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && run_starts[i]) run_first[run[i] - 1] = static_cast<int32_t>(i);
}

// above[i] / below[i]: the nearest site of the segment above / below site i
// in another patch than i's (the one just outside i's run), or -1.
__global__ void k_run_neighbours(const unsigned long long* __restrict__ keys, const int32_t* __restrict__ run,
                                 const int32_t* __restrict__ run_first, const int32_t* __restrict__ segments,
                                 int64_t n, int64_t width, KeyLayout layout, int32_t* __restrict__ above,
                                 int32_t* __restrict__ below) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long key = keys[i];
  const int64_t s = static_cast<int64_t>(layout.klass(key)) * width + layout.column(key);
  const int32_t r = run[i] - 1, runs = run[n - 1];
  const int32_t first = run_first[r], end = r + 1 < runs ? run_first[r + 1] : static_cast<int32_t>(n);
  above[i] = first > segments[s] ? first - 1 : -1;
  below[i] = end < segments[s + 1] ? end : -1;
}

__global__ void k_fill(unsigned long long* __restrict__ v, int64_t n, unsigned long long value) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) v[i] = value;
}

struct SiteArrays {
  const unsigned long long* keys;
  const int32_t* rows;
  const uint32_t* pid;
  const int32_t* above;
  const int32_t* below;
  const int32_t* segments;
};

// One thread per site, in sorted order (neighbouring threads search the same columns).
__global__ void k_search(SiteArrays sites, int64_t n, int64_t width, KeyLayout layout, double cell_width,
                         double cell_height, unsigned long long* __restrict__ best_bits) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long key = sites.keys[i];
  const int64_t x = layout.column(key), y = layout.row(key);
  const uint32_t p = sites.pid[i];
  const int32_t* segments = sites.segments + static_cast<int64_t>(layout.klass(key)) * width;
  unsigned long long* shared_best = best_bits + (p - 1);
  const double start = __longlong_as_double(static_cast<long long>(*static_cast<volatile unsigned long long*>(shared_best)));
  double best = start;
  // The nearest site of another patch in column c, at or above row y and below it.
  auto column = [&](int64_t c, double dx2) {
    const int32_t s0 = segments[c], s1 = segments[c + 1];
    if (s0 == s1) return;
    int32_t lo = s0, hi = s1;  // the first site below row y
    while (lo < hi) {
      const int32_t mid = lo + (hi - lo) / 2;
      if (sites.rows[mid] <= y) lo = mid + 1;
      else hi = mid;
    }
    auto consider = [&](int32_t j) {
      if (j >= 0 && sites.pid[j] == p) j = j < lo ? sites.above[j] : sites.below[j];
      if (j < 0) return;
      // Rounded as the CPU sweep rounds: dy = rows x cell height, d2 = dx2 + dy * dy.
      const double dy = __dmul_rn(static_cast<double>(y - sites.rows[j]), cell_height);
      const double d2 = __dadd_rn(dx2, __dmul_rn(dy, dy));
      if (d2 < best) best = d2;
    };
    if (lo > s0) consider(lo - 1);
    if (lo < s1) consider(lo);
  };
  column(x, 0.0);
  for (int64_t j = 1;; ++j) {
    const double dx = __dmul_rn(static_cast<double>(j), cell_width), dx2 = __dmul_rn(dx, dx);
    if ((j & 7) == 0) {  // what the patch's other sites found meanwhile bounds this search too
      const double shared = __longlong_as_double(static_cast<long long>(*static_cast<volatile unsigned long long*>(shared_best)));
      if (shared < best) best = shared;
    }
    if (dx2 >= best) break;  // no column farther out can be nearer
    const bool left = x - j >= 0, right = x + j < width;
    if (!left && !right) break;
    if (left) column(x - j, dx2);
    if (right) column(x + j, dx2);
  }
  // Positive doubles order as their bit patterns.
  if (best < start) atomicMin(shared_best, static_cast<unsigned long long>(__double_as_longlong(best)));
}

}  // namespace

std::vector<double> DeviceNearestPatch::search(const uint32_t* pids, const uint32_t* class_of,
                                               const std::vector<uint32_t>& class_of_host, size_t classes,
                                               int64_t width, int64_t height, double cell_width, double cell_height,
                                               cudaStream_t stream) {
  const int64_t cells = width * height;
  if (!fits(cells)) throw Error(ErrorKind::BadInput, "ENN on the GPU: rasters of 2^31 cells or more are searched on the CPU");
  const size_t patches = class_of_host.empty() ? 0 : class_of_host.size() - 1;
  std::vector<double> best2(patches, std::numeric_limits<double>::infinity());
  std::vector<uint8_t> wanted(std::max<size_t>(classes, 1), 0);
  {
    std::vector<uint64_t> patches_in_class(classes, 0);
    for (size_t pid = 1; pid <= patches; ++pid) ++patches_in_class[class_of_host[pid]];
    for (size_t k = 0; k < classes; ++k) wanted[k] = patches_in_class[k] >= 2;
  }
  if (cells == 0 || std::find(wanted.begin(), wanted.end(), 1) == wanted.end()) return best2;
  const KeyLayout layout{bits_for(height), bits_for(width)};
  if (layout.row_bits + layout.column_bits + bits_for(static_cast<int64_t>(classes) + 1) > 64)
    throw Error(ErrorKind::BadInput, "ENN on the GPU: too many classes and cells for a 64-bit site key");

  wanted_.reserve(wanted.size(), stream);
  LSM_CUDA_CHECK(cudaMemcpyAsync(wanted_.get(), wanted.data(), wanted.size(), cudaMemcpyHostToDevice, stream));
  // 1. The sites, in raster order.
  cells_.reserve(static_cast<size_t>(cells) * sizeof(uint32_t), stream);
  count_.reserve(sizeof(int64_t), stream);
  const IsSite is_site{pids, class_of, wanted_.as<uint8_t>(), width, height};
  const thrust::counting_iterator<uint32_t> all_cells(0);
  size_t temp_bytes = 0;
  LSM_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, all_cells, cells_.as<uint32_t>(), count_.as<int64_t>(),
                                       cells, is_site, stream));
  temp_.reserve(temp_bytes, stream);
  LSM_CUDA_CHECK(cub::DeviceSelect::If(temp_.get(), temp_bytes, all_cells, cells_.as<uint32_t>(), count_.as<int64_t>(),
                                       cells, is_site, stream));
  int64_t n = 0;
  LSM_CUDA_CHECK(cudaMemcpyAsync(&n, count_.get(), sizeof n, cudaMemcpyDeviceToHost, stream));
  LSM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (n == 0) return best2;

  // 2. Sorted by class, column and row.
  keys_.reserve(static_cast<size_t>(n) * sizeof(unsigned long long), stream);
  sorted_.reserve(static_cast<size_t>(n) * sizeof(unsigned long long), stream);
  k_site_keys<<<blocks_for(n), kBlock, 0, stream>>>(cells_.as<uint32_t>(), n, pids, class_of, width, layout,
                                                    keys_.as<unsigned long long>());
  LSM_CUDA_CHECK_LAUNCH();
  const int key_bits = layout.row_bits + layout.column_bits + bits_for(static_cast<int64_t>(classes));
  temp_bytes = 0;
  LSM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys_.as<unsigned long long>(),
                                                sorted_.as<unsigned long long>(), n, 0, key_bits, stream));
  temp_.reserve(temp_bytes, stream);
  LSM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_.get(), temp_bytes, keys_.as<unsigned long long>(),
                                                sorted_.as<unsigned long long>(), n, 0, key_bits, stream));
  const unsigned long long* keys = sorted_.as<unsigned long long>();

  // 3. Rows, patches, runs of one patch within a segment, and the segments.
  rows_.reserve(static_cast<size_t>(n) * sizeof(int32_t), stream);
  site_pid_.reserve(static_cast<size_t>(n) * sizeof(uint32_t), stream);
  run_.reserve(static_cast<size_t>(n) * sizeof(int32_t), stream);
  run_first_.reserve(static_cast<size_t>(n) * sizeof(int32_t), stream);
  above_.reserve(static_cast<size_t>(n) * sizeof(int32_t), stream);
  below_.reserve(static_cast<size_t>(n) * sizeof(int32_t), stream);
  int32_t* run_starts = below_.as<int32_t>();  // below_ is free until step 4
  k_decode<<<blocks_for(n), kBlock, 0, stream>>>(keys, n, pids, width, layout, rows_.as<int32_t>(),
                                                 site_pid_.as<uint32_t>(), run_starts);
  LSM_CUDA_CHECK_LAUNCH();
  temp_bytes = 0;
  LSM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, run_starts, run_.as<int32_t>(), n, stream));
  temp_.reserve(temp_bytes, stream);
  LSM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_.get(), temp_bytes, run_starts, run_.as<int32_t>(), n, stream));
  k_run_first<<<blocks_for(n), kBlock, 0, stream>>>(run_starts, run_.as<int32_t>(), n, run_first_.as<int32_t>());
  LSM_CUDA_CHECK_LAUNCH();
  const int64_t n_segments = static_cast<int64_t>(classes) * width;
  segments_.reserve(static_cast<size_t>(n_segments + 1) * sizeof(int32_t), stream);
  k_segments<<<blocks_for(n_segments + 1), kBlock, 0, stream>>>(keys, n, static_cast<int64_t>(classes), width, layout,
                                                                segments_.as<int32_t>());
  LSM_CUDA_CHECK_LAUNCH();
  // 4. The nearest site of another patch above and below each site in its column.
  k_run_neighbours<<<blocks_for(n), kBlock, 0, stream>>>(keys, run_.as<int32_t>(), run_first_.as<int32_t>(),
                                                         segments_.as<int32_t>(), n, width, layout,
                                                         above_.as<int32_t>(), below_.as<int32_t>());
  LSM_CUDA_CHECK_LAUNCH();

  // 5. The search.
  best_.reserve(patches * sizeof(unsigned long long), stream);
  k_fill<<<blocks_for(static_cast<int64_t>(patches)), kBlock, 0, stream>>>(best_.as<unsigned long long>(),
                                                                           static_cast<int64_t>(patches), kNoneBits);
  LSM_CUDA_CHECK_LAUNCH();
  const SiteArrays arrays{keys, rows_.as<int32_t>(), site_pid_.as<uint32_t>(), above_.as<int32_t>(),
                          below_.as<int32_t>(), segments_.as<int32_t>()};
  k_search<<<blocks_for(n), kBlock, 0, stream>>>(arrays, n, width, layout, cell_width, cell_height,
                                                 best_.as<unsigned long long>());
  LSM_CUDA_CHECK_LAUNCH();
  static_assert(sizeof(double) == sizeof(unsigned long long), "the bits of a double");
  LSM_CUDA_CHECK(cudaMemcpyAsync(best2.data(), best_.get(), patches * sizeof(double), cudaMemcpyDeviceToHost, stream));
  LSM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return best2;
}

void DeviceNearestPatch::release() noexcept {
  for (DeviceBuffer* b : {&wanted_, &cells_, &keys_, &sorted_, &count_, &temp_, &rows_, &site_pid_, &run_, &run_first_,
                          &above_, &below_, &segments_, &best_})
    b->release();
}

}  // namespace lsm
