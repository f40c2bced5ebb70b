// HOG on the GPU. Cell histograms: a thread block takes a few cells; each
// thread finds the bin and magnitude of pixels into shared memory, then one
// thread per (cell, bin) sums that bin over the cell's pixels in row-major
// order: the CPU's order, so the single-precision totals agree. Blocks: one
// thread per block position gathers its cells into the output and normalises
// it in place.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "hog_math.h"
#include "hog_pass_cuda.h"

namespace lsm {

namespace {

constexpr int kThreads = 256;
constexpr signed char kAllBins = -2;  // nodata: the vote goes to every bin

struct CellParams {
  long long width, height, cells_x, y0, cells;
  int cell, bins, cells_per_block;
  double period;
  float bin_width;
};

// Grey levels as double (the host's skimage-exact grey), or as float (pyramid
// levels on the device), widened exactly before any arithmetic.
template <class Grey>
__global__ void k_cell_histograms(const Grey* __restrict__ grey, CellParams p, float* __restrict__ histograms) {
  extern __shared__ unsigned char shared[];
  const int pixels_per_cell = p.cell * p.cell, pixels = p.cells_per_block * pixels_per_cell;
  double* magnitude = reinterpret_cast<double*>(shared);
  signed char* bin = reinterpret_cast<signed char*>(magnitude + pixels);
  const long long first_cell = static_cast<long long>(blockIdx.x) * p.cells_per_block;
  for (int i = threadIdx.x; i < pixels; i += blockDim.x) {
    const long long c = first_cell + i / pixels_per_cell;
    if (c >= p.cells) break;
    const int within = i % pixels_per_cell;
    const long long cy = c / p.cells_x, cx = c % p.cells_x;
    const long long row = cy * p.cell + within / p.cell, x = cx * p.cell + within % p.cell;
    const long long y = p.y0 + row;
    const Grey* here = grey + (row + 1) * p.width;
    const double g_row =
        (y == 0 || y == p.height - 1) ? 0.0 : double(here[x + p.width]) - double(here[x - p.width]);
    const double g_col = (x == 0 || x == p.width - 1) ? 0.0 : double(here[x + 1]) - double(here[x - 1]);
    magnitude[i] = hypot(g_col, g_row);
    const double orientation = hog_math::orientation_degrees(g_row, g_col, p.period);
    bin[i] = isnan(orientation) ? kAllBins
                                : static_cast<signed char>(hog_math::orientation_bin(orientation, p.bin_width, p.bins));
  }
  __syncthreads();
  for (int j = threadIdx.x; j < p.cells_per_block * p.bins; j += blockDim.x) {
    const long long c = first_cell + j / p.bins;
    if (c >= p.cells) break;
    const int b = j % p.bins;
    const double* m = magnitude + (j / p.bins) * pixels_per_cell;
    const signed char* v = bin + (j / p.bins) * pixels_per_cell;
    float total = 0;
    for (int i = 0; i < pixels_per_cell; ++i)
      if (v[i] == b || v[i] == kAllBins) total = hog_math::accumulate(total, m[i]);
    histograms[c * p.bins + b] = __fdiv_rn(total, static_cast<float>(pixels_per_cell));
  }
}

__global__ void k_normalize_blocks(const float* __restrict__ histograms, long long blocks, long long blocks_x,
                                   long long row_values, int block, int bins, int norm, double* __restrict__ out) {
  const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= blocks) return;
  const long long by = k / blocks_x, bx = k % blocks_x;
  const int run = block * bins, length = block * run;
  double* v = out + k * length;
  for (int r = 0; r < block; ++r) {
    const float* cells = histograms + (by + r) * row_values + bx * bins;
    for (int i = 0; i < run; ++i) v[r * run + i] = cells[i];
  }
  hog_math::normalize_block(v, length, norm);
}

int cells_per_thread_block(int cell) { return std::max(1, kThreads / (cell * cell)); }

template <class Grey>
void launch_cells(const HogOptions& o, const HogGeometry& g, const Grey* grey, int64_t y0, int64_t cell_rows,
                  float* histograms, cudaStream_t stream) {
  CellParams p{g.width, g.height, g.cells_x, y0, cell_rows * g.cells_x, o.cell, o.bins, cells_per_thread_block(o.cell),
               o.signed_orientation ? 360.0 : 180.0, 0.0f};
  p.bin_width = static_cast<float>(p.period / o.bins);
  if (p.cells == 0) return;
  const size_t shared = static_cast<size_t>(p.cells_per_block) * o.cell * o.cell * (sizeof(double) + 1);
  const long long blocks = (p.cells + p.cells_per_block - 1) / p.cells_per_block;
  k_cell_histograms<<<static_cast<unsigned>(blocks), kThreads, shared, stream>>>(grey, p, histograms);
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
  const long long blocks = (cell_rows - o.block + 1) * g.blocks_x;
  if (blocks <= 0) return;
  k_normalize_blocks<<<static_cast<unsigned>((blocks + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      histograms, blocks, g.blocks_x, g.cells_x * o.bins, o.block, o.bins, static_cast<int>(o.norm), descriptors);
  LSM_CUDA_CHECK_LAUNCH();
}

namespace {

class CudaHogPass final : public HogPass {
 public:
  explicit CudaHogPass(int device) : device_(device) {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    prepare_device_pool(device_);
    LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~CudaHogPass() override {
    grey_.release();
    histograms_.release();
    descriptors_.release();
    if (stream_) cudaStreamDestroy(stream_);
  }

  void cell_histograms(const HogOptions& o, const HogGeometry& g, const double* grey, int64_t y0, int64_t cell_rows,
                       float* histograms) override {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
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
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    const size_t hist_bytes = sizeof(float) * cell_rows * g.cells_x * o.bins;
    const size_t out_bytes = sizeof(double) * (cell_rows - o.block + 1) * g.blocks_x * g.descriptor_length;
    histograms_.reserve(hist_bytes, stream_);
    descriptors_.reserve(out_bytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(histograms_.get(), histograms, hist_bytes, cudaMemcpyHostToDevice, stream_));
    launch_hog_normalize_blocks(o, g, histograms_.as<float>(), cell_rows, descriptors_.as<double>(), stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(descriptors, descriptors_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  const char* name() const override { return "cuda"; }

 private:
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer grey_, histograms_, descriptors_;
};

}  // namespace

std::unique_ptr<HogPass> make_cuda_hog_pass(int device) { return std::make_unique<CudaHogPass>(device); }

}  // namespace lsm
