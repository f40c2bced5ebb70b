#include "patch_rows_cuda.h"

#include <cub/device/device_scan.cuh>

#include <cmath>

#include "cuda_check.h"
#include "error.h"
#include "fragstats_gyrate.h"

namespace lsm {
namespace {

constexpr int kBlock = 256;

unsigned int blocks_for(int64_t n) { return static_cast<unsigned int>((n + kBlock - 1) / kBlock); }

// Per-patch arrays, each `patches` long, in one block of device memory.
struct PatchBoxes {
  uint32_t *row_min, *row_max, *col_min, *col_max;
};

__global__ void k_init(PatchBoxes b, unsigned long long* __restrict__ cells, int64_t patches) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= patches) return;
  b.row_min[i] = b.col_min[i] = 0xFFFFFFFFu;
  b.row_max[i] = b.col_max[i] = 0;
  cells[i] = 0;
}

// The run of patch `p` that starts at cell `c` (x0 = its column) ends at the returned column.
__device__ int64_t run_end(const uint32_t* __restrict__ row, int64_t x0, int64_t width, uint32_t p) {
  int64_t x1 = x0;
  while (x1 + 1 < width && row[x1 + 1] == p) ++x1;
  return x1;
}

// Bounding boxes and cell counts, one update per run.
__global__ void k_run_boxes(const uint32_t* __restrict__ pids, int64_t width, int64_t cells, PatchBoxes b,
                            unsigned long long* __restrict__ n) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  const uint32_t p = pids[c];
  const int64_t y = c / width, x0 = c - y * width;
  if (!p || (x0 > 0 && pids[c - 1] == p)) return;  // not the first cell of a run
  const int64_t x1 = run_end(pids + y * width, x0, width, p);
  atomicMin(&b.col_min[p - 1], static_cast<uint32_t>(x0));
  atomicMax(&b.col_max[p - 1], static_cast<uint32_t>(x1));
  atomicMin(&b.row_min[p - 1], static_cast<uint32_t>(y));
  atomicMax(&b.row_max[p - 1], static_cast<uint32_t>(y));
  atomicAdd(&n[p - 1], static_cast<unsigned long long>(x1 - x0 + 1));
}

// Histogram lengths: the box's rows, and its columns plus one (the difference array's last -1).
__global__ void k_sizes(PatchBoxes b, int64_t patches, unsigned long long* __restrict__ rows,
                        unsigned long long* __restrict__ cols) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= patches) return;
  rows[i] = b.row_max[i] - b.row_min[i] + 1;
  cols[i] = b.col_max[i] - b.col_min[i] + 2;
}

// Per run: its patch's row count and row extent (left, right: `extents` and
// `extents + row_total`), and the difference array of its column counts.
__global__ void k_run_counts(const uint32_t* __restrict__ pids, int64_t width, int64_t cells, PatchBoxes b,
                             const unsigned long long* __restrict__ row_offset,
                             const unsigned long long* __restrict__ col_offset, uint32_t* __restrict__ row_counts,
                             uint32_t* __restrict__ extents, int64_t row_total, int32_t* __restrict__ col_diff) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  const uint32_t p = pids[c];
  const int64_t y = c / width, x0 = c - y * width;
  if (!p || (x0 > 0 && pids[c - 1] == p)) return;
  const int64_t x1 = run_end(pids + y * width, x0, width, p);
  const unsigned long long row = row_offset[p - 1] + (y - b.row_min[p - 1]);
  atomicAdd(&row_counts[row], static_cast<uint32_t>(x1 - x0 + 1));
  atomicMin(&extents[row], static_cast<uint32_t>(x0));
  atomicMax(&extents[row_total + row], static_cast<uint32_t>(x1));
  const unsigned long long first = col_offset[p - 1], col_min = b.col_min[p - 1];
  atomicAdd(&col_diff[first + (static_cast<unsigned long long>(x0) - col_min)], 1);
  atomicAdd(&col_diff[first + (static_cast<unsigned long long>(x1) + 1 - col_min)], -1);
}

// area_median() of fragstats_gyrate.cpp, rounded the same way.
template <class Count>
__device__ double area_median(const Count* counts, int64_t first, int64_t last, unsigned long long n) {
  const double half = __ddiv_rn(static_cast<double>(n), 2.0);
  unsigned long long below = 0;
  for (int64_t u = first; u <= last; ++u) {
    const unsigned long long k = static_cast<unsigned long long>(counts[u - first]);
    if (k == 0) continue;
    if (static_cast<double>(below + k) >= half)
      return __dadd_rn(__dsub_rn(static_cast<double>(u), 0.5),
                       __ddiv_rn(__dsub_rn(half, static_cast<double>(below)), static_cast<double>(k)));
    below += k;
  }
  return 0;  // unreachable: the counts add up to n
}

