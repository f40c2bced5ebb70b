// HOG on the GPU.
// skimage variant:
//   * cell histograms: a thread block takes up to 32 cells; each thread
//     finds the bin and magnitude of pixels into shared memory, then one
//     thread per cell adds them to its bins' running totals in row-major
//     pixel order (the CPU's order, so the single-precision totals agree);
//   * blocks: a warp takes four block positions, gathers their cells and
//     normalises them (norms in hog_math's pairwise order);
//   * the levels of a resident pyramid go in one launch per step.
// Dalal-Triggs: one thread per pixel makes its vote, one thread per (block,
// cell of the block) sums the votes weighing into that cell in the CPU's
// order (hog_dalal_triggs_math.h), one thread per block normalises.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "fast_divmod.h"
#include "hog_dalal_triggs.h"
#include "hog_math.h"
#include "hog_pass_cuda.h"

namespace lsm {

namespace {

constexpr int kThreads = 256;
constexpr signed char kAllBins = -2;  // nodata: the vote goes to every bin

// A strip's or level's sizes, in registers. Every size is below 2^31
// (cell_params checks), so the per-pixel index arithmetic runs in 32 bits.
struct CellSizes {
  uint32_t width, height, cells_x, cells;
  FastDivmod by_cells_x;
};

struct CellParams {
  CellSizes size;  // the strip's; a level table gives each level its own
  uint32_t y0;     // the strip's first row in the image
  int cell, bins, cells_per_block;
  double period;
  float period_f, bin_width, inv_bin_width;
  FastDivmod by_cell, by_pixels_per_cell;
};

// The bin of a pixel's gradient, equal to hog_math's exact one. Most pixels
// take hog_math::approximate_degrees: its error is below 1e-4 degrees with
// the rounding of the gradient to float, so a pixel further than
// kEdgeMargin from both edges of its bin has the exact path's bin, and the
// double-precision atan2 (most of this kernel's FP64 work) is spent only on
// pixels near an edge and on nodata. A zero gradient takes bin 0 at once:
// the exact path's bin, and its magnitude 0 changes no total anyway.
constexpr float kEdgeMargin = 1e-3f;  // degrees

__device__ signed char pixel_bin(double g_row, double g_col, const CellParams& p) {
  if (g_row == 0 && g_col == 0) return 0;
  float o = hog_math::approximate_degrees(static_cast<float>(g_row), static_cast<float>(g_col));
  if (o < 0) o += p.period_f;
  if (o == o) {
    const int guess = static_cast<int>(o * p.inv_bin_width);
    if (guess >= 0 && guess < p.bins) {
      const float end = p.bin_width * static_cast<float>(guess), start = p.bin_width * static_cast<float>(guess + 1);
      if (o - end > kEdgeMargin && start - o > kEdgeMargin) return static_cast<signed char>(guess);
    }
  }
  const double orientation = hog_math::orientation_degrees(g_row, g_col, p.period);
  return isnan(orientation) ? kAllBins
                            : static_cast<signed char>(hog_math::orientation_bin(orientation, p.bin_width, p.bins));
}

// The shared-memory layout of a thread block's cells: magnitudes and bins
// pixel-major ([pixel of the cell][cell]) so that the per-cell sums read
// consecutive cells side by side, each row padded so that the writes of
// consecutive pixels fall in different banks; then each cell's running totals.
struct CellLayout {
  int magnitude_stride, bin_stride;  // doubles and bytes per pixel row
  size_t bin_offset, totals_offset, bytes;
};

LSM_HOST_DEVICE inline CellLayout cell_layout(int cells_per_block, int pixels_per_cell, int bins) {
  CellLayout l;
  l.magnitude_stride = cells_per_block > 1 ? cells_per_block + 1 : 1;
  l.bin_stride = cells_per_block > 1 ? (cells_per_block + 3) / 4 * 4 + 4 : 1;
  l.bin_offset = sizeof(double) * l.magnitude_stride * pixels_per_cell;
  l.totals_offset = (l.bin_offset + static_cast<size_t>(l.bin_stride) * pixels_per_cell + 3) / 4 * 4;
  l.bytes = l.totals_offset + sizeof(float) * cells_per_block * bins;
  return l;
}

// The histograms of cells first_cell .. first_cell + cells_per_block - 1 by
// one thread block: each thread finds the bin and magnitude of pixels into
// shared memory, then one thread per cell adds each pixel's magnitude to its
// bin's total, pixels in row-major order (the CPU's order: the same float
// totals). Grey levels as double (the host's skimage-exact grey), or as
// float (pyramid levels on the device), widened exactly before any arithmetic.
// `size` comes by value so that the sizes live in registers.
template <class Grey>
__device__ void cell_histograms(const Grey* __restrict__ grey, const CellParams& p, const CellSizes size,
                                uint32_t first_cell, float* __restrict__ histograms, unsigned char* shared) {
  const uint32_t cell = p.cell, pixels_per_cell = cell * cell, pixels = p.cells_per_block * pixels_per_cell;
  const CellLayout layout = cell_layout(p.cells_per_block, pixels_per_cell, p.bins);
  double* magnitude = reinterpret_cast<double*>(shared);
  signed char* bin = reinterpret_cast<signed char*>(shared + layout.bin_offset);
  float* totals = reinterpret_cast<float*>(shared + layout.totals_offset);
  for (uint32_t i = threadIdx.x; i < pixels; i += blockDim.x) {
    const uint32_t local = p.by_pixels_per_cell.div(i), c = first_cell + local;
    if (c >= size.cells) break;
    const uint32_t within = i - local * pixels_per_cell, r = p.by_cell.div(within);
    const uint32_t cy = size.by_cells_x.div(c), cx = c - cy * size.cells_x;
    const uint32_t row = cy * cell + r, x = cx * cell + (within - r * cell), y = p.y0 + row;
    const Grey* here = grey + static_cast<size_t>(row + 1) * size.width + x;
    const bool row_edge = y == 0 || y == size.height - 1, col_edge = x == 0 || x == size.width - 1;
    const double g_row = row_edge ? 0.0 : double(here[size.width]) - double(*(here - size.width));
    const double g_col = col_edge ? 0.0 : double(here[1]) - double(here[-1]);
    magnitude[within * layout.magnitude_stride + local] = hypot(g_col, g_row);
    bin[within * layout.bin_stride + local] = pixel_bin(g_row, g_col, p);
  }
  __syncthreads();
  for (uint32_t local = threadIdx.x; local < static_cast<uint32_t>(p.cells_per_block); local += blockDim.x) {
    const uint32_t c = first_cell + local;
    if (c >= size.cells) break;
    float* total = totals + local * p.bins;
    for (int b = 0; b < p.bins; ++b) total[b] = 0;
    for (uint32_t i = 0; i < pixels_per_cell; ++i) {
      const int b = bin[i * layout.bin_stride + local];
      const double m = magnitude[i * layout.magnitude_stride + local];
      if (b >= 0) {
        total[b] = hog_math::accumulate(total[b], m);
      } else if (b == kAllBins) {
        for (int q = 0; q < p.bins; ++q) total[q] = hog_math::accumulate(total[q], m);
      }
    }
    // A zero total skips the division: 0 / n is 0, and the IEEE division
    // takes its slow path on a zero dividend.
    for (int b = 0; b < p.bins; ++b)
      histograms[static_cast<size_t>(c) * p.bins + b] =
          total[b] == 0 ? 0.0f : __fdiv_rn(total[b], static_cast<float>(pixels_per_cell));
  }
}

// Six thread blocks of 256 per SM (at most 40 registers): the kernel is
// issue-bound, and 50 % occupancy left too few warps to fill the issue slots.
constexpr int kCellBlocksPerSm = 6;

template <class Grey>
__global__ void __launch_bounds__(kThreads, kCellBlocksPerSm) k_cell_histograms(const Grey* __restrict__ grey, CellParams p, float* __restrict__ histograms) {
  extern __shared__ unsigned char shared[];
  cell_histograms(grey, p, p.size, blockIdx.x * p.cells_per_block, histograms, shared);
}

// Block normalisation: each warp takes kBlocksPerWarp consecutive block
// positions. Its lanes gather their cells into shared memory; the eight
// lanes of group q form the eight partial sums of block q's norm, and each
// of them combines them (hog_math's order: the CPU's bits); then the lanes
// divide and store side by side (coalesced: the blocks are consecutive in
// the output). Four blocks per warp keep all lanes busy in the sums.
constexpr int kWarpsPerBlock = kThreads / 32;  // at most; fewer where a block has many values
constexpr int kBlocksPerWarp = 4;

struct BlockParams {
  long long blocks, blocks_x, row_values;  // blocks < 2^31 (block_params checks)
  int block, bins, norm;
  FastDivmod by_blocks_x, by_run, by_length;  // run = block * bins, length = block * run
};

// Every lane's group's norm of its block `v` (n values); all lanes call it.
__device__ double group_block_norm(const double* v, int n, bool squared) {
  const int lane = threadIdx.x % 32, group = lane & ~7;
  const double r = n >= 8 ? hog_math::partial_norm(v, n, squared, lane & 7) : 0.0;
  double partial[8];
  for (int j = 0; j < 8; ++j) partial[j] = __shfl_sync(0xffffffffu, r, group + j);
  return hog_math::combine_norm(partial, v, n, squared);
}

// Normalises blocks k0 .. k0 + kBlocksPerWarp - 1 (those below p.blocks).
// `values`: the warp's kBlocksPerWarp x length doubles; `divisor`: its kBlocksPerWarp doubles.
__device__ void normalize_warp_blocks(const float* __restrict__ histograms, const BlockParams& p, long long k0,
                                      double* values, double* divisor, double* __restrict__ out) {
  const int lane = threadIdx.x % 32, q = lane / 8;
  const int run = p.block * p.bins, length = p.block * run, norm = p.norm;
  const long long left = p.blocks - k0;
  const int count = left < kBlocksPerWarp ? static_cast<int>(left) : kBlocksPerWarp, n = count * length;
  for (int e = lane; e < n; e += 32) {
    const uint32_t b = p.by_length.div(e), i = e - b * length;
    const uint32_t k = static_cast<uint32_t>(k0) + b;
    const uint32_t by = p.by_blocks_x.div(k), bx = k - by * static_cast<uint32_t>(p.blocks_x);
    const uint32_t r = p.by_run.div(i);
    values[e] = histograms[(by + r) * p.row_values + static_cast<long long>(bx) * p.bins + (i - r * run)];
  }
  __syncwarp();
  // Groups past `count` sum a neighbour's values (kept in bounds) and are not used.
  double* mine = values + (q < count ? q : 0) * length;
  constexpr double eps = 1e-5;
  const double sum = group_block_norm(mine, length, norm > 1);
  if ((lane & 7) == 0) divisor[q] = norm <= 1 ? kmeans_math::add(sum, eps) : sqrt(kmeans_math::add(sum, eps * eps));
  __syncwarp();
  for (int e = lane; e < n; e += 32) {
    const double x = hog_math::divide_by_norm(values[e], divisor[p.by_length.div(e)]);
    values[e] = norm == 1 ? sqrt(x) : norm == 3 ? (x > 0.2 ? 0.2 : x) : x;
  }
  __syncwarp();
  if (norm == 3) {  // L2-Hys: clipped, then normalised again
    const double sum2 = group_block_norm(mine, length, true);
    __syncwarp();
    if ((lane & 7) == 0) divisor[q] = sqrt(kmeans_math::add(sum2, eps * eps));
    __syncwarp();
    for (int e = lane; e < n; e += 32) values[e] = hog_math::divide_by_norm(values[e], divisor[p.by_length.div(e)]);
    __syncwarp();
  }
  for (int e = lane; e < n; e += 32) out[k0 * length + e] = values[e];
}

__global__ void __launch_bounds__(kThreads, 6) k_normalize_blocks(const float* __restrict__ histograms, BlockParams p,
                                                               double* __restrict__ out) {
  extern __shared__ double values[];  // warps x kBlocksPerWarp x length
  __shared__ double divisor[kWarpsPerBlock][kBlocksPerWarp];
  const int warp = threadIdx.x / 32;
  const long long k0 = (static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + warp) * kBlocksPerWarp;
  if (k0 >= p.blocks) return;  // whole warps leave together: no __syncthreads below
  normalize_warp_blocks(histograms, p, k0, values + warp * kBlocksPerWarp * (p.block * p.block * p.bins),
                        divisor[warp], out);
}

// All levels of a pyramid in one launch per step: thread block b works for
// the level whose range of thread blocks holds b (a binary search: the last
// level whose first block is at most b).
__device__ int level_of(const long long* first, int count) {
  const long long b = blockIdx.x;
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (first[mid] <= b) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Each step's table apart, and the cells' parameters common to all levels
// once, so that a kernel's parameters stay under 4 KB.
struct LevelCells {
  const float* grey;
  float* histograms;
  CellSizes size;
  long long first;  // the level's first thread block
};

struct CellLevels {
  int count;
  CellParams common;  // the options' fields; the sizes come from the level
  LevelCells level[HogLevelTable::kMaxLevels];
};

struct BlockLevels {
  int count;
  const float* histograms[HogLevelTable::kMaxLevels];
  double* descriptors[HogLevelTable::kMaxLevels];
  BlockParams blocks[HogLevelTable::kMaxLevels];
  long long first[HogLevelTable::kMaxLevels];
};

__device__ int level_of(const CellLevels& t) {
  const long long b = blockIdx.x;
  int lo = 0, hi = t.count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (t.level[mid].first <= b) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

__global__ void __launch_bounds__(kThreads, kCellBlocksPerSm) k_level_cell_histograms(CellLevels t) {
  extern __shared__ unsigned char shared[];
  const LevelCells& level = t.level[level_of(t)];
  cell_histograms(level.grey, t.common, level.size,
                  static_cast<uint32_t>(blockIdx.x - level.first) * t.common.cells_per_block, level.histograms, shared);
}

__global__ void __launch_bounds__(kThreads, 6) k_level_normalize_blocks(BlockLevels t) {
  extern __shared__ double values[];
  __shared__ double divisor[kWarpsPerBlock][kBlocksPerWarp];
  const int l = level_of(t.first, t.count), warp = threadIdx.x / 32;
  const BlockParams& p = t.blocks[l];
  const long long k0 =
      ((static_cast<long long>(blockIdx.x) - t.first[l]) * (blockDim.x / 32) + warp) * kBlocksPerWarp;
  if (k0 >= p.blocks) return;
  normalize_warp_blocks(t.histograms[l], p, k0, values + warp * kBlocksPerWarp * (p.block * p.block * p.bins),
                        divisor[warp], t.descriptors[l]);
}

struct DalalTriggsParams {
  long long width, height, y0, pixels, plane;  // plane: (rows + 2) * width values
  int bands, bins, cell, block, side;
  double angle_scale;
};

__global__ void k_dalal_triggs_votes(const double* __restrict__ planes, DalalTriggsParams p, int* __restrict__ bin,
                                     double* __restrict__ lower, double* __restrict__ upper) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.pixels) return;
  const long long y = p.y0 + i / p.width, x = i % p.width;
  const double* band_planes[3] = {planes + p.width, planes + p.plane + p.width, planes + 2 * p.plane + p.width};
  const bool row_edge = y == 0 || y == p.height - 1, col_edge = x == 0 || x == p.width - 1;
  const dalal_triggs::Vote v = dalal_triggs::pixel_vote(band_planes, p.bands, i, row_edge ? 0 : p.width,
                                                        col_edge ? 0 : 1, p.bins, p.angle_scale);
  bin[i] = v.bin;
  lower[i] = v.lower;
  upper[i] = v.upper;
}

__global__ void k_dalal_triggs_cells(dalal_triggs::WindowView window, DalalTriggsParams p, long long blocks,
                                     long long blocks_x, const int* __restrict__ bin, const double* __restrict__ lower,
                                     const double* __restrict__ upper, double* __restrict__ out) {
  const int cells = p.block * p.block;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= blocks * cells) return;
  const long long k = t / cells, by = k / blocks_x, bx = k % blocks_x;
  const int c = static_cast<int>(t % cells);
  dalal_triggs::block_cell(window, p.side, p.cell, bin, lower, upper, p.width, by * p.cell, bx * p.cell, c / p.block,
                           c % p.block, p.bins, out + k * cells * p.bins + c * p.bins);
}

__global__ void k_dalal_triggs_normalize(long long blocks, int length, int norm, double* __restrict__ out) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < blocks) dalal_triggs::normalize_block(out + k * length, length, norm);
}

