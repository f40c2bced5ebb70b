#pragma once
// The CUDA gradient pass (kernels in gradient_pass_cuda.cu): the CPU
// reference's arithmetic (gradient_math.h) cell for cell.
#include <cuda_runtime.h>

#include <memory>

#include "gradient.h"

namespace lsm {

/// A gradient pass on CUDA device `device`. Throws lsm::Error(Device) when
/// the device cannot be set up.
std::unique_ptr<GradientPass> make_cuda_gradient_pass(int device = 0);

/// GradientPass::run on device buffers, queued on `stream`: `padded`
/// (rows + 2R) x width; `planes` kGradientPlanes x rows x width. Throws
/// lsm::Error(BadInput) for a radius over 32 or strips over 1048560 rows
/// (524280 for radii over 30, whose taller tiles would not fit 48 KB).
void launch_gradient(const GradientKernels& k, const float* padded, int64_t width, int64_t rows, float* planes,
                     cudaStream_t stream);

}  // namespace lsm
