// Gradient pass on the GPU: one kernel for the horizontal correlations of
// the padded strip (smoothed and differentiated rows), one for the vertical
// correlations and the magnitude and orientation. Taps travel as a kernel
// parameter; the strip and its planes use stream-ordered pool buffers.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "gradient_math.h"
#include "gradient_pass_cuda.h"

namespace lsm {

namespace {

constexpr int kMaxTaps = 65;  // radius <= 32
struct Taps {
  float smooth[kMaxTaps];
  float derivative[kMaxTaps];
};

__global__ void k_horizontal(const float* __restrict__ padded, long long width, long long rows, const Taps taps,
                             int radius, float* __restrict__ smooth, float* __restrict__ derived) {
  const long long x = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long y = blockIdx.y;
  if (x >= width || y >= rows) return;
  const float* row = padded + y * width;
  smooth[y * width + x] = gradient_math::correlate_row(row, width, x, taps.smooth, radius);
  derived[y * width + x] = gradient_math::correlate_row(row, width, x, taps.derivative, radius);
}

__global__ void k_vertical(const float* __restrict__ smooth, const float* __restrict__ derived, long long width,
                           long long rows, const Taps taps, int radius, float* __restrict__ out) {
  const long long x = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long y = blockIdx.y;
  if (x >= width || y >= rows) return;
  const long long i = y * width + x, plane = rows * width;
  const float gx = gradient_math::correlate_column(derived + i, width, taps.smooth, radius);
  const float gy = gradient_math::correlate_column(smooth + i, width, taps.derivative, radius);
  out[kGradientX * plane + i] = gx;
  out[kGradientY * plane + i] = gy;
  out[kGradientMagnitude * plane + i] = gradient_math::magnitude(gx, gy);
  out[kGradientOrientation * plane + i] = atan2f(gy, gx);
}

}  // namespace

void launch_gradient(const GradientKernels& k, const float* padded, int64_t width, int64_t rows, float* smooth,
                     float* derived, float* planes, cudaStream_t stream) {
  if (width == 0 || rows == 0) return;
  if (2 * k.radius + 1 > kMaxTaps) throw Error(ErrorKind::BadInput, "--radius must be at most 32 cells");
  Taps taps{};
  std::copy(k.smooth.begin(), k.smooth.end(), taps.smooth);
  std::copy(k.derivative.begin(), k.derivative.end(), taps.derivative);
  const int64_t padded_rows = rows + 2 * k.radius;
  constexpr int kThreads = 256;
  if (padded_rows > 65535) throw Error(ErrorKind::BadInput, "gradient strips are limited to 65535 rows");
  const dim3 grid_h(static_cast<unsigned>((width + kThreads - 1) / kThreads), static_cast<unsigned>(padded_rows));
  k_horizontal<<<grid_h, kThreads, 0, stream>>>(padded, width, padded_rows, taps, k.radius, smooth, derived);
  LSM_CUDA_CHECK_LAUNCH();
  const dim3 grid_v(static_cast<unsigned>((width + kThreads - 1) / kThreads), static_cast<unsigned>(rows));
  k_vertical<<<grid_v, kThreads, 0, stream>>>(smooth, derived, width, rows, taps, k.radius, planes);
  LSM_CUDA_CHECK_LAUNCH();
}

namespace {

class CudaGradientPass final : public GradientPass {
 public:
  explicit CudaGradientPass(int device) : device_(device) {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    prepare_device_pool(device_);
    LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~CudaGradientPass() override {
    input_.release();
    smooth_.release();
    derived_.release();
    planes_.release();
    if (stream_) cudaStreamDestroy(stream_);
  }

  void run(const GradientKernels& k, const float* padded, int64_t width, int64_t rows, float* out) override {
    if (width == 0 || rows == 0) return;
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    const int64_t padded_rows = rows + 2 * k.radius;
    const size_t in_bytes = sizeof(float) * padded_rows * width, out_bytes = sizeof(float) * kGradientPlanes * rows * width;
    input_.reserve(in_bytes, stream_);
    smooth_.reserve(in_bytes, stream_);
    derived_.reserve(in_bytes, stream_);
    planes_.reserve(out_bytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(input_.get(), padded, in_bytes, cudaMemcpyHostToDevice, stream_));
    launch_gradient(k, input_.as<float>(), width, rows, smooth_.as<float>(), derived_.as<float>(), planes_.as<float>(),
                    stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(out, planes_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  const char* name() const override { return "cuda"; }

 private:
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer input_, smooth_, derived_, planes_;
};

}  // namespace

std::unique_ptr<GradientPass> make_cuda_gradient_pass(int device) { return std::make_unique<CudaGradientPass>(device); }

}  // namespace lsm
