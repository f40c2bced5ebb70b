// Gradient pass on the GPU: one kernel, shared-memory tiles with their halo
// (the paper's design): horizontal correlations of the tile's rows, then the
// vertical ones, the magnitude and the orientation. Taps travel as a kernel
// parameter; the strip and its planes use stream-ordered pool buffers.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

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

// One thread block computes a tile of kTileX x kTileY outputs: the tile's
// padded rows with R columns each side (clamped) go to shared memory, then
// the horizontal correlations of all its rows, then the vertical ones. The
// operations and their order are correlate_row's and correlate_column's.
// kRadius > 0 fixes the radius at compile time (the paper's R = 3: unrolled
// tap loops whose taps are constant-bank operands); 0 takes `radius`.
constexpr int kTileX = 32;

// Launch bounds for a full SM of threads (2048): at most 32 registers.
template <int kTileY, int kRadius>
__global__ void __launch_bounds__(kTileX* kTileY, 2048 / (kTileX * kTileY))
    k_gradient(const float* __restrict__ padded, long long width, long long rows, const Taps taps, int radius,
               float* __restrict__ out) {
  extern __shared__ float shared[];
  if (kRadius > 0) radius = kRadius;
  const int span = kTileX + 2 * radius, tall = kTileY + 2 * radius;
  float* input = shared;                   // tall x span
  float* smooth = input + tall * span;     // tall x kTileX
  float* derived = smooth + tall * kTileX;  // tall x kTileX
  const long long x0 = static_cast<long long>(blockIdx.x) * kTileX, y0 = static_cast<long long>(blockIdx.y) * kTileY;
  const long long padded_rows = rows + 2 * radius;
  for (int r = threadIdx.y; r < tall; r += kTileY) {
    const long long row = y0 + r;
    const float* source = padded + (row < padded_rows ? row : 0) * width;
    for (int c = threadIdx.x; c < span; c += kTileX) {
      long long col = x0 + c - radius;
      col = col < 0 ? 0 : col >= width ? width - 1 : col;
      input[r * span + c] = row < padded_rows ? source[col] : 0.0f;
    }
  }
  __syncthreads();
  for (int r = threadIdx.y; r < tall; r += kTileY) {
    const int i = r * kTileX + threadIdx.x;
    const float* at = input + r * span + threadIdx.x;  // tap -R of this column
    float s = 0, d = 0;
#pragma unroll(kRadius > 0 ? 2 * kRadius + 1 : 1)
    for (int t = 0; t <= 2 * radius; ++t) {
      s = kmeans_math::add(s, kmeans_math::mul(taps.smooth[t], at[t]));
      d = kmeans_math::add(d, kmeans_math::mul(taps.derivative[t], at[t]));
    }
    smooth[i] = s;
    derived[i] = d;
  }
  __syncthreads();
  const long long x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= width || y >= rows) return;
  const float* below_derived = derived + threadIdx.y * kTileX + threadIdx.x;
  const float* below_smooth = smooth + threadIdx.y * kTileX + threadIdx.x;
  float gx = 0, gy = 0;
#pragma unroll(kRadius > 0 ? 2 * kRadius + 1 : 1)
  for (int j = 0; j <= 2 * radius; ++j) {  // correlate_column's order
    gx = kmeans_math::add(gx, kmeans_math::mul(taps.smooth[j], below_derived[j * kTileX]));
    gy = kmeans_math::add(gy, kmeans_math::mul(taps.derivative[j], below_smooth[j * kTileX]));
  }
  const long long i = y * width + x, plane = rows * width;
  out[kGradientX * plane + i] = gx;
  out[kGradientY * plane + i] = gy;
  out[kGradientMagnitude * plane + i] = gradient_math::magnitude(gx, gy);
  out[kGradientOrientation * plane + i] = atan2f(gy, gx);
}

template <int kTileY>
void launch_tiles(const dim3& grid, size_t shared, cudaStream_t stream, const float* padded, long long width,
                  long long rows, const Taps& taps, int radius, float* out) {
  if (radius == 3)  // the paper's 7-tap kernels, the default
    k_gradient<kTileY, 3><<<grid, dim3(kTileX, kTileY), shared, stream>>>(padded, width, rows, taps, radius, out);
  else
    k_gradient<kTileY, 0><<<grid, dim3(kTileX, kTileY), shared, stream>>>(padded, width, rows, taps, radius, out);
}

}  // namespace

void launch_gradient(const GradientKernels& k, const float* padded, int64_t width, int64_t rows, float* planes,
                     cudaStream_t stream) {
  if (width == 0 || rows == 0) return;
  if (2 * k.radius + 1 > kMaxTaps) throw Error(ErrorKind::BadInput, "--radius must be at most 32 cells");
  Taps taps{};
  std::copy(k.smooth.begin(), k.smooth.end(), taps.smooth);
  std::copy(k.derivative.begin(), k.derivative.end(), taps.derivative);
  // Taller tiles load fewer halo rows per output row (22 rows for 16 at the
  // paper's R = 3, against 14 for 8); they need more shared memory, so
  // large radii keep 8-row tiles within the default 48 KB.
  const int span = kTileX + 2 * k.radius;
  auto shared_for = [&](int tile_y) {
    const int tall = tile_y + 2 * k.radius;
    return sizeof(float) * (size_t(tall) * span + 2 * size_t(tall) * kTileX);
  };
  const bool tall_tiles = shared_for(16) <= 48 * 1024;
  const int tile_y = tall_tiles ? 16 : 8;
  const long long tiles_y = (rows + tile_y - 1) / tile_y;
  if (tiles_y > 65535)
    throw Error(ErrorKind::BadInput, "gradient strips are limited to " + std::to_string(65535LL * tile_y) + " rows");
  const dim3 grid(static_cast<unsigned>((width + kTileX - 1) / kTileX), static_cast<unsigned>(tiles_y));
  if (tall_tiles)
    launch_tiles<16>(grid, shared_for(16), stream, padded, width, rows, taps, k.radius, planes);
  else
    launch_tiles<8>(grid, shared_for(8), stream, padded, width, rows, taps, k.radius, planes);
  LSM_CUDA_CHECK_LAUNCH();
}

namespace {

class CudaGradientPass final : public GradientPass {
 public:
  explicit CudaGradientPass(int device) : stream_(device) {}

  void run(const GradientKernels& k, const float* padded, int64_t width, int64_t rows, float* out) override {
    if (width == 0 || rows == 0) return;
    stream_.activate();
    const int64_t padded_rows = rows + 2 * k.radius;
    const size_t in_bytes = sizeof(float) * padded_rows * width, out_bytes = sizeof(float) * kGradientPlanes * rows * width;
    input_.reserve(in_bytes, stream_);
    planes_.reserve(out_bytes, stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(input_.get(), padded, in_bytes, cudaMemcpyHostToDevice, stream_));
    launch_gradient(k, input_.as<float>(), width, rows, planes_.as<float>(), stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(out, planes_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  const char* name() const override { return "cuda"; }

 private:
  DeviceStream stream_;  // first: the buffers below are released on it before it goes
  DeviceBuffer input_, planes_;
};

}  // namespace

std::unique_ptr<GradientPass> make_cuda_gradient_pass(int device) { return std::make_unique<CudaGradientPass>(device); }

}  // namespace lsm
