// Pyramid levels on the CPU: the reference pass (pyramid_math.h), OpenMP over
// the level's pixels.
#include "pyramid.h"
#include "pyramid_math.h"

namespace lsm {

namespace {

class CpuPyramidPass final : public PyramidPass {
 public:
  void resample(const LevelMapping& m, int bands, const float* source, int64_t source_y0, int64_t /*source_rows*/,
                int64_t y0, int64_t rows, float* level) override {
    const pyramid_math::SourceRows s{source, m.source_width, m.source_height, source_y0, bands};
    const int64_t pixels = rows * m.width;
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < pixels; ++p) {
      const int64_t y = y0 + p / m.width, x = p % m.width;
      for (int b = 0; b < bands; ++b) level[p * bands + b] = pyramid_math::sample(m, s, x, y, b);
    }
  }
  const char* name() const override { return "cpu"; }
};

}  // namespace

std::unique_ptr<PyramidPass> make_cpu_pyramid_pass() { return std::make_unique<CpuPyramidPass>(); }

}  // namespace lsm
