#include "feature_raster.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "error.h"
#include "tile_scheduler.h"

namespace lsm {

MemoryFeatureRaster::MemoryFeatureRaster(int64_t width, int64_t height, int bands, std::vector<float> features)
    : features_(std::move(features)) {
  if (width <= 0 || height <= 0 || bands <= 0)
    throw Error(ErrorKind::BadInput, "a feature raster needs positive width, height and band count");
  if (features_.size() != static_cast<size_t>(width * height * bands))
    throw Error(ErrorKind::BadInput, "feature array holds " + std::to_string(features_.size()) + " values, expected " +
                                         std::to_string(width * height * bands));
  info_.width = width;
  info_.height = height;
  info_.bands = bands;
}

void MemoryFeatureRaster::read(const Window& w, float* out) {
  const int64_t b = info_.bands;
  for (int64_t y = 0; y < w.height; ++y) {
    const float* row = features_.data() + ((w.y0 + y) * info_.width + w.x0) * b;
    std::copy(row, row + w.width * b, out + y * w.width * b);
  }
}

namespace {
// IEC 61966-2-1: the sRGB transfer function, inverted.
double srgb_to_linear(double c) {
  c /= 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
// CIE 15:2004: f(t) of the L*a*b* formulas.
double lab_f(double t) {
  constexpr double d = 6.0 / 29.0;
  return t > d * d * d ? std::cbrt(t) : t / (3 * d * d) + 4.0 / 29.0;
}
}  // namespace

void srgb8_to_lab(float r8, float g8, float b8, float out[3]) {
  const double r = srgb_to_linear(r8), g = srgb_to_linear(g8), b = srgb_to_linear(b8);
  // sRGB (D65) to XYZ, then normalised by the D65 white point.
  const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const double y = (0.2126729 * r + 0.7151522 * g + 0.0721750 * b) / 1.00000;
  const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
  const double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
  out[0] = static_cast<float>(116 * fy - 16);
  out[1] = static_cast<float>(500 * (fx - fy));
  out[2] = static_cast<float>(200 * (fy - fz));
}

LabFeatureRaster::LabFeatureRaster(FeatureRasterSource& rgb) : rgb_(rgb) {
  if (rgb_.info().bands != 3)
    throw Error(ErrorKind::BadInput, "L*a*b* needs exactly 3 bands (R, G, B); the input has " +
                                         std::to_string(rgb_.info().bands));
}

void LabFeatureRaster::read(const Window& w, float* out) {
  rgb_.read(w, out);
  const int64_t cells = w.width * w.height;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < cells; ++i) {
    float* f = out + 3 * i;
    if (is_nodata_features(f)) continue;
    srgb8_to_lab(f[0], f[1], f[2], f);
  }
}

void stream_feature_strips(FeatureRasterSource& source, int64_t strip_rows, const FeatureStripFn& compute,
                           const ProgressFn& progress) {
  const FeatureRasterInfo info = source.info();
  if (strip_rows <= 0) throw Error(ErrorKind::BadInput, "strip height must be positive");
  const int64_t strips = (info.height + strip_rows - 1) / strip_rows;
  struct Strip {
    Window window;
    std::shared_ptr<std::vector<float>> features;
  };
  // Two buffers alternate: the one computed on and the one being read.
  std::shared_ptr<std::vector<float>> buffers[2] = {std::make_shared<std::vector<float>>(),
                                                    std::make_shared<std::vector<float>>()};
  auto read = [&](int64_t s) {
    Strip strip;
    strip.window = Window{0, s * strip_rows, info.width, std::min(strip_rows, info.height - s * strip_rows)};
    strip.features = buffers[s % 2];
    strip.features->resize(static_cast<size_t>(strip.window.width * strip.window.height * info.bands));
    source.read(strip.window, strip.features->data());
    return strip;
  };
  stream_rows<Strip>(
      strips, read, [&](int64_t, Strip& strip) { compute(strip.window, strip.features->data()); }, progress);
}

}  // namespace lsm
