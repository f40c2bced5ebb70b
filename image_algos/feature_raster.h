#pragma once
// Multiband rasters as per-cell feature vectors, the input of the image
// operations (K-means). The core never includes GDAL: gdal_driver/ implements
// FeatureRasterSource on GDAL datasets, MemoryFeatureRaster holds one in
// memory (tests, benchmarks, the GPU machine without GDAL).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "progress.h"
#include "raster.h"

namespace lsm {

/// Size of a feature raster: width x height cells of `bands` floats each.
struct FeatureRasterInfo {
  int64_t width = 0, height = 0;
  int bands = 0;
  int block_width = 256, block_height = 256;  ///< natural read block of the source (cells)
};

/// True when a feature vector is nodata: readers mark a nodata cell by
/// setting its first feature to NaN.
inline bool is_nodata_features(const float* f) { return f[0] != f[0]; }

/// A raster of feature vectors, read window by window (one thread at a time).
class FeatureRasterSource {
 public:
  virtual ~FeatureRasterSource() = default;
  virtual FeatureRasterInfo info() const = 0;
  /// Reads `window` (inside the raster) into `out`: window.width x
  /// window.height cells, row-major, each cell `bands` consecutive floats.
  /// A cell that is nodata in any band has NaN as its first feature.
  /// Throws lsm::Error(Io) when reading fails.
  virtual void read(const Window& window, float* out) = 0;
};

/// Feature vectors held in memory, row-major and cell-interleaved.
class MemoryFeatureRaster final : public FeatureRasterSource {
 public:
  /// Throws lsm::Error(BadInput) unless features.size() == width*height*bands and bands > 0.
  MemoryFeatureRaster(int64_t width, int64_t height, int bands, std::vector<float> features);
  FeatureRasterInfo info() const override { return info_; }
  void read(const Window& window, float* out) override;
  const std::vector<float>& features() const { return features_; }

 private:
  FeatureRasterInfo info_;
  std::vector<float> features_;
};

/// sRGB (8-bit, 0..255 per channel) to CIE L*a*b* (D65 white, 2° observer):
/// IEC 61966-2-1 linearisation, the sRGB-to-XYZ matrix, and the CIE 1976
/// L*a*b* formulas (CIE 15:2004 §8.2.1). out = {L* (0..100), a*, b*}.
void srgb8_to_lab(float r, float g, float b, float out[3]);

/// A 3-band sRGB source (values 0..255) seen as CIE L*a*b* features, as the
/// K-means segmentation of Huo et al. (2014) uses. Throws lsm::Error(BadInput)
/// if the wrapped source does not have exactly 3 bands.
class LabFeatureRaster final : public FeatureRasterSource {
 public:
  explicit LabFeatureRaster(FeatureRasterSource& rgb);
  FeatureRasterInfo info() const override { return rgb_.info(); }
  void read(const Window& window, float* out) override;

 private:
  FeatureRasterSource& rgb_;
};

/// Full-width strips of `strip_rows` rows (the last one may be shorter)
/// streamed through the tile scheduler: read(strip r+1) overlaps compute(strip r).
/// `compute` gets the strip's window and its features (as FeatureRasterSource::read
/// fills them). Throws what the source or compute throw.
using FeatureStripFn = std::function<void(const Window& strip, const float* features)>;
void stream_feature_strips(FeatureRasterSource& source, int64_t strip_rows, const FeatureStripFn& compute,
                           const ProgressFn& progress = {});

}  // namespace lsm
