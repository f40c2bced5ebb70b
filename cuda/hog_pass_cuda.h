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

/// The skimage-variant descriptors of up to 32 resident images (the levels
/// of a pyramid), all levels in one launch per step instead of two launches
/// per level: the small levels alone would leave most of the GPU idle.
struct HogLevelTable {
  static constexpr int kMaxLevels = 32;
  int count = 0;
  HogGeometry levels[kMaxLevels];  ///< hog_geometry() of each level, same options
  /// The level's float grey levels, width x height, from one row BEFORE its
  /// first row (a padded strip as cell_histograms takes it; row -1 is never
  /// read, since the first row's gradient is zero).
  const float* grey[kMaxLevels] = {};
  float* histograms[kMaxLevels] = {};   ///< cells_y x cells_x x bins each
  double* descriptors[kMaxLevels] = {};  ///< blocks_y x blocks_x x descriptor_length each
};

/// Queues both steps for every level of `table` on `stream`. Throws
/// lsm::Error(BadInput) for a count outside 1..32, another variant than
/// skimage, or blocks of more than 768 values.
void launch_hog_levels(const HogOptions& o, const HogLevelTable& table, cudaStream_t stream);

/// HogPass::normalize_blocks on device buffers, queued on `stream`.
void launch_hog_normalize_blocks(const HogOptions& o, const HogGeometry& g, const float* histograms, int64_t cell_rows,
                                 double* descriptors, cudaStream_t stream);

}  // namespace lsm
