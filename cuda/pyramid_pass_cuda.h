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

/// PyramidPass::resample on device buffers, queued on `stream`.
void launch_pyramid_resample(const LevelMapping& m, int bands, const float* source, int64_t source_y0, int64_t y0,
                             int64_t rows, float* level, cudaStream_t stream);

}  // namespace lsm
