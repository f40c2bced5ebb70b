#pragma once
// The CUDA overview pass (overview_pass_cuda.cu): overview_math.h cell for cell.
#include <memory>

#include "overviews.h"

namespace lsm {

/// An overview pass on CUDA device `device`. Throws lsm::Error(Device).
std::unique_ptr<OverviewPass> make_cuda_overview_pass(int device = 0);

}  // namespace lsm
