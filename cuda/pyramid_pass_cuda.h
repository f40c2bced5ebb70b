#pragma once
// The CUDA pyramid pass (kernel in pyramid_pass_cuda.cu): the CPU
// reference's arithmetic (pyramid_math.h) pixel for pixel. The launcher works
// on device memory, for the pass itself and for benchmarks on resident images.
#include <cuda_runtime.h>

#include <memory>

#include "pyramid.h"

namespace lsm {

/// A pyramid pass on CUDA device `device`. Throws lsm::Error(Device) when
/// the device cannot be set up.
std::unique_ptr<PyramidPass> make_cuda_pyramid_pass(int device = 0);

/// Up to 32 bilinear or area levels of one resident source (whole, all
/// rows), made in one launch: what a resident pyramid needs, without a
/// launch per level. first_block is filled by the launcher.
struct PyramidLevelTable {
  static constexpr int kMaxLevels = 32;
  int count = 0, bands = 1;
  Resampling resampling = Resampling::Bilinear;
  LevelGeometry levels[kMaxLevels];
  float* out[kMaxLevels] = {};
  long long first_block[kMaxLevels] = {};
};

/// Queues the levels of `table` from `source` on `stream`. Throws
/// lsm::Error(BadInput) for Gaussian resampling or a count outside 1..32.
void launch_pyramid_levels(const PyramidLevelTable& table, const float* source, cudaStream_t stream);

/// PyramidPass::resample on device buffers, queued on `stream`.
void launch_pyramid_resample(const LevelMapping& m, int bands, const float* source, int64_t source_y0, int64_t y0,
                             int64_t rows, float* level, cudaStream_t stream);

}  // namespace lsm
