// gradient: Gaussian-derivative gradients of one band (or of the grey levels
// of an RGB photo) as 4 Float32 bands: gx, gy, magnitude, orientation
// (radians); NaN = nodata. lsm gradient INPUT OUTPUT.tif; LSM:gradient.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "common_parameters.h"
#include "error.h"
#include "gdal_feature_raster.h"
#include "geotiff_output.h"
#include "gradient.h"
#include "grey.h"
#include "operations.h"

namespace lsm::ops {

namespace {

// LSM:gradient, streamed: the four bands computed a strip of rows (one block
// row, full width, with its halo) at a time, as the driver asks for blocks.
class GradientStream final : public StreamedRaster {
 public:
  explicit GradientStream(const ParameterValues& v)
      : grey_(v.flag("grey")),
        source_(v.text("input"), grey_ ? std::vector<int>{1, 2, 3} : std::vector<int>{static_cast<int>(v.given("band") ? v.integer("band") : 1)}),
        grey_levels_(source_, 1.0),
        kernels_(gradient_kernels(v.number("sigma"), static_cast<int>(v.integer("radius")))),
        pass_(make_gradient_pass(parse_backend(v.text("backend")))) {
    const FeatureRasterInfo info = source_.info();
    shape.width = info.width;
    shape.height = info.height;
    shape.bands = kGradientPlanes;
    shape.type = CellType::Float32;
    shape.nodata = std::numeric_limits<double>::quiet_NaN();
    shape.block_width = info.block_width;
    shape.block_height = info.block_height;
    shape.georef = georeference_of(source_.dataset());
    shape.band_names = {"gx", "gy", "magnitude", "orientation"};
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    const int64_t width = shape.width, bw = shape.block_width, bh = shape.block_height;
    const int64_t y0 = by * bh, rows = std::min<int64_t>(bh, shape.height - y0);
    if (by != strip_) {
      FeatureRasterSource& source = grey_ ? static_cast<FeatureRasterSource&>(grey_levels_) : source_;
      read_padded_rows(source, y0, rows, kernels_.radius, padded_);
      planes_.resize(static_cast<size_t>(kGradientPlanes * rows * width));
      pass_->run(kernels_, padded_.data(), width, rows, planes_.data());
      strip_ = by;
    }
    // Block (bx, by) of the band's plane, which holds the strip's rows.
    const float* plane = planes_.data() + (band - 1) * rows * width;
    const int64_t x0 = bx * bw, w = std::min<int64_t>(bw, width - x0);
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(static_cast<float*>(out) + r * bw, plane + r * width + x0, sizeof(float) * static_cast<size_t>(w));
  }

 private:
  bool grey_;
  GdalFeatureRaster source_;
  GreyFeatureRaster grey_levels_;
  GradientKernels kernels_;
  std::unique_ptr<GradientPass> pass_;
  int64_t strip_ = -1;
  std::vector<float> padded_, planes_;
};

OperationSpec gradient_spec() {
  OperationSpec s;
  s.name = "gradient";
  s.summary = "Gaussian-derivative gradients: gx, gy, magnitude, orientation";
  s.title = "Gradients";
  s.category = "Image analysis";
  s.manual = "GRADIENT.md";
  s.usage = "usage: lsm gradient INPUT OUTPUT.tif [--sigma S] [--radius R] [options]";
  s.parameters = joined(
      {
          input_raster("input", "input raster or photo (any format GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputRaster, "output", "output GeoTIFF: bands gx, gy, magnitude, orientation (Float32)").drawn_as(RasterStyle::Continuous).titled("Gradients")
              .needed()
              .at_position(2)
              .only(kCommandLine | kService),  // the service names it itself
          number("sigma", "Gaussian sigma").with_default("1").at_least(0.01).at_most(100).in("cells"),
          integer("radius", "kernel radius (1..32): 3 = the paper's 7 taps").with_default("3").at_least(1).at_most(32).in("cells"),
          integer("band", "the band to differentiate (default 1)").band_of_input().at_least(1).at_most(65535),
          flag("grey", "differentiate the grey levels of bands 1-3 (R, G, B): 0.2125 R + 0.7154 G + 0.0721 B"),
          backend_parameter(),
          integer("strip-rows", "rows per streamed strip").with_default("256").at_least(1).at_most(1000000).in("rows").also_spelled("tile-size").technical().only(kCommandLine),
          memory_limit_parameter("strips of rows, their four gradient planes"),
          staging_dir_parameter(),
          quiet_parameter(),
      },
      raster_output_parameters());
  s.rules = {excludes("grey", "band")};
  s.serving.streamed = [](const ParameterValues& v) -> std::unique_ptr<StreamedRaster> {
    return std::make_unique<GradientStream>(v);
  };
  return s;
}

void run_gradient_operation(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  const bool grey = v.flag("grey");
  GradientOptions o;
  o.sigma = v.number("sigma");
  o.radius = static_cast<int>(v.integer("radius"));
  o.strip_rows = v.integer("strip-rows");
  gradient_kernels(o.sigma, o.radius);  // validates before any output exists

  const int band = v.given("band") ? static_cast<int>(v.integer("band")) : 1;
  GdalFeatureRaster raster(v.text("input"), grey ? std::vector<int>{1, 2, 3} : std::vector<int>{band});
  GreyFeatureRaster grey_levels(raster, 1.0);  // raw values: gradients in the input's units
  FeatureRasterSource& source = grey ? static_cast<FeatureRasterSource&>(grey_levels) : raster;
  const FeatureRasterInfo info = source.info();
  // A strip and its halo: the input bands read ahead and in use, the four
  // planes, their interleaved copy and the pass's own buffers.
  const double strip_rows = double(std::min<int64_t>(o.strip_rows, info.height) + 2 * o.radius);
  require_memory(v, context, strip_rows * double(info.width) * (8.0 * (raster.info().bands + 1) + 48),
                 "strips of " + std::to_string(int64_t(strip_rows)) + " rows of " + std::to_string(info.width) + " cells");
  auto pass = make_gradient_pass(parse_backend(v.text("backend")));

  GeoTiffOutput out(v.text("output"), format, info.width, info.height, GDT_Float32, georeference_of(raster.dataset()),
                    std::numeric_limits<double>::quiet_NaN(), kGradientPlanes);
  const char* names[kGradientPlanes] = {"gx", "gy", "magnitude", "orientation"};
  for (int p = 0; p < kGradientPlanes; ++p) out.describe_band(p + 1, names[p]);
  std::vector<float> interleaved;  // one write per strip, whole blocks at a time (write_interleaved)
  run_gradient(
      source, o, *pass,
      [&](const Window& w, const float* planes) {
        const int64_t cells = w.width * w.height;
        interleaved.resize(static_cast<size_t>(cells * kGradientPlanes));
        for (int p = 0; p < kGradientPlanes; ++p)
          for (int64_t i = 0; i < cells; ++i) interleaved[i * kGradientPlanes + p] = planes[p * cells + i];
        out.write_interleaved(w, interleaved.data());
      },
      context.checked_progress());
  out.commit();
}

}  // namespace

Operation gradient_operation() { return {gradient_spec(), run_gradient_operation}; }

}  // namespace lsm::ops
