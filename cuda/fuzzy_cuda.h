#pragma once
// The CUDA backend of fuzzy connectedness (kernels in fuzzy_cuda.cu): the
// volume, or slabs of whole slices of it when it does not fit, relaxed by
// max-min sweeps along each axis until a round changes nothing
// (docs/FUZZY.md). Its scene equals fuzzy_connectedness_reference's bit for bit.
#include <cstdint>
#include <memory>

#include "fuzzy_connectedness.h"

namespace lsm {

/// A fuzzy-connectedness engine on CUDA device `device`. `max_slab_voxels`
/// caps the voxels held on the device at once (0: 60% of the free device
/// memory); a volume larger than that streams through the device in slabs
/// of whole slices, repeatedly, until no slab border changes. Throws
/// lsm::Error(Device) when the device cannot be set up.
std::unique_ptr<FuzzyEngine> make_cuda_fuzzy_engine(int device = 0, int64_t max_slab_voxels = 0);

}  // namespace lsm