__global__ void k_medians(PatchBoxes b, int64_t patches, const unsigned long long* __restrict__ n,
                          const unsigned long long* __restrict__ row_offset,
                          const unsigned long long* __restrict__ col_offset, const uint32_t* __restrict__ row_counts,
                          const int32_t* __restrict__ col_counts, double* __restrict__ median_x,
                          double* __restrict__ median_y) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= patches) return;
  median_y[i] = area_median(row_counts + row_offset[i], b.row_min[i], b.row_max[i], n[i]);
  median_x[i] = area_median(col_counts + col_offset[i], b.col_min[i], b.col_max[i], n[i]);
}

// Each cell's distance to its patch's median point as a fixed-point term
// (gyrate_fixed_term()), summed per patch within the warp, then into the
// patch's 128-bit sum (low word, and the carry into the high word).
__global__ void k_sums(const uint32_t* __restrict__ pids, int64_t width, int64_t cells,
                       const double* __restrict__ median_x, const double* __restrict__ median_y, double cell_width,
                       double cell_height, double scale, unsigned long long* __restrict__ low,
                       unsigned long long* __restrict__ high) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint32_t p = c < cells ? pids[c] : 0;
  unsigned long long term = 0;
  if (p) {  // as fragstats_gyrate_m(): dy = (row - my) * ch, dx = (x - mx) * cw, sqrt(dx * dx + dy * dy)
    const int64_t y = c / width, x = c - y * width;
    const double dy = __dmul_rn(__dsub_rn(static_cast<double>(y), median_y[p - 1]), cell_height);
    const double dx = __dmul_rn(__dsub_rn(static_cast<double>(x), median_x[p - 1]), cell_width);
    const double d = __dsqrt_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)));
    term = static_cast<unsigned long long>(__double2ll_rn(__dmul_rn(d, scale)));
  }
  const unsigned active = __ballot_sync(0xFFFFFFFFu, p != 0);
  if (!p) return;
  const unsigned group = __match_any_sync(active, p);  // the lanes of the same patch
  unsigned long long total = 0;  // at most 32 terms below 2^57 each
  for (unsigned rest = group; rest; rest &= rest - 1) total += __shfl_sync(group, term, __ffs(rest) - 1);
  if (static_cast<int>(threadIdx.x & 31) != __ffs(group) - 1) return;
  const unsigned long long before = atomicAdd(&low[p - 1], total);
  if (before + total < before) atomicAdd(&high[p - 1], 1ull);
}

}  // namespace

