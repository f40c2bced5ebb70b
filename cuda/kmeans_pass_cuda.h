#pragma once
// The CUDA K-means pass (kernels in kmeans_pass_cuda.cu): the same
// assignments and integer sums as the CPU reference (kmeans_pass.h). The data
// given to set_data() is copied to GPU memory once and stays there across
// run() calls, so a raster that fits is read from host memory only once.
#include <memory>

#include "kmeans_pass.h"

namespace lsm {

/// A K-means pass on CUDA device `device`. Throws lsm::Error(Device) when the
/// device cannot be set up.
std::unique_ptr<KMeansPass> make_cuda_kmeans_pass(int device = 0);

}  // namespace lsm
