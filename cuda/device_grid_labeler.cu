// Device labeling by class equality with fused per-patch accumulators.
//
// Four kernels and one scan (docs/GPU_LABELING.md has the measurements):
//  1 k_label_blocks   each 32 x 32 block of cells is labelled in shared memory
//                     (union-find after Playne & Hawick 2018, the larger root
//                     linked under the smaller with atomicMin, so a root is its
//                     component's first cell in raster order); every cell's
//                     parent becomes its block-local root, and each warp
//                     writes one word of the root bitmap (one bit per cell,
//                     row-major) with a ballot;
//  2 k_join_blocks    only the cells on block borders unite across blocks in
//                     global memory; a root that gets linked clears its bit,
//                     so the bitmap ends up marking exactly the final roots,
//                     each patch's first cell;
//    scan             an exclusive sum (CUB) of the bitmap's word popcounts:
//                     a root's label is the prefix of its word plus the roots
//                     before it in the word, i.e. its rank in raster order;
//  3 k_init_records   one thread per bitmap word writes the record of each
//                     root (class, first cell, zero counts);
//  4 k_accumulate     every cell finds its root and label, writes the label,
//                     and adds its counts: first across the warp
//                     (__match_any_sync + __reduce_*_sync), then into a
//                     per-block hash table in shared memory keyed by label,
//                     then one set of global atomics per (block, patch).
// Only integer atomics are used, so the records are exact and the same for
// any thread schedule.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "cuda_check.h"
#include "device_grid_labeler.h"
#include "raster.h"

namespace lsm {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr int kBlockW = 32;           // one warp per row of a block
constexpr int kLabelBlockH = 32;      // rows of a labeling block
constexpr int kStatsBlockH = 16;      // rows of an accumulation block
constexpr int kThreadRows = 8;        // blockDim.y of both
constexpr int kHashSlots = 512;       // >= cells of an accumulation block: never full
static_assert(kHashSlots >= kBlockW * kStatsBlockH, "a block's hash table must hold every cell's label");

// Reads class codes from a DeviceClassGrid of cell type T; outside the grid
// (and its halo, when it has one) is nodata.
template <class T>
struct GridReader {
  const T* cells;
  int64_t pitch;
  int w, h;
  bool halo;
  int nodata;

  __device__ __forceinline__ int32_t convert(T v) const;
  __device__ __forceinline__ int32_t inside(int x, int y) const { return convert(cells[y * pitch + x]); }
  __device__ __forceinline__ int32_t at(int x, int y) const {
    const int lo = halo ? -1 : 0;
    if (x < lo || y < lo || x >= w - lo || y >= h - lo) return kNoClass;
    return convert(cells[y * pitch + x]);
  }
};
template <>
__device__ __forceinline__ int32_t GridReader<uint8_t>::convert(uint8_t v) const {
  return int(v) == nodata ? kNoClass : int32_t(v);
}
template <>
__device__ __forceinline__ int32_t GridReader<int32_t>::convert(int32_t v) const {
  return v;
}

__device__ __forceinline__ uint32_t find_root(const uint32_t* parent, uint32_t x) {
  uint32_t p = parent[x];
  while (p != x) {
    x = p;
    p = parent[x];
  }
  return x;
}

// Union of the sets of a and b, linking the larger root under the smaller
// (Playne & Hawick's lock-free retry loop). Returns the root that was linked
// away, or kNone when a and b were already one set.
__device__ __forceinline__ uint32_t unite(uint32_t* parent, uint32_t a, uint32_t b) {
  while (true) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return kNone;
    if (a > b) {
      const uint32_t t = a;
      a = b;
      b = t;
    }
    const uint32_t old = atomicMin(&parent[b], a);
    if (old == b) return b;
    b = old;  // another thread linked b meanwhile: retry from its new parent
  }
}

struct BitmapShape {
  int w;
  uint32_t words_per_row;
  __device__ __forceinline__ uint32_t word_of(uint32_t cell, uint32_t* bit) const {
    const uint32_t y = cell / uint32_t(w), x = cell - y * uint32_t(w);
    *bit = x & 31u;
    return y * words_per_row + (x >> 5);
  }
};

