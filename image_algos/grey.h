#pragma once
// Grey levels of colour photos for the image operations (gradient, pyramid,
// HOG), as scikit-image's rgb2gray: Y = 0.2125 R + 0.7154 G + 0.0721 B
// (ITU-R BT.709 luma weights) on values scaled to [0, 1] by the data type's
// maximum (img_as_float: 255 for 8-bit, 65535 for 16-bit, 1 for floats).
#include "feature_raster.h"

namespace lsm {

/// BT.709 luma weights, as skimage.color.rgb2gray.
constexpr double kGreyWeights[3] = {0.2125, 0.7154, 0.0721};

/// The grey level of one cell of `bands` (1 or 3) values, each divided by
/// `divisor` first, in double precision in skimage's order: (R/d)*wR + (G/d)*wG + (B/d)*wB.
inline double grey_level(const float* values, int bands, double divisor) {
  if (bands == 1) return values[0] / divisor;
  const double r = values[0] / divisor, g = values[1] / divisor, b = values[2] / divisor;
  // Left to right, each product rounded (compiled without FMA contraction):
  // what numpy's rgb @ weights does.
  return r * kGreyWeights[0] + g * kGreyWeights[1] + b * kGreyWeights[2];
}

/// A 1- or 3-band source seen as one band of grey levels (float), each cell
/// as grey_level(values, bands, divisor); NaN where the source is nodata.
/// Throws lsm::Error(BadInput) for other band counts or a divisor <= 0.
class GreyFeatureRaster final : public FeatureRasterSource {
 public:
  GreyFeatureRaster(FeatureRasterSource& source, double divisor);
  FeatureRasterInfo info() const override;
  void read(const Window& window, float* out) override;

 private:
  FeatureRasterSource& source_;
  double divisor_;
  std::vector<float> buffer_;
};

}  // namespace lsm
