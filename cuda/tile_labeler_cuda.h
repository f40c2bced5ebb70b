#pragma once
// The CUDA labeling backend (plain C++ interface; the kernels are in
// tile_labeler_cuda.cu). It honours the TileLabeler contract exactly: the
// same local labels and PatchStats as the CPU reference.
#include <memory>
#include <string>

#include "tile_labeler.h"

namespace lsm {

/// True when the CUDA runtime reports at least one device; otherwise false
/// with the reason in *why_not.
bool cuda_device_present(std::string* why_not = nullptr);

/// The number of CUDA devices this process sees (CUDA_VISIBLE_DEVICES
/// applies); 0 when there are none or the runtime cannot tell.
int cuda_device_count();

/// A labeler on CUDA device `device`. Throws lsm::Error(Device) when the
/// device cannot be set up.
std::unique_ptr<TileLabeler> make_cuda_labeler(int device = 0);

}  // namespace lsm
