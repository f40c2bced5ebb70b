#include "grey.h"

#include <limits>
#include <string>

#include "error.h"

namespace lsm {

GreyFeatureRaster::GreyFeatureRaster(FeatureRasterSource& source, double divisor) : source_(source), divisor_(divisor) {
  const int bands = source_.info().bands;
  if (bands != 1 && bands != 3)
    throw Error(ErrorKind::BadInput,
                "grey levels need 1 band or 3 (R, G, B); the input has " + std::to_string(bands) + " (choose with --band)");
  if (!(divisor > 0)) throw Error(ErrorKind::BadInput, "the grey-level divisor must be positive");
}

FeatureRasterInfo GreyFeatureRaster::info() const {
  FeatureRasterInfo i = source_.info();
  i.bands = 1;
  return i;
}

void GreyFeatureRaster::read(const Window& w, float* out) {
  const int bands = source_.info().bands;
  const int64_t cells = w.width * w.height;
  buffer_.resize(static_cast<size_t>(cells * bands));
  source_.read(w, buffer_.data());
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < cells; ++i) {
    const float* v = buffer_.data() + i * bands;
    out[i] = is_nodata_features(v) ? std::numeric_limits<float>::quiet_NaN()
                                   : static_cast<float>(grey_level(v, bands, divisor_));
  }
}

}  // namespace lsm
