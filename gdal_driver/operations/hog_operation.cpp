// hog: HOG descriptors (scikit-image's variant, or Dalal & Triggs' with
// OpenCV's constants) as a .npy array in skimage's feature_vector=False
// layout, or as a georeferenced raster of one band per descriptor element and
// one cell per block position; pyramid=N,S does it on every pyramid level.
// lsm hog INPUT OUTPUT; LSM:hog.
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>

#include "common_parameters.h"
#include "error.h"
#include "gdal_feature_raster.h"
#include "geotiff_output.h"
#include "hog.h"
#include "npy_file.h"
#include "operations.h"
#include "pyramid.h"

namespace lsm::ops {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "N,S": levels and scale of --pyramid.
PyramidOptions parse_pyramid(const std::string& text) {
  PyramidOptions p;
  std::stringstream in(text);
  char comma = 0;
  if (!(in >> p.levels >> comma >> p.scale) || comma != ',' || !in.eof())
    throw Error(ErrorKind::BadInput, "must be LEVELS,SCALE (e.g. 31,1.05), not '" + text + "'");
  return p;
}

// OUTPUT with _level_NN before its extension.
std::string level_output(const std::string& output, int level) {
  const size_t dot = output.find_last_of('.'), slash = output.find_last_of('/');
  const size_t at = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? output.size() : dot;
  char tag[32];
  std::snprintf(tag, sizeof tag, "_level_%02d", level);
  return output.substr(0, at) + tag + output.substr(at);
}

// An output written under its temporary name; calling it renames it into
// place. Dropped uncalled (an error, a signal), it leaves nothing.
using PendingOutput = std::function<void()>;

// Writes one image's descriptors to `path` (.npy or a GeoTIFF), not yet in place.
PendingOutput write_hog(FeatureRasterSource& source, const HogOptions& o, HogPass& pass, const std::string& path,
                        const RasterFormat& format, const GeoReference& georef, const ProgressFn& progress) {
  const FeatureRasterInfo info = source.info();
  const HogGeometry g = hog_geometry(info.width, info.height, o);
  if (ends_with(path, ".npy")) {
    auto npy = std::make_shared<NpyWriter>(path, std::vector<int64_t>{g.blocks_y, g.blocks_x, o.block, o.block, o.bins});
    run_hog(source, o, pass, [&](int64_t, int64_t rows, const double* d) {
      npy->append(d, rows * g.blocks_x * g.descriptor_length);
    }, progress);
    return [npy] { npy->commit(); };
  }
  auto tiff = std::make_shared<GeoTiffOutput>(path, format, g.blocks_x, g.blocks_y, GDT_Float32,
                                              scale_cells(georef, o.cell, o.cell),
                                              std::numeric_limits<double>::quiet_NaN(), g.descriptor_length);
  GeoTiffOutput& out = *tiff;
  for (int e = 0; e < g.descriptor_length; ++e) {
    const int cell = e / o.bins, bin = e % o.bins;
    out.describe_band(e + 1, "cell " + std::to_string(cell / o.block) + "," + std::to_string(cell % o.block) +
                                 " bin " + std::to_string(bin));
  }
  std::vector<float> values;  // the block rows, cell-interleaved
  run_hog(source, o, pass, [&](int64_t first, int64_t rows, const double* d) {
    values.assign(d, d + rows * g.blocks_x * g.descriptor_length);
    out.write_interleaved(Window{0, first, g.blocks_x, rows}, values.data());
  }, progress);
  return [tiff] { tiff->commit(); };
}

OperationSpec hog_spec() {
  OperationSpec s;
  s.name = "hog";
  s.summary = "HOG descriptors (GeoTIFF raster or .npy)";
  s.title = "HOG descriptors";
  s.category = "Image analysis";
  s.manual = "IMAGE_FEATURES.md";
  s.usage = "usage: lsm hog INPUT OUTPUT[.npy] [--cell 8] [--block 3] [--norm L2-Hys] [options]";
  s.parameters = joined(
      {
          input_raster("input", "input raster or photo (any format GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputFile, "output",
                 "OUTPUT.npy (skimage's hog(..., feature_vector=False) array) or a GeoTIFF of one band per descriptor element")
              .needed()
              .at_position(2)
              .making({{"output", ".tif", kCogMediaType, "HOG descriptors: one band per descriptor element, one cell per block position"}})
              .only(kCommandLine | kService),  // the service names it itself
          integer("cell", "pixels per cell side").with_default("8").at_least(1).at_most(64).in("pixels"),
          integer("block", "cells per block side").with_default("3").at_least(1).at_most(8).in("cells"),
          integer("bins", "orientation bins").with_default("9").at_least(1).at_most(180),
          flag("signed", "orientations over 0-360 degrees instead of 0-180"),
          text("norm", "block normalisation: L1, L1-sqrt, L2 or L2-Hys (clip 0.2)")
              .one_of({"L1", "L1-sqrt", "L2", "L2-Hys"})
              .with_default("L2-Hys"),
          text("variant", "skimage: scikit-image's hog() exactly, on grey levels in [0, 1]; dalal-triggs: Gaussian block "
                          "window and trilinear votes as OpenCV's HOGDescriptor, on the values as stored, each band's own gradient")
              .one_of({"skimage", "dalal-triggs"})
              .with_default("skimage"),
          number("window-sigma", "dalal-triggs: sigma of the block's Gaussian window (0: block * cell / 4, OpenCV's default)")
              .with_default("0")
              .at_least(0)
              .at_most(1000)
              .in("pixels"),
          integer("band", "use this band (default: the grey levels of bands 1-3, or band 1 of a 1-band input)").band_of_input().at_least(1).at_most(65535),
          text("pyramid", "LEVELS,SCALE: descriptors of every bilinear pyramid level, to OUTPUT_level_NN (level 00 = the input)")
              .only(kCommandLine)
              .checked_by([](const std::string& v) { parse_pyramid(v); }),
          backend_parameter(),
          integer("strip-cell-rows", "cell rows per streamed strip").with_default("64").at_least(1).at_most(1000000).in("cell rows").also_spelled("tile-size").technical().only(kCommandLine),
          memory_limit_parameter("strips of cell rows, their gradients, histograms and block descriptors"),
          staging_dir_parameter(),
          quiet_parameter(),
      },
      raster_output_parameters());
  return s;
}

void run_hog_operation(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  HogOptions o;
  o.cell = static_cast<int>(v.integer("cell"));
  o.block = static_cast<int>(v.integer("block"));
  o.bins = static_cast<int>(v.integer("bins"));
  o.signed_orientation = v.flag("signed");
  o.norm = parse_hog_norm(v.text("norm"));
  o.variant = parse_hog_variant(v.text("variant"));
  o.window_sigma = v.number("window-sigma");
  o.strip_cells = v.integer("strip-cell-rows");
  const std::string input = v.text("input"), output = v.text("output");

  std::vector<int> bands{static_cast<int>(v.integer("band"))};
  if (!v.given("band")) {
    GdalFeatureRaster probe(input, {});
    bands = probe.info().bands >= 3 ? std::vector<int>{1, 2, 3} : std::vector<int>{1};
  }
  GdalFeatureRaster raster(input, bands);
  // skimage works on img_as_float's [0, 1]; OpenCV's HOG on the stored values
  // (its L2-Hys constants assume 0..255 for 8-bit photos).
  o.value_divisor = o.variant == HogVariant::Skimage ? raster.unit_range_divisor() : 1.0;
  const FeatureRasterInfo info = raster.info();
  const GeoReference georef = georeference_of(raster.dataset());
  {  // a strip of cell rows (with its blocks' overlap): pixels, gradients, histograms, descriptors
    const double rows = double(std::min<int64_t>((o.strip_cells + o.block) * o.cell, info.height));
    const double descriptors = double(o.strip_cells + o.block) * (double(info.width) / o.cell) * o.block * o.block * o.bins;
    require_memory(v, context, rows * double(info.width) * (8.0 * (info.bands + 1) + 32) + descriptors * 16.0,
                   "strips of " + std::to_string(int64_t(rows)) + " rows of " + std::to_string(info.width) +
                       " pixels and their block descriptors");
  }
  auto pass = make_hog_pass(parse_backend(v.text("backend")));
  const ProgressFn progress = context.checked_progress();
  if (!v.given("pyramid")) {
    hog_geometry(info.width, info.height, o);
    write_hog(raster, o, *pass, output, format, georef, progress)();
    return;
  }
  const auto sizes = pyramid_sizes(info.width, info.height, parse_pyramid(v.text("pyramid")));
  for (size_t l = 0; l < sizes.size(); ++l) {  // every level must hold a block before anything is written
    try {
      hog_geometry(sizes[l].first, sizes[l].second, o);
    } catch (const Error&) {
      throw Error(ErrorKind::BadInput, v.spelled("pyramid") + ": level " + std::to_string(l) + " (" +
                                           std::to_string(sizes[l].first) + " x " + std::to_string(sizes[l].second) +
                                           ") is smaller than one HOG block; use at most " + std::to_string(l) + " levels");
    }
  }
  auto resampler = make_pyramid_pass(parse_backend(v.text("backend")));
  double total = 0, done = 0;
  for (const auto& s : sizes) total += double(s.first) * double(s.second);
  // The levels appear together, once all are written: a failed or stopped
  // run leaves none (as lsm pyramid).
  std::vector<PendingOutput> levels;
  for (size_t l = 0; l < sizes.size(); ++l) {
    const auto [w, h] = sizes[l];
    PyramidLevelRaster level(raster, w, h, Resampling::Bilinear, *resampler);
    const double share = double(w) * double(h) / total;
    levels.push_back(write_hog(level, o, *pass, level_output(output, int(l)), format,
                               scale_cells(georef, double(info.width) / w, double(info.height) / h),
                               scaled_progress(progress, done, done + share)));
    done += share;
  }
  for (const PendingOutput& commit : levels) commit();
}

}  // namespace

Operation hog_operation() { return {hog_spec(), run_hog_operation}; }

}  // namespace lsm::ops
