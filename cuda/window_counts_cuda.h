#pragma once
// The CUDA window count pass (window_counts_cuda.cu): the CPU window job's
// count-based metrics (window_count_formulas.h), bit for bit.
#include <memory>
#include <vector>

#include "window_count_pass.h"

namespace lsm {

/// The pass on CUDA devices `devices` (ordinals), each taking a share of a
/// block's rows. Throws lsm::Error(Device) when a device cannot be set up,
/// lsm::Error(Backend) when `devices` is empty.
std::unique_ptr<WindowCountPass> make_cuda_window_count_pass(std::vector<int> devices);

}  // namespace lsm