template <class T>
__global__ void __launch_bounds__(kBlockW* kThreadRows) k_label_blocks(GridReader<T> g, bool eight, uint32_t* parent,
                                                                        uint32_t* root_bits, BitmapShape bm) {
  __shared__ int32_t cls[kLabelBlockH][kBlockW];
  __shared__ uint32_t par[kLabelBlockH * kBlockW];
  const int tx = threadIdx.x, x0 = blockIdx.x * kBlockW, y0 = blockIdx.y * kLabelBlockH, x = x0 + tx;
  for (int ly = threadIdx.y; ly < kLabelBlockH; ly += kThreadRows) {
    const int y = y0 + ly;
    const int32_t c = (x < g.w && y < g.h) ? g.inside(x, y) : kNoClass;
    cls[ly][tx] = c;
    par[ly * kBlockW + tx] = c == kNoClass ? kNone : uint32_t(ly * kBlockW + tx);
  }
  __syncthreads();
  for (int ly = threadIdx.y; ly < kLabelBlockH; ly += kThreadRows) {
    const int32_t c = cls[ly][tx];
    if (c == kNoClass) continue;
    const uint32_t i = ly * kBlockW + tx;
    if (tx > 0 && cls[ly][tx - 1] == c) unite(par, i, i - 1);
    if (ly > 0) {
      if (cls[ly - 1][tx] == c) unite(par, i, i - kBlockW);
      if (eight && tx > 0 && cls[ly - 1][tx - 1] == c) unite(par, i, i - kBlockW - 1);
      if (eight && tx + 1 < kBlockW && cls[ly - 1][tx + 1] == c) unite(par, i, i - kBlockW + 1);
    }
  }
  __syncthreads();
  for (int ly = threadIdx.y; ly < kLabelBlockH; ly += kThreadRows) {
    const int y = y0 + ly;
    const uint32_t i = ly * kBlockW + tx;
    const bool in_grid = x < g.w && y < g.h;
    bool is_root = false;
    if (in_grid) {
      uint32_t p = kNone;
      if (par[i] != kNone) {
        const uint32_t r = find_root(par, i);
        is_root = r == i;
        p = uint32_t(y0 + int(r / kBlockW)) * uint32_t(g.w) + uint32_t(x0 + int(r % kBlockW));
      }
      parent[uint32_t(y) * uint32_t(g.w) + uint32_t(x)] = p;
    }
    const uint32_t word = __ballot_sync(0xFFFFFFFFu, is_root);
    if (tx == 0 && y < g.h) root_bits[uint32_t(y) * bm.words_per_row + blockIdx.x] = word;
  }
}

// Cells on the top row and left column of each labeling block unite with
// their neighbours in the blocks above and to the left (N, NW, NE for the top
// row; W, NW, SW for the left column); that covers every pair of neighbours
// that lie in different blocks.
template <class T>
__global__ void k_join_blocks(GridReader<T> g, bool eight, uint32_t* parent, uint32_t* root_bits, BitmapShape bm) {
  const int t = threadIdx.x, x0 = blockIdx.x * kBlockW, y0 = blockIdx.y * kLabelBlockH;
  int x, y;
  if (t < kBlockW) {
    x = x0 + t;
    y = y0;
    if (y0 == 0) return;
  } else {
    x = x0;
    y = y0 + (t - kBlockW);
    if (x0 == 0) return;
  }
  if (x >= g.w || y >= g.h) return;
  const int32_t c = g.inside(x, y);
  if (c == kNoClass) return;
  const uint32_t w = uint32_t(g.w), i = uint32_t(y) * w + uint32_t(x);
  auto join = [&](int nx, int ny) {
    if (nx < 0 || ny < 0 || nx >= g.w || ny >= g.h || g.inside(nx, ny) != c) return;
    const uint32_t linked = unite(parent, i, uint32_t(ny) * w + uint32_t(nx));
    if (linked != kNone) {
      uint32_t bit;
      const uint32_t word = bm.word_of(linked, &bit);
      atomicAnd(&root_bits[word], ~(1u << bit));
    }
  };
  if (t < kBlockW) {
    join(x, y - 1);
    if (eight) {
      join(x - 1, y - 1);
      join(x + 1, y - 1);
    }
  } else {
    join(x - 1, y);
    if (eight) {
      join(x - 1, y - 1);
      join(x - 1, y + 1);
    }
  }
}

struct Popcount {
  __host__ __device__ uint32_t operator()(uint32_t v) const {
#ifdef __CUDA_ARCH__
    return __popc(v);
#else
    return static_cast<uint32_t>(__builtin_popcount(v));
#endif
  }
};

__device__ __forceinline__ uint32_t rank_of(uint32_t root, const BitmapShape& bm, const uint32_t* root_bits,
                                            const uint32_t* root_rank) {
  uint32_t bit;
  const uint32_t word = bm.word_of(root, &bit);
  return root_rank[word] + __popc(root_bits[word] & ((1u << bit) - 1u));
}