PatchRowStatistics DevicePatchRows::compute(const uint32_t* pids, int64_t width, int64_t height, size_t patches,
                                            double cell_width, double cell_height, int fixed_exponent, bool want_gyrate,
                                            bool want_row_extents, cudaStream_t stream) {
  const int64_t cells = width * height, np = static_cast<int64_t>(patches);
  PatchRowStatistics out;
  if (patches == 0 || cells == 0 || (!want_gyrate && !want_row_extents)) {
    if (want_gyrate) out.gyrate_m.assign(patches, 0.0);
    if (want_row_extents) out.extents.first_entry.assign(patches + 1, 0), out.extents.first_row.assign(patches, 0);
    return out;
  }
  boxes_.reserve(4 * patches * sizeof(uint32_t), stream);
  const PatchBoxes b{boxes_.as<uint32_t>(), boxes_.as<uint32_t>() + patches, boxes_.as<uint32_t>() + 2 * patches,
                     boxes_.as<uint32_t>() + 3 * patches};
  cells_.reserve(patches * sizeof(unsigned long long), stream);
  k_init<<<blocks_for(np), kBlock, 0, stream>>>(b, cells_.as<unsigned long long>(), np);
  LSM_CUDA_CHECK_LAUNCH();
  k_run_boxes<<<blocks_for(cells), kBlock, 0, stream>>>(pids, width, cells, b, cells_.as<unsigned long long>());
  LSM_CUDA_CHECK_LAUNCH();
  // Offsets of the per-patch arrays: exclusive sums of the boxes' heights and widths + 1.
  row_offset_.reserve(2 * patches * sizeof(unsigned long long), stream);  // the sizes, then the offsets
  col_offset_.reserve(2 * patches * sizeof(unsigned long long), stream);
  unsigned long long* row_sizes = row_offset_.as<unsigned long long>() + patches;
  unsigned long long* col_sizes = col_offset_.as<unsigned long long>() + patches;
  k_sizes<<<blocks_for(np), kBlock, 0, stream>>>(b, np, row_sizes, col_sizes);
  LSM_CUDA_CHECK_LAUNCH();
  size_t temp_bytes = 0;
  LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, row_sizes, row_offset_.as<unsigned long long>(), np, stream));
  temp_.reserve(temp_bytes, stream);
  LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.get(), temp_bytes, row_sizes, row_offset_.as<unsigned long long>(), np, stream));
  LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.get(), temp_bytes, col_sizes, col_offset_.as<unsigned long long>(), np, stream));
  // A patch's box has a cell in each of its rows and columns: its height is at
  // most its cells, its width + 1 at most its cells + 1.
  const size_t row_total = static_cast<size_t>(cells), col_total = static_cast<size_t>(cells) + patches;
  row_counts_.reserve(row_total * sizeof(uint32_t), stream);
  extents_.reserve(2 * row_total * sizeof(uint32_t), stream);
  col_diff_.reserve(col_total * sizeof(int32_t), stream);
  col_counts_.reserve(col_total * sizeof(int32_t), stream);
  LSM_CUDA_CHECK(cudaMemsetAsync(row_counts_.get(), 0, row_total * sizeof(uint32_t), stream));
  LSM_CUDA_CHECK(cudaMemsetAsync(extents_.get(), 0xFF, row_total * sizeof(uint32_t), stream));  // left: none yet
  LSM_CUDA_CHECK(cudaMemsetAsync(extents_.as<uint32_t>() + row_total, 0, row_total * sizeof(uint32_t), stream));
  LSM_CUDA_CHECK(cudaMemsetAsync(col_diff_.get(), 0, col_total * sizeof(int32_t), stream));
  k_run_counts<<<blocks_for(cells), kBlock, 0, stream>>>(
      pids, width, cells, b, row_offset_.as<unsigned long long>(), col_offset_.as<unsigned long long>(),
      row_counts_.as<uint32_t>(), extents_.as<uint32_t>(), static_cast<int64_t>(row_total), col_diff_.as<int32_t>());
  LSM_CUDA_CHECK_LAUNCH();
  std::vector<unsigned long long> n(patches), sums;
  if (want_gyrate) {
    temp_bytes = 0;
    LSM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, col_diff_.as<int32_t>(), col_counts_.as<int32_t>(),
                                                 static_cast<int64_t>(col_total), stream));
    temp_.reserve(temp_bytes, stream);
    LSM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_.get(), temp_bytes, col_diff_.as<int32_t>(),
                                                 col_counts_.as<int32_t>(), static_cast<int64_t>(col_total), stream));
    medians_.reserve(2 * patches * sizeof(double), stream);
    double* median_x = medians_.as<double>();
    double* median_y = medians_.as<double>() + patches;
    k_medians<<<blocks_for(np), kBlock, 0, stream>>>(b, np, cells_.as<unsigned long long>(),
                                                     row_offset_.as<unsigned long long>(),
                                                     col_offset_.as<unsigned long long>(), row_counts_.as<uint32_t>(),
                                                     col_counts_.as<int32_t>(), median_x, median_y);
    LSM_CUDA_CHECK_LAUNCH();
    sums_.reserve(2 * patches * sizeof(unsigned long long), stream);
    LSM_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, 2 * patches * sizeof(unsigned long long), stream));
    k_sums<<<blocks_for(cells), kBlock, 0, stream>>>(pids, width, cells, median_x, median_y, cell_width, cell_height,
                                                     std::ldexp(1.0, fixed_exponent), sums_.as<unsigned long long>(),
                                                     sums_.as<unsigned long long>() + patches);
    LSM_CUDA_CHECK_LAUNCH();
    sums.resize(2 * patches);
    LSM_CUDA_CHECK(cudaMemcpyAsync(n.data(), cells_.get(), patches * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    LSM_CUDA_CHECK(cudaMemcpyAsync(sums.data(), sums_.get(), 2 * patches * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream));
  }
  if (want_row_extents) {
    out.extents.first_row.resize(patches);
    out.extents.first_entry.resize(patches + 1);
    std::vector<unsigned long long> last_size(1);
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.extents.first_row.data(), b.row_min, patches * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream));
    static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "64-bit offsets");
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.extents.first_entry.data(), row_offset_.get(), patches * sizeof(uint64_t),
                                   cudaMemcpyDeviceToHost, stream));
    LSM_CUDA_CHECK(cudaMemcpyAsync(last_size.data(), row_sizes + (patches - 1), sizeof(uint64_t), cudaMemcpyDeviceToHost, stream));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream));
    const size_t entries = static_cast<size_t>(out.extents.first_entry[patches - 1] + last_size[0]);
    out.extents.first_entry[patches] = entries;
    out.extents.left.resize(entries);
    out.extents.right.resize(entries);
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.extents.left.data(), extents_.get(), entries * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream));
    LSM_CUDA_CHECK(cudaMemcpyAsync(out.extents.right.data(), extents_.as<uint32_t>() + row_total, entries * sizeof(uint32_t),
                                   cudaMemcpyDeviceToHost, stream));
  }
  LSM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (want_gyrate) {
    out.gyrate_m.resize(patches);
    for (size_t i = 0; i < patches; ++i)
      out.gyrate_m[i] = gyrate_from_fixed_sum(n[i], sums[patches + i], sums[i], fixed_exponent, cell_width);
  }
  return out;
}

void DevicePatchRows::release() noexcept {
  for (DeviceBuffer* buffer : {&boxes_, &cells_, &row_offset_, &col_offset_, &row_counts_, &extents_, &col_diff_,
                               &col_counts_, &medians_, &sums_, &temp_})
    buffer->release();
}

}  // namespace lsm
