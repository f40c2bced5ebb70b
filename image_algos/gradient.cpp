#include "gradient.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "error.h"
#include "tile_scheduler.h"

namespace lsm {

GradientKernels gradient_kernels(double sigma, int radius) {
  if (!(sigma > 0) || !std::isfinite(sigma))
    throw Error(ErrorKind::BadInput, "--sigma must be a positive number of cells");
  if (radius < 1 || radius > 32) throw Error(ErrorKind::BadInput, "--radius must be between 1 and 32 cells");
  std::vector<double> g(2 * radius + 1);
  double sum = 0, moment = 0;
  for (int i = -radius; i <= radius; ++i) sum += g[i + radius] = std::exp(-double(i) * i / (2 * sigma * sigma));
  for (int i = -radius; i <= radius; ++i) moment += double(i) * i * g[i + radius] / sum;
  GradientKernels k;
  k.radius = radius;
  for (int i = -radius; i <= radius; ++i) {
    k.smooth.push_back(static_cast<float>(g[i + radius] / sum));
    k.derivative.push_back(static_cast<float>(i * g[i + radius] / sum / moment));
  }
  return k;
}

namespace {

// A strip's rows with their halo, and where they go.
struct PaddedStrip {
  Window window;
  std::vector<float> rows;  // (window.height + 2R) x width
};

}  // namespace

void read_padded_rows(FeatureRasterSource& source, int64_t y0, int64_t rows, int64_t radius,
                      std::vector<float>& padded) {
  const FeatureRasterInfo info = source.info();
  const int64_t width = info.width, height = info.height;
  // The rows the halo reaches inside the raster, read at once; rows beyond
  // the edges repeat the edge row.
  const int64_t first = std::max<int64_t>(0, y0 - radius), last = std::min(height, y0 + rows + radius);
  std::vector<float> inside(static_cast<size_t>((last - first) * width));
  source.read(Window{0, first, width, last - first}, inside.data());
  padded.resize(static_cast<size_t>((rows + 2 * radius) * width));
  for (int64_t p = 0; p < rows + 2 * radius; ++p) {
    const int64_t y = std::clamp(y0 - radius + p, int64_t(0), height - 1);
    std::copy_n(inside.data() + (y - first) * width, width, padded.data() + p * width);
  }
}

void run_gradient(FeatureRasterSource& source, const GradientOptions& o, GradientPass& pass, const GradientSink& sink,
                  const ProgressFn& progress) {
  const FeatureRasterInfo info = source.info();
  if (info.bands != 1)
    throw Error(ErrorKind::BadInput, "the gradient takes one band (got " + std::to_string(info.bands) + ")");
  if (o.strip_rows < 1) throw Error(ErrorKind::BadInput, "the strip height must be positive");
  const GradientKernels k = gradient_kernels(o.sigma, o.radius);
  const int64_t width = info.width, height = info.height, r = k.radius;
  const int64_t strips = height == 0 ? 0 : (height + o.strip_rows - 1) / o.strip_rows;
  auto read = [&](int64_t s) {
    PaddedStrip strip;
    const int64_t y0 = s * o.strip_rows, h = std::min(o.strip_rows, height - y0);
    strip.window = Window{0, y0, width, h};
    read_padded_rows(source, y0, h, r, strip.rows);
    return strip;
  };
  std::vector<float> planes;
  stream_rows<PaddedStrip>(
      strips, read,
      [&](int64_t, PaddedStrip& strip) {
        planes.resize(static_cast<size_t>(kGradientPlanes * strip.window.height * width));
        pass.run(k, strip.rows.data(), width, strip.window.height, planes.data());
        sink(strip.window, planes.data());
      },
      progress);
}

}  // namespace lsm