__global__ void k_count(const uint32_t* root_bits, const uint32_t* root_rank, uint32_t words, uint32_t* count) {
  *count = words ? root_rank[words - 1] + __popc(root_bits[words - 1]) : 0u;
}

template <class T>
__global__ void k_init_records(GridReader<T> g, const uint32_t* root_bits, const uint32_t* root_rank, BitmapShape bm,
                               uint32_t words, DevicePatchRecord* records) {
  const uint32_t word = blockIdx.x * blockDim.x + threadIdx.x;
  if (word >= words) return;
  uint32_t bits = root_bits[word];
  uint32_t rank = root_rank[word];
  const uint32_t y = word / bm.words_per_row, x_base = (word - y * bm.words_per_row) * 32u;
  while (bits) {
    const int b = __ffs(bits) - 1;
    bits &= bits - 1;
    const uint32_t x = x_base + uint32_t(b);
    DevicePatchRecord r{};
    r.class_code = g.inside(int(x), int(y));
    r.first = y * uint32_t(g.w) + x;
    r.col_min = r.row_min = kNone;
    records[rank++] = r;
  }
}

// Per-block sums of one patch, in shared memory.
struct BlockSums {
  uint32_t key[kHashSlots];
  uint32_t cells[kHashSlots], perim_h[kHashSlots], perim_v[kHashSlots], class_h[kHashSlots], class_v[kHashSlots];
  uint32_t sum_x[kHashSlots], sum_y[kHashSlots];  // block-local coordinates: small
  uint32_t col_min[kHashSlots], col_max[kHashSlots], row_min[kHashSlots], row_max[kHashSlots];
};

__device__ __forceinline__ int slot_of(BlockSums& s, uint32_t label) {
  uint32_t h = (label * 2654435761u) >> (32 - 9);  // 9 bits: kHashSlots
  for (int probe = 0; probe < kHashSlots; ++probe) {
    const uint32_t old = atomicCAS(&s.key[h], kNone, label);
    if (old == kNone || old == label) return int(h);
    h = (h + 1) & (kHashSlots - 1);
  }
  return -1;  // cannot happen while kHashSlots >= cells per block
}

