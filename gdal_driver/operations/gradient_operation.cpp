// gradient: Gaussian-derivative gradients of one band (or of the grey levels
// of an RGB photo) as 4 Float32 bands: gx, gy, magnitude, orientation
// (radians); NaN = nodata. lsm gradient INPUT OUTPUT.tif; LSM:gradient.
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

OperationSpec gradient_spec() {
  OperationSpec s;
  s.name = "gradient";
  s.summary = "Gaussian-derivative gradients: gx, gy, magnitude, orientation";
  s.title = "Gradients";
  s.category = "Image analysis";
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
          integer("band", "the band to differentiate (default 1)").at_least(1).at_most(65535),
          flag("grey", "differentiate the grey levels of bands 1-3 (R, G, B): 0.2125 R + 0.7154 G + 0.0721 B"),
          backend_parameter(),
          integer("tile-size", "rows per streamed strip").with_default("256").at_least(1).at_most(1000000).technical().only(kCommandLine),
          quiet_parameter(),
      },
      raster_output_parameters());
  return s;
}

void run_gradient_operation(const ParameterValues& v, const RunContext& context) {
  apply_raster_output_format(v);
  const bool grey = v.flag("grey");
  if (grey && v.given("band")) throw Error(ErrorKind::BadInput, v.spelled("grey") + " and " + v.spelled("band") + " exclude each other");
  GradientOptions o;
  o.sigma = v.number("sigma");
  o.radius = static_cast<int>(v.integer("radius"));
  o.strip_rows = v.integer("tile-size");
  gradient_kernels(o.sigma, o.radius);  // validates before any output exists

  const int band = v.given("band") ? static_cast<int>(v.integer("band")) : 1;
  GdalFeatureRaster raster(v.text("input"), grey ? std::vector<int>{1, 2, 3} : std::vector<int>{band});
  GreyFeatureRaster grey_levels(raster, 1.0);  // raw values: gradients in the input's units
  FeatureRasterSource& source = grey ? static_cast<FeatureRasterSource&>(grey_levels) : raster;
  const FeatureRasterInfo info = source.info();
  auto pass = make_gradient_pass(parse_backend(v.text("backend")));

  GeoTiffOutput out(v.text("output"), info.width, info.height, GDT_Float32, georeference_of(raster.dataset()),
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
