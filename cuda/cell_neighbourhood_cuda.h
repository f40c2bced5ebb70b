#pragma once
// The CUDA backend of the second pass's per-cell neighbourhood tests
// (metrics/fragstats/cell_neighbourhood.h): one thread per cell, integer atomics only,
// so its counts equal the CPU reference's exactly.
#include <memory>

#include "cell_neighbourhood.h"

namespace lsm {

/// A counter on CUDA device `device`. Throws lsm::Error(Device) when the
/// device cannot be set up.
std::unique_ptr<NeighbourhoodCounter> make_cuda_neighbourhood_counter(int device = 0);

}  // namespace lsm
