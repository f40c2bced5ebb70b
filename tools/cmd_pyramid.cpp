// lsm pyramid INPUT OUTDIR: an image pyramid of every (non-alpha) band as
// OUTDIR/level_00.tif .. level_NN.tif (Float32, NaN = nodata), each
// georeferenced with cells scaled to its size.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>

#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "gdal_feature_raster.h"
#include "geotiff_output.h"
#include "gdal_overviews.h"
#include "overviews.h"
#include "pyramid.h"

namespace lsm::cli {

namespace {

std::string level_path(const std::string& dir, int level) {
  char name[32];
  std::snprintf(name, sizeof name, "level_%02d.tif", level);
  return (std::filesystem::path(dir) / name).string();
}

}  // namespace

int run_pyramid(const std::vector<std::string>& args) {
  std::string input, outdir, resampling = "bilinear", from = "base", backend = "auto", overviews;
  PyramidOptions o;
  int64_t strip_rows = 256;
  bool quiet = false;
  po::options_description desc("lsm pyramid options");
  desc.add_options()
      ("input", po::value(&input)->required(), "input raster or photo (any format GDAL reads)")
      ("outdir", po::value(&outdir), "output folder: level_00.tif (the input) .. level_NN.tif (not with --overviews)")
      ("overviews", po::value(&overviews),
       "instead build the input's GDAL overviews (factors 2, 4, 8 ... down to 256 cells, in INPUT.ovr) with average, or mode for categorical data")
      ("levels", po::value(&o.levels)->default_value(31), "number of levels, the input included")
      ("scale", po::value(&o.scale)->default_value(1.05), "size ratio of consecutive levels (> 1)")
      ("resampling", po::value(&resampling)->default_value("bilinear"), "bilinear, area or gaussian")
      ("from", po::value(&from)->default_value("base"),
       "base: each level from the input (the paper's variant); previous: from the level before")
      ("backend", po::value(&backend)->default_value("auto"), "auto, cpu or cuda")
      ("tile-size", po::value(&strip_rows)->default_value(256), "rows per streamed strip")
      ("quiet,q", po::bool_switch(&quiet), "no progress output");
  add_raster_output_options(desc);
  po::positional_options_description pos;
  pos.add("input", 1).add("outdir", 1);
  if (!parse(args, desc, pos,
             "usage: lsm pyramid INPUT OUTDIR [--levels N] [--scale S] [options]\n"
             "       lsm pyramid INPUT --overviews average|mode [--backend B]"))
    return 0;
  if (!overviews.empty()) {
    if (!outdir.empty()) throw Error(ErrorKind::BadInput, "--overviews writes INPUT.ovr: give no OUTDIR");
    const OverviewMethod method = parse_overview_method(overviews);
    auto pass = make_overview_pass(parse_backend(backend));
    const std::vector<int> factors = build_overviews(input, method, *pass, terminal_progress(quiet));
    if (!quiet) {
      std::string list;
      for (int f : factors) list += " " + std::to_string(f);
      std::cout << (factors.empty() ? "no overviews needed: the raster fits in 256 x 256 cells\n"
                                    : "overviews" + list + " (" + overviews + ", " + pass->name() + ") in " + input + ".ovr\n");
    }
    return 0;
  }
  if (outdir.empty()) throw Error(ErrorKind::BadInput, "give an OUTDIR for the levels, or --overviews");
  o.resampling = parse_resampling(resampling);
  if (from != "base" && from != "previous")
    throw Error(ErrorKind::BadInput, "--from must be base or previous, not '" + from + "'");
  o.from_previous = from == "previous";
  if (strip_rows < 1) throw Error(ErrorKind::BadInput, "--tile-size must be positive");

  GdalFeatureRaster base(input, {});
  const FeatureRasterInfo info = base.info();
  const auto sizes = pyramid_sizes(info.width, info.height, o);
  for (size_t l = 1; l < sizes.size(); ++l)  // fails before anything is written
    level_mapping(o.from_previous ? sizes[l - 1].first : info.width, o.from_previous ? sizes[l - 1].second : info.height,
                  sizes[l].first, sizes[l].second, o.resampling);
  std::error_code ec;
  std::filesystem::create_directories(outdir, ec);
  if (!std::filesystem::is_directory(outdir)) throw Error(ErrorKind::Io, "cannot create folder '" + outdir + "'");
  auto pass = make_pyramid_pass(parse_backend(backend));
  const GeoReference georef = georeference_of(base.dataset());

  double total = 0, done = 0;
  for (const auto& s : sizes) total += double(s.first) * double(s.second);
  const ProgressFn progress = terminal_progress(quiet);
  std::unique_ptr<GdalFeatureRaster> previous;  // the level just written, for --from previous
  for (size_t l = 0; l < sizes.size(); ++l) {
    const auto [w, h] = sizes[l];
    FeatureRasterSource& source = o.from_previous && previous ? static_cast<FeatureRasterSource&>(*previous) : base;
    PyramidLevelRaster level(source, w, h, o.resampling, *pass);
    const std::string path = level_path(outdir, int(l));
    GeoTiffOutput out(path, w, h, GDT_Float32, scale_cells(georef, double(info.width) / w, double(info.height) / h),
                      std::numeric_limits<double>::quiet_NaN(), info.bands);
    const double share = double(w) * double(h) / total;
    stream_feature_strips(level, strip_rows, [&](const Window& win, const float* v) { out.write_interleaved(win, v); },
                          scaled_progress(progress, done, done + share));
    done += share;
    out.commit();
    if (o.from_previous) previous = std::make_unique<GdalFeatureRaster>(path, std::vector<int>{});
  }
  return 0;
}

}  // namespace lsm::cli
