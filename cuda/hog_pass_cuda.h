#pragma once
// The CUDA HOG pass (kernels in hog_pass_cuda.cu): the CPU reference's
// arithmetic (hog_math.h) cell for cell. The launchers work on device
// memory, for the pass itself and for benchmarks on resident images.
#include <cuda_runtime.h>

#include <memory>

#include "hog.h"

namespace lsm {

/// A HOG pass on CUDA device `device`. Throws lsm::Error(Device) when the
/// device cannot be set up.
std::unique_ptr<HogPass> make_cuda_hog_pass(int device = 0);

/// HogPass::cell_histograms on device buffers, queued on `stream`.
void launch_hog_cell_histograms(const HogOptions& o, const HogGeometry& g, const double* grey, int64_t y0,
                                int64_t cell_rows, float* histograms, cudaStream_t stream);

/// The same on float grey levels (pyramid levels made on the device): each
/// value is widened to double first, so the result is that of its double copy.
void launch_hog_cell_histograms(const HogOptions& o, const HogGeometry& g, const float* grey, int64_t y0,
                                int64_t cell_rows, float* histograms, cudaStream_t stream);

/// HogPass::normalize_blocks on device buffers, queued on `stream`.
void launch_hog_normalize_blocks(const HogOptions& o, const HogGeometry& g, const float* histograms, int64_t cell_rows,
                                 double* descriptors, cudaStream_t stream);

}  // namespace lsm
