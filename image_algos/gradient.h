#pragma once
// Gaussian-derivative image gradients (`lsm gradient`, issue 6): separable
// convolution of one band with a Gaussian G and its derivative D, as in
// Zhang, Chai & Yu 2015 (7-tap kernels: sigma 1, radius 3):
//   gx = (I correlated with D along x) then with G along y,
//   gy = (I correlated with G along x) then with D along y,
//   magnitude = sqrt(gx^2 + gy^2), orientation = atan2(gy, gx) in radians,
//   in (-pi, pi].
// x grows with the column, y with the row (downwards, the raster's order).
// Units: intensity per cell. D is scaled so that a ramp I = x gives gx = 1.
// Borders: a cell beyond the raster takes the value of the nearest edge cell
// (OpenCV's BORDER_REPLICATE, GDAL's edge clamping). Nodata (NaN) anywhere in
// a cell's (2R+1) x (2R+1) support makes all four outputs NaN.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "feature_raster.h"
#include "progress.h"
#include "tile_labeler.h"  // Backend

namespace lsm {

/// The two kernels, taps -R..R.
struct GradientKernels {
  int radius = 3;
  std::vector<float> smooth;      ///< G(i) = exp(-i^2 / 2 sigma^2) / sum_j exp(-j^2 / 2 sigma^2)
  std::vector<float> derivative;  ///< D(i) = i G(i) / sum_j j^2 G(j): sum_i i D(i) = 1
};

/// The kernels for `sigma` (cells, > 0) and `radius` (1..32 taps each side).
/// Throws lsm::Error(BadInput) otherwise.
GradientKernels gradient_kernels(double sigma, int radius);

/// The four output planes of a block of rows, each rows x width floats.
enum GradientPlane : int { kGradientX = 0, kGradientY = 1, kGradientMagnitude = 2, kGradientOrientation = 3 };
constexpr int kGradientPlanes = 4;

/// A backend's convolution of one strip. The CPU implementation is the
/// reference; the CUDA one (cuda/gradient_pass_cuda.cu) gives bit-identical
/// gx, gy and magnitude (the same float operations in the same order, no
/// fused multiply-adds) and orientation to 2 ulp (atan2f).
class GradientPass {
 public:
  virtual ~GradientPass() = default;
  /// `padded`: (rows + 2R) x width input rows, row-major, the strip's rows
  /// with R rows above and below (replicated at the raster's edges).
  /// `out`: kGradientPlanes planes of rows x width, plane-major. Columns
  /// beyond the edges are replicated here. Throws lsm::Error(Device).
  virtual void run(const GradientKernels& k, const float* padded, int64_t width, int64_t rows, float* out) = 0;
  virtual const char* name() const = 0;
};

/// The CPU reference, multithreaded with OpenMP.
std::unique_ptr<GradientPass> make_cpu_gradient_pass();

/// The pass of `backend` (Auto: CUDA when a device is present); defined in
/// lsm_engine. Throws lsm::Error(Backend) when CUDA is asked for and absent.
std::unique_ptr<GradientPass> make_gradient_pass(Backend backend);

struct GradientOptions {
  double sigma = 1.0;      ///< cells
  int radius = 3;          ///< taps each side: 7-tap kernels by default
  int64_t strip_rows = 256;  ///< rows per strip through the scheduler (> 0)
};

/// Reads rows [y0, y0 + rows) of a one-band `source` with `radius` rows
/// above and below into `padded` ((rows + 2 radius) x width, row-major),
/// repeating the edge row beyond the raster: GradientPass::run's input.
/// Throws what the source throws.
void read_padded_rows(FeatureRasterSource& source, int64_t y0, int64_t rows, int64_t radius,
                      std::vector<float>& padded);

/// Receives the planes of a window of rows, in row order.
using GradientSink = std::function<void(const Window& window, const float* planes)>;

/// Streams a one-band `source` (nodata = NaN) strip by strip through `pass`,
/// each strip read with its halo of R rows, and hands each strip's planes to
/// `sink`. Results do not depend on strip_rows. Throws lsm::Error(BadInput)
/// for a source of other than one band or bad options, and whatever the
/// source, pass or sink throw.
void run_gradient(FeatureRasterSource& source, const GradientOptions& options, GradientPass& pass,
                  const GradientSink& sink, const ProgressFn& progress = {});

}  // namespace lsm
