// Pyramid levels on the GPU: one thread per level pixel, all bands, the
// mapping (with its Gaussian taps) as a kernel parameter.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "device_pool.h"
#include "pyramid_math.h"
#include "pyramid_pass_cuda.h"

namespace lsm {

namespace {

constexpr int kThreads = 256;

__global__ void k_resample(const LevelMapping m, int bands, const float* __restrict__ source, long long source_y0,
                           long long y0, long long rows, float* __restrict__ level) {
  const long long x = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long r = blockIdx.y;
  if (x >= m.width || r >= rows) return;
  const pyramid_math::SourceRows s{source, m.source_width, m.source_height, source_y0, bands};
  float* out = level + (r * m.width + x) * bands;
  for (int b = 0; b < bands; ++b) out[b] = pyramid_math::sample(m, s, x, y0 + r, b);
}

// Levels made in one launch: thread blocks numbered level after level, each
// a kThreads-column by kRowsPerThread-row tile, so that a thread finds its
// column's taps once for several rows.
constexpr int kRowsPerThread = 8;

__global__ void k_levels(const PyramidLevelTable t, const float* __restrict__ source) {
  int l = 0, hi = t.count - 1;  // the last level whose first block is at most this one (binary search)
  while (l < hi) {
    const int mid = (l + hi + 1) / 2;
    if (t.first_block[mid] <= static_cast<long long>(blockIdx.x)) l = mid;
    else hi = mid - 1;
  }
  const LevelGeometry& g = t.levels[l];
  const unsigned tiles_x = static_cast<unsigned>((g.width + kThreads - 1) / kThreads);
  const unsigned tile = static_cast<unsigned>(blockIdx.x - t.first_block[l]);
  const long long x = static_cast<long long>(tile % tiles_x) * kThreads + threadIdx.x;
  const long long y0 = static_cast<long long>(tile / tiles_x) * kRowsPerThread;
  if (x >= g.width) return;
  const pyramid_math::SourceRows s{source, g.source_width, g.source_height, 0, t.bands};
  pyramid_math::LinearTaps taps;
  pyramid_math::column_taps(g, x, &taps);
  if (t.resampling == Resampling::Bilinear && t.bands == 1) {
    // One band: interpolate()'s arithmetic on two row pointers, without its
    // per-tap index products and band lookups (the kernel is issue-bound).
    float* out = t.out[l] + y0 * g.width + x;
    for (long long y = y0; y < y0 + kRowsPerThread && y < g.height; ++y, out += g.width) {
      pyramid_math::row_taps(g, y, &taps);
      const float* r0 = source + taps.j * g.source_width;
      const float* r1 = source + taps.j1 * g.source_width;
      const float top = pyramid_math::lerp(r0[taps.i], r0[taps.i1], taps.a);
      const float bottom = pyramid_math::lerp(r1[taps.i], r1[taps.i1], taps.a);
      *out = pyramid_math::lerp(top, bottom, taps.c);
    }
    return;
  }
  for (long long y = y0; y < y0 + kRowsPerThread && y < g.height; ++y) {
    float* out = t.out[l] + (y * g.width + x) * t.bands;
    if (t.resampling == Resampling::Area) {
      for (int b = 0; b < t.bands; ++b) out[b] = pyramid_math::area_sample(g, s, x, y, b);
      continue;
    }
    pyramid_math::row_taps(g, y, &taps);
    for (int b = 0; b < t.bands; ++b) out[b] = pyramid_math::interpolate(taps, nullptr, s, b);
  }
}

}  // namespace

void launch_pyramid_levels(const PyramidLevelTable& table, const float* source, cudaStream_t stream) {
  if (table.count < 1 || table.count > PyramidLevelTable::kMaxLevels)
    throw Error(ErrorKind::BadInput, "one launch makes 1 to 32 levels");
  if (table.resampling == Resampling::Gaussian)
    throw Error(ErrorKind::BadInput, "gaussian levels are made one launch per level (launch_pyramid_resample)");
  PyramidLevelTable t = table;
  long long blocks = 0;
  for (int l = 0; l < t.count; ++l) {
    t.first_block[l] = blocks;
    blocks += ((t.levels[l].width + kThreads - 1) / kThreads) * ((t.levels[l].height + kRowsPerThread - 1) / kRowsPerThread);
  }
  k_levels<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(t, source);
  LSM_CUDA_CHECK_LAUNCH();
}

void launch_pyramid_resample(const LevelMapping& m, int bands, const float* source, int64_t source_y0, int64_t y0,
                             int64_t rows, float* level, cudaStream_t stream) {
  if (rows == 0 || m.width == 0) return;
  if (rows > 65535) throw Error(ErrorKind::BadInput, "pyramid strips are limited to 65535 rows");
  const dim3 grid(static_cast<unsigned>((m.width + kThreads - 1) / kThreads), static_cast<unsigned>(rows));
  k_resample<<<grid, kThreads, 0, stream>>>(m, bands, source, source_y0, y0, rows, level);
  LSM_CUDA_CHECK_LAUNCH();
}

namespace {

class CudaPyramidPass final : public PyramidPass {
 public:
  explicit CudaPyramidPass(int device) : stream_(device) {}

  void resample(const LevelMapping& m, int bands, const float* source, int64_t source_y0, int64_t source_rows,
                int64_t y0, int64_t rows, float* level) override {
    stream_.activate();
    const size_t in_bytes = sizeof(float) * source_rows * m.source_width * bands;
    const size_t out_bytes = sizeof(float) * rows * m.width * bands;
    source_.reserve(in_bytes, stream_);
    level_.reserve(out_bytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(source_.get(), source, in_bytes, cudaMemcpyHostToDevice, stream_));
    launch_pyramid_resample(m, bands, source_.as<float>(), source_y0, y0, rows, level_.as<float>(), stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(level, level_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  const char* name() const override { return "cuda"; }

 private:
  DeviceStream stream_;  // first: the buffers below are released on it before it goes
  DeviceBuffer source_, level_;
};

}  // namespace

std::unique_ptr<PyramidPass> make_cuda_pyramid_pass(int device) { return std::make_unique<CudaPyramidPass>(device); }

}  // namespace lsm