template <class T>
__global__ void __launch_bounds__(kBlockW* kThreadRows)
    k_accumulate(GridReader<T> g, const uint32_t* parent, const uint32_t* root_bits, const uint32_t* root_rank,
                 BitmapShape bm, DevicePatchRecord* records, uint32_t* labels, uint32_t* border) {
  __shared__ BlockSums s;
  const int tid = threadIdx.y * kBlockW + threadIdx.x;
  for (int k = tid; k < kHashSlots; k += kBlockW * kThreadRows) {
    s.key[k] = kNone;
    s.cells[k] = s.perim_h[k] = s.perim_v[k] = s.class_h[k] = s.class_v[k] = s.sum_x[k] = s.sum_y[k] = 0;
    s.col_min[k] = s.row_min[k] = kNone;
    s.col_max[k] = s.row_max[k] = 0;
  }
  __syncthreads();
  const int tx = threadIdx.x, x0 = blockIdx.x * kBlockW, y0 = blockIdx.y * kStatsBlockH, x = x0 + tx;
  const uint32_t w = uint32_t(g.w);
  for (int ly = threadIdx.y; ly < kStatsBlockH; ly += kThreadRows) {
    const int y = y0 + ly;
    const bool in_grid = x < g.w && y < g.h;
    const uint32_t i = uint32_t(y) * w + uint32_t(x);
    const uint32_t p = in_grid ? parent[i] : kNone;
    uint32_t label = kNone, packed = 0;
    if (p != kNone) {
      label = rank_of(find_root(parent, p), bm, root_bits, root_rank);
      const int32_t c = g.inside(x, y);
      const int32_t up = g.at(x, y - 1), down = g.at(x, y + 1), west = g.at(x - 1, y), east = g.at(x + 1, y);
      const uint32_t ph = (up != c) + (down != c), pv = (west != c) + (east != c);
      const uint32_t ch = (up != c && up != kNoClass) + (down != c && down != kNoClass);
      const uint32_t cv = (west != c && west != kNoClass) + (east != c && east != kNoClass);
      packed = ph | (pv << 8) | (ch << 16) | (cv << 24);  // each field sums to <= 64 over a warp
    }
    if (in_grid) {
      const uint32_t out = p == kNone ? 0u : label + 1u;
      if (labels) labels[i] = out;
      if (border) {
        if (y == 0) border[x] = out;
        if (y == g.h - 1) border[w + x] = out;
        if (x == 0) border[2 * w + y] = out;
        if (x == g.w - 1) border[2 * w + g.h + y] = out;
      }
    }
    // Warp first: lanes of one row holding the same label add their counts.
    const uint32_t peers = __match_any_sync(0xFFFFFFFFu, label);
    const uint32_t sum = __reduce_add_sync(peers, packed);
    const uint32_t sx = __reduce_add_sync(peers, uint32_t(tx));
    const uint32_t xmin = __reduce_min_sync(peers, uint32_t(x)), xmax = __reduce_max_sync(peers, uint32_t(x));
    if (label != kNone && tx == __ffs(peers) - 1) {
      const uint32_t n = __popc(peers);
      const int k = slot_of(s, label);
      atomicAdd(&s.cells[k], n);
      atomicAdd(&s.perim_h[k], sum & 0xFFu);
      atomicAdd(&s.perim_v[k], (sum >> 8) & 0xFFu);
      atomicAdd(&s.class_h[k], (sum >> 16) & 0xFFu);
      atomicAdd(&s.class_v[k], sum >> 24);
      atomicAdd(&s.sum_x[k], sx);
      atomicAdd(&s.sum_y[k], n * uint32_t(ly));
      atomicMin(&s.col_min[k], xmin);
      atomicMax(&s.col_max[k], xmax);
      atomicMin(&s.row_min[k], uint32_t(y));
      atomicMax(&s.row_max[k], uint32_t(y));
    }
  }
  __syncthreads();
  // Then one set of global atomics per patch present in the block.
  for (int k = tid; k < kHashSlots; k += kBlockW * kThreadRows) {
    const uint32_t label = s.key[k];
    if (label == kNone) continue;
    DevicePatchRecord& r = records[label];
    const uint32_t n = s.cells[k];
    atomicAdd(&r.cells, n);
    if (s.perim_h[k]) atomicAdd(&r.perim_h, s.perim_h[k]);
    if (s.perim_v[k]) atomicAdd(&r.perim_v, s.perim_v[k]);
    if (s.class_h[k]) atomicAdd(&r.class_h, s.class_h[k]);
    if (s.class_v[k]) atomicAdd(&r.class_v, s.class_v[k]);
    atomicAdd(&r.sum_col, static_cast<unsigned long long>(s.sum_x[k]) + static_cast<unsigned long long>(n) * x0);
    atomicAdd(&r.sum_row, static_cast<unsigned long long>(s.sum_y[k]) + static_cast<unsigned long long>(n) * y0);
    atomicMin(&r.col_min, s.col_min[k]);
    atomicMax(&r.col_max, s.col_max[k]);
    atomicMin(&r.row_min, s.row_min[k]);
    atomicMax(&r.row_max, s.row_max[k]);
  }
}

unsigned ceil_div(int64_t a, int64_t b) { return static_cast<unsigned>((a + b - 1) / b); }

template <class T>
GridReader<T> reader_of(const DeviceClassGrid& grid) {
  return GridReader<T>{static_cast<const T*>(grid.cells), grid.pitch, grid.width, grid.height, grid.halo,
                       grid.nodata};
}

}  // namespace

DeviceGridLabeler::DeviceGridLabeler(cudaStream_t stream) : stream_(stream) { host_count_.reserve(sizeof(uint32_t)); }

template <class T>
static void enqueue_labeling(const GridReader<T>& g, bool eight, uint32_t* parent, uint32_t* bits, BitmapShape bm,
                             cudaStream_t st) {
  const dim3 threads(kBlockW, kThreadRows);
  const dim3 label_blocks(ceil_div(g.w, kBlockW), ceil_div(g.h, kLabelBlockH));
  k_label_blocks<T><<<label_blocks, threads, 0, st>>>(g, eight, parent, bits, bm);
  LSM_CUDA_CHECK_LAUNCH();
  k_join_blocks<T><<<label_blocks, kBlockW + kLabelBlockH, 0, st>>>(g, eight, parent, bits, bm);
  LSM_CUDA_CHECK_LAUNCH();
}

