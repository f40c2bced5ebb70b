#pragma once
// The CUDA gradient pass (kernels in gradient_pass_cuda.cu): the CPU
// reference's arithmetic (gradient_math.h) cell for cell.
#include <memory>

#include "gradient.h"

namespace lsm {

/// A gradient pass on CUDA device `device`. Throws lsm::Error(Device) when
/// the device cannot be set up.
std::unique_ptr<GradientPass> make_cuda_gradient_pass(int device = 0);

}  // namespace lsm
