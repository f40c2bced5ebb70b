// lsm gradient INPUT OUTPUT.tif: Gaussian-derivative gradients of one band
// (or of the grey levels of an RGB photo) as a 4-band Float32 GeoTIFF: gx,
// gy, magnitude, orientation (radians); NaN = nodata.
#include <limits>

#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "gdal_feature_raster.h"
#include "geotiff_output.h"
#include "gradient.h"
#include "grey.h"

namespace lsm::cli {

int run_gradient(const std::vector<std::string>& args) {
  std::string input, output, backend = "auto";
  GradientOptions o;
  int band = 0;
  bool grey = false, quiet = false;
  po::options_description desc("lsm gradient options");
  desc.add_options()
      ("input", po::value(&input)->required(), "input raster or photo (any format GDAL reads)")
      ("output", po::value(&output)->required(), "output GeoTIFF: bands gx, gy, magnitude, orientation (Float32)")
      ("sigma", po::value(&o.sigma)->default_value(1.0), "Gaussian sigma (cells)")
      ("radius", po::value(&o.radius)->default_value(3), "kernel radius (cells, 1..32): 3 = the paper's 7 taps")
      ("band", po::value(&band), "the band to differentiate (default 1)")
      ("grey", po::bool_switch(&grey), "differentiate the grey levels of bands 1-3 (R, G, B): 0.2125 R + 0.7154 G + 0.0721 B")
      ("backend", po::value(&backend)->default_value("auto"), "auto, cpu or cuda")
      ("tile-size", po::value(&o.strip_rows)->default_value(256), "rows per streamed strip")
      ("quiet,q", po::bool_switch(&quiet), "no progress output");
  add_raster_output_options(desc);
  po::positional_options_description pos;
  pos.add("input", 1).add("output", 1);
  if (!parse(args, desc, pos, "usage: lsm gradient INPUT OUTPUT.tif [--sigma S] [--radius R] [options]")) return 0;
  if (grey && band) throw Error(ErrorKind::BadInput, "--grey and --band exclude each other");
  if (o.strip_rows < 1) throw Error(ErrorKind::BadInput, "--tile-size must be positive");
  gradient_kernels(o.sigma, o.radius);  // validates before any output exists

  GdalFeatureRaster raster(input, grey ? std::vector<int>{1, 2, 3} : std::vector<int>{band ? band : 1});
  GreyFeatureRaster grey_levels(raster, 1.0);  // raw values: gradients in the input's units
  FeatureRasterSource& source = grey ? static_cast<FeatureRasterSource&>(grey_levels) : raster;
  const FeatureRasterInfo info = source.info();
  auto pass = make_gradient_pass(parse_backend(backend));

  GeoTiffOutput out(output, info.width, info.height, GDT_Float32, georeference_of(raster.dataset()),
                    std::numeric_limits<double>::quiet_NaN(), kGradientPlanes);
  const char* names[kGradientPlanes] = {"gx", "gy", "magnitude", "orientation"};
  for (int p = 0; p < kGradientPlanes; ++p) out.describe_band(p + 1, names[p]);
  run_gradient(
      source, o, *pass,
      [&](const Window& w, const float* planes) {
        for (int p = 0; p < kGradientPlanes; ++p) out.write(w, planes + p * w.width * w.height, GDT_Float32, p + 1);
      },
      terminal_progress(quiet));
  out.commit();
  return 0;
}

}  // namespace lsm::cli
