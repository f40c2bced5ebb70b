// The CPU reference of the gradient pass: the horizontal correlations of all
// padded rows, then the vertical ones (gradient_math.h), row by row in
// parallel.
#include <omp.h>

#include <cmath>
#include <vector>

#include "gradient.h"
#include "gradient_math.h"

namespace lsm {

namespace {

class CpuGradientPass final : public GradientPass {
 public:
  void run(const GradientKernels& k, const float* padded, int64_t width, int64_t rows, float* out) override {
    const int r = k.radius;
    const int64_t padded_rows = rows + 2 * r;
    // Horizontal: smoothed and differentiated copies of every padded row.
    smooth_.resize(static_cast<size_t>(padded_rows * width));
    derived_.resize(smooth_.size());
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < padded_rows; ++y) {
      const float* row = padded + y * width;
      for (int64_t x = 0; x < width; ++x) {
        smooth_[y * width + x] = gradient_math::correlate_row(row, width, x, k.smooth.data(), r);
        derived_[y * width + x] = gradient_math::correlate_row(row, width, x, k.derivative.data(), r);
      }
    }
    // Vertical: gx from the differentiated rows, gy from the smoothed ones.
    const int64_t plane = rows * width;
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < rows; ++y)
      for (int64_t x = 0; x < width; ++x) {
        const int64_t i = y * width + x;
        const float gx = gradient_math::correlate_column(derived_.data() + i, width, k.smooth.data(), r);
        const float gy = gradient_math::correlate_column(smooth_.data() + i, width, k.derivative.data(), r);
        out[kGradientX * plane + i] = gx;
        out[kGradientY * plane + i] = gy;
        out[kGradientMagnitude * plane + i] = gradient_math::magnitude(gx, gy);
        out[kGradientOrientation * plane + i] = std::atan2(gy, gx);
      }
  }
  const char* name() const override { return "cpu"; }

 private:
  std::vector<float> smooth_, derived_;
};

}  // namespace

std::unique_ptr<GradientPass> make_cpu_gradient_pass() { return std::make_unique<CpuGradientPass>(); }

}  // namespace lsm
