// Overviews on the GPU: one thread per overview cell, the window reduction
// of overview_math.h; strips travel through stream-ordered pool buffers.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "device_pool.h"
#include "overview_math.h"
#include "overview_pass_cuda.h"

namespace lsm {

namespace {

__global__ void k_overview(OverviewGeometry g, bool mode, const float* __restrict__ source, long long source_row0,
                           long long y0, long long rows, float* __restrict__ out) {
  const long long x = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long r = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= g.width || r >= rows) return;
  const overview_math::AxisWindow wx = overview_math::axis_window(x, g.ratio_x, g.source_width);
  const overview_math::AxisWindow wy = overview_math::axis_window(y0 + r, g.ratio_y, g.source_height);
  out[r * g.width + x] = mode ? overview_math::mode(source, source_row0, g.source_width, wx, wy)
                              : overview_math::average(source, source_row0, g.source_width, wx, wy);
}

class CudaOverviewPass final : public OverviewPass {
 public:
  explicit CudaOverviewPass(int device) : stream_(device) {}
  void reduce(const OverviewGeometry& g, OverviewMethod method, const float* source, int64_t source_row0,
              int64_t source_rows, int64_t y0, int64_t rows, float* out) override {
    if (g.width == 0 || rows == 0) return;
    stream_.activate();
    const size_t in_bytes = sizeof(float) * g.source_width * source_rows, out_bytes = sizeof(float) * g.width * rows;
    in_.reserve(in_bytes, stream_);
    out_.reserve(out_bytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(in_.get(), source, in_bytes, cudaMemcpyHostToDevice, stream_));
    const dim3 block(32, 8), grid(static_cast<unsigned>((g.width + 31) / 32), static_cast<unsigned>((rows + 7) / 8));
    k_overview<<<grid, block, 0, stream_>>>(g, method == OverviewMethod::Mode, in_.as<float>(), source_row0, y0, rows,
                                            out_.as<float>());
    LSM_CUDA_CHECK_LAUNCH();
    LSM_CUDA_CHECK(cudaMemcpyAsync(out, out_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  const char* name() const override { return "cuda"; }

 private:
  DeviceStream stream_;  // first: the buffers below are released on it before it goes
  DeviceBuffer in_, out_;
};

}  // namespace

std::unique_ptr<OverviewPass> make_cuda_overview_pass(int device) { return std::make_unique<CudaOverviewPass>(device); }

}  // namespace lsm
