#pragma once
// Image pyramids (`lsm pyramid`, issue 6): levels of an image shrunk by a
// constant factor, as the pyramid of Zhang, Chai & Yu (2015): 31 levels,
// scale 1.05, each level resampled from the full-resolution base (their
// memory-saving variant) or from the previous level.
//
// Level l (0-based) of a W x H base is round(W / S^l) x round(H / S^l)
// pixels; level 0 is the base itself. A level's pixel (x, y) covers
// [x * sx, (x + 1) * sx) x [y * sy, (y + 1) * sy) of its source, where
// sx = source width / level width (likewise sy): the source's extent is kept
// exactly, so a level's georeferencing is the base's with cells sx (sy) times larger.
//
// Resampling of a level pixel from its source (pixel centres at i + 0.5):
//   bilinear: at u = (x + 0.5) sx - 0.5, v = (y + 0.5) sy - 0.5, from the
//     four source pixels around (u, v); beyond the edges the edge pixel is
//     repeated (OpenCV's INTER_LINEAR with BORDER_REPLICATE). A NaN among
//     those of non-zero weight gives NaN.
//   area: the mean of the source pixels weighted by their overlap with the
//     level pixel's footprint (OpenCV's INTER_AREA, GDAL's average with
//     fractional weights); NaN pixels are left out, NaN when all are NaN.
//   gaussian: bilinear on the source smoothed by a Gaussian of sigma = 2 s / 6
//     per axis (s = sx or sy; scikit-image's pyramid_reduce default), taps to
//     round(4 sigma), edges replicated; NaN spreads over the taps.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "feature_raster.h"
#include "tile_labeler.h"  // Backend

namespace lsm {

enum class Resampling : int { Bilinear = 0, Area = 1, Gaussian = 2 };

/// "bilinear", "area" or "gaussian"; throws lsm::Error(BadInput) otherwise.
Resampling parse_resampling(const std::string& name);

struct PyramidOptions {
  int levels = 31;       ///< levels including the base (1..1000)
  double scale = 1.05;   ///< size ratio of consecutive levels (> 1)
  Resampling resampling = Resampling::Bilinear;
  bool from_previous = false;  ///< resample level l from level l-1 instead of the base
};

/// The size of each level, level 0 first. Throws lsm::Error(BadInput) for
/// options out of range or when a level would be smaller than one pixel
/// (the message names the last level that fits).
std::vector<std::pair<int64_t, int64_t>> pyramid_sizes(int64_t width, int64_t height, const PyramidOptions& options);

/// A level's size and its source's.
struct LevelGeometry {
  int64_t source_width = 0, source_height = 0;
  int64_t width = 0, height = 0;
  double scale_x = 1, scale_y = 1;  ///< source pixels per level pixel
};

/// How a level is made from its source.
struct LevelMapping : LevelGeometry {
  Resampling resampling = Resampling::Bilinear;
  int radius_x = 0, radius_y = 0;   ///< gaussian taps each side (0: none)
  float taps_x[65] = {}, taps_y[65] = {};  ///< gaussian taps -R..R, normalised
};

/// The mapping of a width x height level from a source_width x source_height
/// source. Throws lsm::Error(BadInput) when the Gaussian would need more
/// than 32 taps each side (a level over 24 times smaller than its source).
LevelMapping level_mapping(int64_t source_width, int64_t source_height, int64_t width, int64_t height,
                           Resampling resampling);

/// The source rows [first, last) that level rows [y0, y1) read (clamped).
void source_rows_for(const LevelMapping& m, int64_t y0, int64_t y1, int64_t* first, int64_t* last);

/// A backend's resampling of level rows. The CPU implementation is the
/// reference; the CUDA one (cuda/pyramid_pass_cuda.cu) gives bit-identical
/// results (pyramid_math.h: the same operations in the same order).
class PyramidPass {
 public:
  virtual ~PyramidPass() = default;
  /// Level rows [y0, y0 + rows), full width, from source rows
  /// [source_y0, source_y0 + source_rows) (as source_rows_for gives), both
  /// cell-interleaved with `bands` floats per pixel. Throws lsm::Error(Device).
  virtual void resample(const LevelMapping& m, int bands, const float* source, int64_t source_y0,
                        int64_t source_rows, int64_t y0, int64_t rows, float* level) = 0;
  virtual const char* name() const = 0;
};

/// The CPU reference, multithreaded with OpenMP.
std::unique_ptr<PyramidPass> make_cpu_pyramid_pass();

/// The pass of `backend` (Auto: CUDA when a device is present); defined in
/// lsm_engine. Throws lsm::Error(Backend) when CUDA is asked for and absent.
std::unique_ptr<PyramidPass> make_pyramid_pass(Backend backend);

/// A pyramid level of `source` as a raster: each read resamples the source
/// rows it needs through `pass`, so a level streams like any other input
/// (to a GeoTIFF, or into HOG). The source and the pass must outlive it.
class PyramidLevelRaster final : public FeatureRasterSource {
 public:
  PyramidLevelRaster(FeatureRasterSource& source, int64_t width, int64_t height, Resampling resampling,
                     PyramidPass& pass);
  FeatureRasterInfo info() const override { return info_; }
  void read(const Window& window, float* out) override;
  const LevelMapping& mapping() const { return mapping_; }

 private:
  FeatureRasterSource& source_;
  PyramidPass& pass_;
  LevelMapping mapping_;
  FeatureRasterInfo info_;
  std::vector<float> source_rows_, level_rows_;
};

}  // namespace lsm
