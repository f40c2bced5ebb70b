#include "pyramid.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "error.h"
#include "pyramid_math.h"

namespace lsm {

Resampling parse_resampling(const std::string& name) {
  if (name == "bilinear") return Resampling::Bilinear;
  if (name == "area") return Resampling::Area;
  if (name == "gaussian") return Resampling::Gaussian;
  throw Error(ErrorKind::BadInput, "--resampling must be bilinear, area or gaussian, not '" + name + "'");
}

std::vector<std::pair<int64_t, int64_t>> pyramid_sizes(int64_t width, int64_t height, const PyramidOptions& o) {
  if (o.levels < 1 || o.levels > 1000) throw Error(ErrorKind::BadInput, "--levels must be between 1 and 1000");
  if (!(o.scale > 1) || !std::isfinite(o.scale)) throw Error(ErrorKind::BadInput, "--scale must be a number above 1");
  if (width < 1 || height < 1) throw Error(ErrorKind::BadInput, "the input has no pixels");
  std::vector<std::pair<int64_t, int64_t>> sizes;
  for (int l = 0; l < o.levels; ++l) {
    const double factor = std::pow(o.scale, l);
    const int64_t w = std::llround(width / factor), h = std::llround(height / factor);
    if (w < 1 || h < 1)
      throw Error(ErrorKind::BadInput, "level " + std::to_string(l) + " of a " + std::to_string(width) + " x " +
                                           std::to_string(height) + " image would be smaller than one pixel at scale " +
                                           std::to_string(o.scale) + "; use at most " + std::to_string(l) + " levels");
    sizes.emplace_back(w, h);
  }
  return sizes;
}

namespace {

// Gaussian taps of sigma = 2 s / 6 to round(4 sigma) (skimage's pyramid_reduce
// and gaussian(truncate=4)); none when the level does not shrink.
int gaussian_taps(double scale, float* taps) {
  if (scale <= 1) return 0;
  const double sigma = 2 * scale / 6;
  const int radius = std::max(1, static_cast<int>(std::lround(4 * sigma)));
  if (radius > 32)
    throw Error(ErrorKind::BadInput, "gaussian resampling reaches at most 24 times smaller than its source (this level "
                                     "is " + std::to_string(scale) + " times smaller): use --from previous");
  double g[65], sum = 0;
  for (int i = -radius; i <= radius; ++i) sum += g[i + radius] = std::exp(-double(i) * i / (2 * sigma * sigma));
  for (int i = -radius; i <= radius; ++i) taps[i + radius] = static_cast<float>(g[i + radius] / sum);
  return radius;
}

}  // namespace

LevelMapping level_mapping(int64_t source_width, int64_t source_height, int64_t width, int64_t height,
                           Resampling resampling) {
  if (width < 1 || height < 1 || source_width < 1 || source_height < 1)
    throw Error(ErrorKind::BadInput, "a pyramid level needs at least one pixel");
  LevelMapping m;
  m.source_width = source_width;
  m.source_height = source_height;
  m.width = width;
  m.height = height;
  m.scale_x = double(source_width) / double(width);
  m.scale_y = double(source_height) / double(height);
  m.resampling = resampling;
  if (resampling == Resampling::Gaussian) {
    m.radius_x = gaussian_taps(m.scale_x, m.taps_x);
    m.radius_y = gaussian_taps(m.scale_y, m.taps_y);
    // One axis smoothed alone still needs the other's identity tap.
    if (m.radius_x == 0 && m.radius_y > 0) m.taps_x[0] = 1;
    if (m.radius_y == 0 && m.radius_x > 0) m.taps_y[0] = 1;
  }
  return m;
}

void source_rows_for(const LevelMapping& m, int64_t y0, int64_t y1, int64_t* first, int64_t* last) {
  if (m.resampling == Resampling::Area) {
    double b, e;
    int64_t lo, hi, unused;
    pyramid_math::footprint(y0, m.scale_y, m.source_height, &b, &e, &lo, &unused);
    pyramid_math::footprint(y1 - 1, m.scale_y, m.source_height, &b, &e, &unused, &hi);
    *first = lo;
    *last = hi;
    return;
  }
  int64_t top, bottom;
  float a;
  pyramid_math::linear_position(y0, m.scale_y, m.source_height, &top, &a);
  pyramid_math::linear_position(y1 - 1, m.scale_y, m.source_height, &bottom, &a);
  *first = std::max<int64_t>(0, top - m.radius_y);
  *last = std::min<int64_t>(m.source_height, bottom + 2 + m.radius_y);
}

PyramidLevelRaster::PyramidLevelRaster(FeatureRasterSource& source, int64_t width, int64_t height,
                                       Resampling resampling, PyramidPass& pass)
    : source_(source), pass_(pass) {
  const FeatureRasterInfo s = source.info();
  mapping_ = level_mapping(s.width, s.height, width, height, resampling);
  info_ = s;
  info_.width = width;
  info_.height = height;
}

void PyramidLevelRaster::read(const Window& w, float* out) {
  if (w.width == 0 || w.height == 0) return;
  const int bands = info_.bands;
  int64_t first, last;
  source_rows_for(mapping_, w.y0, w.y0 + w.height, &first, &last);
  source_rows_.resize(static_cast<size_t>((last - first) * mapping_.source_width * bands));
  source_.read(Window{0, first, mapping_.source_width, last - first}, source_rows_.data());
  const bool full_width = w.x0 == 0 && w.width == info_.width;
  if (!full_width) level_rows_.resize(static_cast<size_t>(w.height * info_.width * bands));
  float* rows = full_width ? out : level_rows_.data();
  pass_.resample(mapping_, bands, source_rows_.data(), first, last - first, w.y0, w.height, rows);
  if (!full_width)
    for (int64_t r = 0; r < w.height; ++r)
      std::copy_n(rows + (r * info_.width + w.x0) * bands, w.width * bands, out + r * w.width * bands);
}

}  // namespace lsm