unsigned grid_of(long long threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

// Up to 32 cells per thread block (the per-cell sums: one warp), with about
// eight pixels per thread.
int cells_per_thread_block(int cell) { return std::max(1, std::min(32, 8 * kThreads / (cell * cell))); }

CellParams cell_params(const HogOptions& o, const HogGeometry& g, int64_t y0, int64_t cell_rows) {
  constexpr int64_t limit = int64_t(1) << 31;
  const int64_t cells = cell_rows * g.cells_x;
  if (g.width >= limit || g.height >= limit || cells >= limit)
    throw Error(ErrorKind::BadInput,
                "the CUDA HOG pass takes images below 2^31 pixels a side and fewer than 2^31 cells per strip");
  CellParams p{};
  p.size = CellSizes{static_cast<uint32_t>(g.width), static_cast<uint32_t>(g.height), static_cast<uint32_t>(g.cells_x),
                     static_cast<uint32_t>(cells), FastDivmod(static_cast<uint32_t>(g.cells_x))};
  p.y0 = static_cast<uint32_t>(y0);
  p.cell = o.cell;
  p.bins = o.bins;
  p.cells_per_block = cells_per_thread_block(o.cell);
  p.period = o.signed_orientation ? 360.0 : 180.0;
  p.period_f = static_cast<float>(p.period);
  p.bin_width = static_cast<float>(p.period / o.bins);
  p.inv_bin_width = 1.0f / p.bin_width;  // only for a first guess: the edges are checked
  p.by_cell = FastDivmod(o.cell);
  p.by_pixels_per_cell = FastDivmod(o.cell * o.cell);
  return p;
}

size_t cell_shared_bytes(const HogOptions& o) {
  const size_t bytes = cell_layout(cells_per_thread_block(o.cell), o.cell * o.cell, o.bins).bytes;
  if (bytes > 48 * 1024) throw Error(ErrorKind::BadInput, "the CUDA HOG pass takes cells of at most 64 x 64 pixels");
  return bytes;
}

BlockParams block_params(const HogOptions& o, const HogGeometry& g, int64_t cell_rows) {
  BlockParams p{(cell_rows - o.block + 1) * g.blocks_x, g.blocks_x, g.cells_x * o.bins, o.block, o.bins,
                static_cast<int>(o.norm), FastDivmod(), FastDivmod(), FastDivmod()};
  if (p.blocks >= (int64_t(1) << 31))
    throw Error(ErrorKind::BadInput, "the CUDA HOG pass takes fewer than 2^31 blocks per strip");
  p.by_blocks_x = FastDivmod(static_cast<uint32_t>(g.blocks_x));
  p.by_run = FastDivmod(o.block * o.bins);
  p.by_length = FastDivmod(g.descriptor_length);
  return p;
}

// Warps per thread block of the normalisation: 8, or fewer so that their
// blocks' values fit in 48 KB of shared memory.
int normalize_warps(const HogGeometry& g) {
  const size_t per_warp = sizeof(double) * kBlocksPerWarp * g.descriptor_length;
  const int warps = static_cast<int>(std::min<size_t>(kWarpsPerBlock, 48 * 1024 / per_warp));
  if (warps < 1)
    throw Error(ErrorKind::BadInput, "the CUDA HOG pass takes blocks of at most 1536 values (block x block x bins)");
  return warps;
}

template <class Grey>
void launch_cells(const HogOptions& o, const HogGeometry& g, const Grey* grey, int64_t y0, int64_t cell_rows,
                  float* histograms, cudaStream_t stream) {
  const CellParams p = cell_params(o, g, y0, cell_rows);
  if (p.size.cells == 0) return;
  const long long blocks = (p.size.cells + p.cells_per_block - 1) / p.cells_per_block;
  k_cell_histograms<<<static_cast<unsigned>(blocks), kThreads, cell_shared_bytes(o), stream>>>(grey, p, histograms);
  LSM_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_hog_cell_histograms(const HogOptions& o, const HogGeometry& g, const double* grey, int64_t y0,
                                int64_t cell_rows, float* histograms, cudaStream_t stream) {
  launch_cells(o, g, grey, y0, cell_rows, histograms, stream);
}

void launch_hog_cell_histograms(const HogOptions& o, const HogGeometry& g, const float* grey, int64_t y0,
                                int64_t cell_rows, float* histograms, cudaStream_t stream) {
  launch_cells(o, g, grey, y0, cell_rows, histograms, stream);
}

void launch_hog_normalize_blocks(const HogOptions& o, const HogGeometry& g, const float* histograms, int64_t cell_rows,
                                 double* descriptors, cudaStream_t stream) {
  const BlockParams p = block_params(o, g, cell_rows);
  if (p.blocks <= 0) return;
  const int warps = normalize_warps(g), per_thread_block = warps * kBlocksPerWarp;
  k_normalize_blocks<<<static_cast<unsigned>((p.blocks + per_thread_block - 1) / per_thread_block), 32 * warps,
                       sizeof(double) * per_thread_block * g.descriptor_length, stream>>>(histograms, p, descriptors);
  LSM_CUDA_CHECK_LAUNCH();
}

void launch_hog_levels(const HogOptions& o, const HogLevelTable& table, cudaStream_t stream) {
  if (table.count < 1 || table.count > HogLevelTable::kMaxLevels)
    throw Error(ErrorKind::BadInput, "a HOG level table holds 1 to 32 levels");
  if (o.variant != HogVariant::Skimage)
    throw Error(ErrorKind::BadInput, "the resident HOG levels are computed in the skimage variant only");
  const int warps = normalize_warps(table.levels[0]), per_thread_block = warps * kBlocksPerWarp;
  CellLevels cells{};
  BlockLevels blocks{};
  static_assert(sizeof(CellLevels) <= 4096 && sizeof(BlockLevels) <= 4096, "kernel parameters over 4 KB");
  cells.count = blocks.count = table.count;
  long long cell_blocks = 0, block_blocks = 0;
  for (int l = 0; l < table.count; ++l) {
    const HogGeometry& g = table.levels[l];
    const CellParams p = cell_params(o, g, 0, g.cells_y);
    if (l == 0) cells.common = p;
    cells.level[l] = LevelCells{table.grey[l], table.histograms[l], p.size, cell_blocks};
    blocks.histograms[l] = table.histograms[l];
    blocks.descriptors[l] = table.descriptors[l];
    blocks.blocks[l] = block_params(o, g, g.cells_y);
    blocks.first[l] = block_blocks;
    cell_blocks += (p.size.cells + p.cells_per_block - 1) / p.cells_per_block;
    block_blocks += (blocks.blocks[l].blocks + per_thread_block - 1) / per_thread_block;
  }
  k_level_cell_histograms<<<static_cast<unsigned>(cell_blocks), kThreads, cell_shared_bytes(o), stream>>>(cells);
  LSM_CUDA_CHECK_LAUNCH();
  k_level_normalize_blocks<<<static_cast<unsigned>(block_blocks), 32 * warps,
                             sizeof(double) * per_thread_block * table.levels[0].descriptor_length, stream>>>(blocks);
  LSM_CUDA_CHECK_LAUNCH();
}

namespace {

class CudaHogPass final : public HogPass {
 public:
  explicit CudaHogPass(int device) : stream_(device) {}

  void cell_histograms(const HogOptions& o, const HogGeometry& g, const double* grey, int64_t y0, int64_t cell_rows,
                       float* histograms) override {
    stream_.activate();
    const size_t grey_bytes = sizeof(double) * (cell_rows * o.cell + 2) * g.width;
    const size_t hist_bytes = sizeof(float) * cell_rows * g.cells_x * o.bins;
    grey_.reserve(grey_bytes, stream_);
    histograms_.reserve(hist_bytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(grey_.get(), grey, grey_bytes, cudaMemcpyHostToDevice, stream_));
    launch_hog_cell_histograms(o, g, grey_.as<double>(), y0, cell_rows, histograms_.as<float>(), stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(histograms, histograms_.get(), hist_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void normalize_blocks(const HogOptions& o, const HogGeometry& g, const float* histograms, int64_t cell_rows,
                        double* descriptors) override {
    stream_.activate();
    const size_t hist_bytes = sizeof(float) * cell_rows * g.cells_x * o.bins;
    const size_t out_bytes = sizeof(double) * (cell_rows - o.block + 1) * g.blocks_x * g.descriptor_length;
    histograms_.reserve(hist_bytes, stream_);
    descriptors_.reserve(out_bytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(histograms_.get(), histograms, hist_bytes, cudaMemcpyHostToDevice, stream_));
    launch_hog_normalize_blocks(o, g, histograms_.as<float>(), cell_rows, descriptors_.as<double>(), stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(descriptors, descriptors_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void dalal_triggs_blocks(const HogOptions& o, const HogGeometry& g, const double* planes, int bands,
                           int64_t first_block_row, int64_t block_rows, double* descriptors) override {
    stream_.activate();
    const DalalTriggsWindow window = dalal_triggs_window(o);
    const int64_t rows = (block_rows + o.block - 1) * o.cell;
    DalalTriggsParams p{g.width, g.height, first_block_row * o.cell, rows * g.width, (rows + 2) * g.width,
                        bands, o.bins, o.cell, o.block, window.side, dalal_triggs_angle_scale(o)};
    const long long blocks = block_rows * g.blocks_x;
    const size_t plane_bytes = sizeof(double) * p.plane * bands, side = window.side;
    const size_t out_bytes = sizeof(double) * blocks * g.descriptor_length;
    grey_.reserve(plane_bytes, stream_);
    votes_.reserve((2 * sizeof(double) + sizeof(int)) * p.pixels, stream_);
    window_.reserve((2 * sizeof(double) + sizeof(int)) * side, stream_);
    descriptors_.reserve(out_bytes, stream_);
    double* lower = votes_.as<double>();
    double* upper = lower + p.pixels;
    int* bin = reinterpret_cast<int*>(upper + p.pixels);
    double* weights = window_.as<double>();
    int* first_cell = reinterpret_cast<int*>(weights + 2 * side);
    LSM_CUDA_CHECK(cudaMemcpyAsync(grey_.get(), planes, plane_bytes, cudaMemcpyHostToDevice, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(weights, window.first_weight.data(), sizeof(double) * side, cudaMemcpyHostToDevice,
                                   stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(weights + side, window.next_weight.data(), sizeof(double) * side,
                                   cudaMemcpyHostToDevice, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(first_cell, window.first_cell.data(), sizeof(int) * side, cudaMemcpyHostToDevice,
                                   stream_));
    k_dalal_triggs_votes<<<grid_of(p.pixels), kThreads, 0, stream_>>>(grey_.as<double>(), p, bin, lower, upper);
    LSM_CUDA_CHECK_LAUNCH();
    const dalal_triggs::WindowView view{first_cell, weights, weights + side};
    k_dalal_triggs_cells<<<grid_of(blocks * o.block * o.block), kThreads, 0, stream_>>>(
        view, p, blocks, g.blocks_x, bin, lower, upper, descriptors_.as<double>());
    LSM_CUDA_CHECK_LAUNCH();
    k_dalal_triggs_normalize<<<grid_of(blocks), kThreads, 0, stream_>>>(blocks, g.descriptor_length,
                                                                         static_cast<int>(o.norm),
                                                                         descriptors_.as<double>());
    LSM_CUDA_CHECK_LAUNCH();
    LSM_CUDA_CHECK(cudaMemcpyAsync(descriptors, descriptors_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // also keeps the host window alive until copied
  }

  const char* name() const override { return "cuda"; }

 private:
  DeviceStream stream_;  // first: the buffers below are released on it before it goes
  DeviceBuffer grey_, histograms_, descriptors_, votes_, window_;
};

}  // namespace

std::unique_ptr<HogPass> make_cuda_hog_pass(int device) { return std::make_unique<CudaHogPass>(device); }

}  // namespace lsm