template <class T>
static void enqueue_records(const GridReader<T>& g, const uint32_t* parent, const uint32_t* bits, const uint32_t* rank,
                            BitmapShape bm, uint32_t words, DevicePatchRecord* records, uint32_t* labels,
                            uint32_t* border, cudaStream_t st) {
  k_init_records<T><<<ceil_div(words, 256), 256, 0, st>>>(g, bits, rank, bm, words, records);
  LSM_CUDA_CHECK_LAUNCH();
  const dim3 threads(kBlockW, kThreadRows);
  const dim3 blocks(ceil_div(g.w, kBlockW), ceil_div(g.h, kStatsBlockH));
  k_accumulate<T><<<blocks, threads, 0, st>>>(g, parent, bits, rank, bm, records, labels, border);
  LSM_CUDA_CHECK_LAUNCH();
}

uint32_t DeviceGridLabeler::label(const DeviceClassGrid& grid, NeighbourRule rule, uint32_t* labels,
                                  uint32_t* border) {
  const uint64_t n = static_cast<uint64_t>(grid.width) * static_cast<uint64_t>(grid.height);
  if (grid.width <= 0 || grid.height <= 0) throw Error(ErrorKind::BadInput, "empty grid");
  if (n >= kNone) throw Error(ErrorKind::BadInput, "grid too large: at most 2^32-2 cells per labeling");
  const BitmapShape bm{grid.width, ceil_div(grid.width, 32)};
  const uint32_t words = bm.words_per_row * static_cast<uint32_t>(grid.height);
  const bool eight = rule == NeighbourRule::Eight;
  cudaStream_t st = stream_;
  parents_.reserve(n * sizeof(uint32_t), st);
  root_bits_.reserve(words * sizeof(uint32_t), st);
  root_rank_.reserve(words * sizeof(uint32_t), st);
  count_.reserve(sizeof(uint32_t), st);
  uint32_t* parent = parents_.as<uint32_t>();
  uint32_t* bits = root_bits_.as<uint32_t>();
  uint32_t* rank = root_rank_.as<uint32_t>();

  if (grid.type == DeviceCellType::UInt8) enqueue_labeling(reader_of<uint8_t>(grid), eight, parent, bits, bm, st);
  else enqueue_labeling(reader_of<int32_t>(grid), eight, parent, bits, bm, st);

  thrust::transform_iterator<Popcount, const uint32_t*> popcounts(bits, Popcount{});
  size_t temp_bytes = 0;
  LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, popcounts, rank, words, st));
  scan_temp_.reserve(temp_bytes, st);
  LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp_.get(), temp_bytes, popcounts, rank, words, st));
  k_count<<<1, 1, 0, st>>>(bits, rank, words, count_.as<uint32_t>());
  LSM_CUDA_CHECK_LAUNCH();
  LSM_CUDA_CHECK(cudaMemcpyAsync(host_count_.as<uint32_t>(), count_.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  // The only wait: the record array is sized by the patch count.
  LSM_CUDA_CHECK(cudaStreamSynchronize(st));
  const uint32_t count = *host_count_.as<uint32_t>();
  records_.reserve(std::max<size_t>(1, count) * sizeof(DevicePatchRecord), st);
  DevicePatchRecord* records = records_.as<DevicePatchRecord>();
  if (grid.type == DeviceCellType::UInt8)
    enqueue_records(reader_of<uint8_t>(grid), parent, bits, rank, bm, words, records, labels, border, st);
  else
    enqueue_records(reader_of<int32_t>(grid), parent, bits, rank, bm, words, records, labels, border, st);
  return count;
}

PatchStats to_patch_stats(const DevicePatchRecord& r, int64_t grid_width, int64_t x0, int64_t y0,
                          int64_t raster_width) {
  PatchStats p;
  p.class_code = r.class_code;
  const uint64_t fx = r.first % static_cast<uint64_t>(grid_width), fy = r.first / static_cast<uint64_t>(grid_width);
  p.first_cell = (static_cast<uint64_t>(y0) + fy) * static_cast<uint64_t>(raster_width) + static_cast<uint64_t>(x0) + fx;
  p.cells = r.cells;
  p.perim_edges_h = r.perim_h;
  p.perim_edges_v = r.perim_v;
  p.class_edges_h = r.class_h;
  p.class_edges_v = r.class_v;
  p.sum_col = r.sum_col + p.cells * static_cast<uint64_t>(x0);
  p.sum_row = r.sum_row + p.cells * static_cast<uint64_t>(y0);
  p.col_min = r.col_min + static_cast<uint64_t>(x0);
  p.col_max = r.col_max + static_cast<uint64_t>(x0);
  p.row_min = r.row_min + static_cast<uint64_t>(y0);
  p.row_max = r.row_max + static_cast<uint64_t>(y0);
  return p;
}

}  // namespace lsm
