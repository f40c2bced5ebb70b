#include "overviews.h"

#include "error.h"
#include "overview_math.h"

namespace lsm {

OverviewMethod parse_overview_method(const std::string& name) {
  if (name == "average") return OverviewMethod::Average;
  if (name == "mode") return OverviewMethod::Mode;
  throw Error(ErrorKind::BadInput, "overview resampling must be average or mode, not '" + name + "'");
}

std::vector<int> overview_factors(int64_t width, int64_t height, int64_t smallest) {
  std::vector<int> factors;
  for (int f = 2; f < (1 << 30); f *= 2) {
    if (std::max(overview_size(width, f / 2), overview_size(height, f / 2)) <= smallest) break;
    factors.push_back(f);
  }
  return factors;
}

OverviewGeometry overview_geometry(int64_t source_width, int64_t source_height) {
  OverviewGeometry g;
  g.source_width = source_width;
  g.source_height = source_height;
  g.width = overview_size(source_width, 2);
  g.height = overview_size(source_height, 2);
  g.ratio_x = static_cast<double>(source_width) / static_cast<double>(g.width);
  g.ratio_y = static_cast<double>(source_height) / static_cast<double>(g.height);
  return g;
}

void overview_source_rows(const OverviewGeometry& g, int64_t y0, int64_t y1, int64_t* first, int64_t* last) {
  *first = overview_math::axis_window(y0, g.ratio_y, g.source_height).lo;
  *last = overview_math::axis_window(y1 - 1, g.ratio_y, g.source_height).hi;
}

namespace {

class CpuOverviewPass final : public OverviewPass {
 public:
  void reduce(const OverviewGeometry& g, OverviewMethod method, const float* source, int64_t source_row0, int64_t,
              int64_t y0, int64_t rows, float* out) override {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      const overview_math::AxisWindow wy = overview_math::axis_window(y0 + r, g.ratio_y, g.source_height);
      for (int64_t x = 0; x < g.width; ++x) {
        const overview_math::AxisWindow wx = overview_math::axis_window(x, g.ratio_x, g.source_width);
        out[r * g.width + x] = method == OverviewMethod::Average
                                   ? overview_math::average(source, source_row0, g.source_width, wx, wy)
                                   : overview_math::mode(source, source_row0, g.source_width, wx, wy);
      }
    }
  }
  const char* name() const override { return "cpu"; }
};

}  // namespace

std::unique_ptr<OverviewPass> make_cpu_overview_pass() { return std::make_unique<CpuOverviewPass>(); }

}  // namespace lsm
