// pyramid: an image pyramid of every (non-alpha) band as OUTDIR/level_00.tif
// .. level_NN.tif (Float32, NaN = nodata), each georeferenced with cells
// scaled to its size; or the input's GDAL overviews. lsm pyramid INPUT
// OUTDIR; LSM:pyramid serves one level (level=L) window by window.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>

#include "common_parameters.h"
#include "error.h"
#include "gdal_feature_raster.h"
#include "atomic_folder.h"
#include "gdal_overviews.h"
#include "geotiff_output.h"
#include "operations.h"
#include "overviews.h"
#include "pyramid.h"

namespace lsm::ops {

namespace {

// LSM:pyramid, streamed: one level (resampled from the base, every band,
// Float32, cells scaled), served window by window.
class PyramidLevelStream final : public StreamedRaster {
 public:
  explicit PyramidLevelStream(const ParameterValues& v)
      : source_(v.text("input"), {}), pass_(make_pyramid_pass(parse_backend(v.text("backend")))) {
    PyramidOptions o;
    o.scale = v.number("scale");
    o.resampling = parse_resampling(v.text("resampling"));
    o.levels = static_cast<int>(v.integer("level")) + 1;
    const FeatureRasterInfo info = source_.info();
    const auto sizes = pyramid_sizes(info.width, info.height, o);  // refuses levels below one cell
    shape.width = sizes.back().first;
    shape.height = sizes.back().second;
    level_ = std::make_unique<PyramidLevelRaster>(source_, shape.width, shape.height, o.resampling, *pass_);
    shape.bands = info.bands;
    shape.type = CellType::Float32;
    shape.nodata = std::numeric_limits<double>::quiet_NaN();
    shape.block_width = static_cast<int>(std::min<int64_t>(256, shape.width));
    shape.block_height = static_cast<int>(std::min<int64_t>(256, shape.height));
    shape.georef = scale_cells(georeference_of(source_.dataset()), double(info.width) / shape.width,
                               double(info.height) / shape.height);
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    const int64_t bw = shape.block_width, bh = shape.block_height;
    const Window w{bx * bw, by * bh, std::min<int64_t>(bw, shape.width - bx * bw), std::min<int64_t>(bh, shape.height - by * bh)};
    if (bx != cached_x_ || by != cached_y_) {  // all bands of the window at once
      cells_.resize(static_cast<size_t>(w.width * w.height * shape.bands));
      level_->read(w, cells_.data());
      cached_x_ = bx;
      cached_y_ = by;
    }
    for (int64_t r = 0; r < w.height; ++r)
      for (int64_t x = 0; x < w.width; ++x)
        static_cast<float*>(out)[r * bw + x] = cells_[static_cast<size_t>((r * w.width + x) * shape.bands + band - 1)];
  }

 private:
  GdalFeatureRaster source_;
  std::unique_ptr<PyramidPass> pass_;
  std::unique_ptr<PyramidLevelRaster> level_;
  int64_t cached_x_ = -1, cached_y_ = -1;
  std::vector<float> cells_;
};

std::string level_name(int level) {
  char name[32];
  std::snprintf(name, sizeof name, "level_%02d.tif", level);
  return name;
}

OperationSpec pyramid_spec() {
  OperationSpec s;
  s.name = "pyramid";
  s.summary = "image pyramid (31 levels, scale 1.05)";
  s.title = "Image pyramid";
  s.category = "Image analysis";
  s.manual = "IMAGE_FEATURES.md";
  s.usage =
      "usage: lsm pyramid INPUT OUTDIR [--levels N] [--scale S] [options]\n"
      "       lsm pyramid INPUT --overviews average|mode [--backend B]";
  s.parameters = joined(
      {
          input_raster("input", "input raster or photo (any format GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputFolder, "output",
                 "output folder: level_00.tif (the input) .. level_NN.tif (not with --overviews)")
              .at_position(2)
              .titled("Output folder")
              .with_metavar("OUTDIR")
              .also_spelled("outdir")
              .making({{"levels", "", kCogMediaType, "pyramid levels level_00 (the input) ... as Cloud Optimized GeoTIFFs"}})
              .only(kCommandLine | kService),  // the service names it itself
          text("overviews", "instead build the input's GDAL overviews (factors 2, 4, 8 ... down to 256 cells, in "
                            "INPUT.ovr) with average, or mode for categorical data")
              .one_of({"average", "mode"})
              .only(kCommandLine),
          integer("level", "the level served, 0 = the base").needed().at_least(0).at_most(1000).only(kDriver),
          integer("levels", "number of levels, the input included").with_default("31").at_least(1).at_most(1000)
              .only(kCommandLine | kService),  // the driver serves one level, by "level"
          number("scale", "size ratio of consecutive levels (> 1)").with_default("1.05").at_least(1.001).at_most(100),
          text("resampling", "bilinear, area or gaussian").one_of({"bilinear", "area", "gaussian"}).with_default("bilinear"),
          text("from", "base: each level from the input (the paper's variant); previous: from the level before")
              .one_of({"base", "previous"})
              .with_default("base")
              .only(kCommandLine),
          backend_parameter(),
          integer("strip-rows", "rows per streamed strip").with_default("256").at_least(1).at_most(1000000).in("rows").also_spelled("tile-size").technical().only(kCommandLine),
          memory_limit_parameter("strips of rows of the base and of each level"),
          staging_dir_parameter(),
          quiet_parameter(),
      },
      raster_output_parameters());
  s.serving.streamed = [](const ParameterValues& v) -> std::unique_ptr<StreamedRaster> {
    return std::make_unique<PyramidLevelStream>(v);
  };
  s.rules = {one_of_the_two("output", "overviews")};  // --overviews writes INPUT.ovr
  return s;
}

void build_input_overviews(const ParameterValues& v, const RunContext& context) {
  const std::string input = v.text("input"), method_text = v.text("overviews");
  const OverviewMethod method = parse_overview_method(method_text);
  auto pass = make_overview_pass(parse_backend(v.text("backend")));
  const std::vector<int> factors = build_overviews(input, method, *pass, context.checked_progress());
  if (context.quiet) return;
  std::string list;
  for (int f : factors) list += " " + std::to_string(f);
  std::cout << (factors.empty() ? "no overviews needed: the raster fits in 256 x 256 cells\n"
                                : "overviews" + list + " (" + method_text + ", " + pass->name() + ") in " + input + ".ovr\n");
}

void run_pyramid_operation(const ParameterValues& v, const RunContext& context) {
  if (v.given("overviews")) return build_input_overviews(v, context);
  const RasterFormat format = raster_output_format(v, context);
  PyramidOptions o;
  o.levels = static_cast<int>(v.integer("levels"));
  o.scale = v.number("scale");
  o.resampling = parse_resampling(v.text("resampling"));
  o.from_previous = v.text("from") == "previous";
  const int64_t strip_rows = v.integer("strip-rows");
  const std::string outdir = v.text("output");

  GdalFeatureRaster base(v.text("input"), {});
  const FeatureRasterInfo info = base.info();
  const auto sizes = pyramid_sizes(info.width, info.height, o);
  // A level's strip and the base rows it samples (every band, read ahead and
  // in use), its interleaved copy and the pass's buffers.
  require_memory(v, context, double(std::min<int64_t>(strip_rows, info.height) + 8) * double(info.width) * info.bands * 16.0,
                 "strips of " + std::to_string(strip_rows) + " rows of " + std::to_string(info.width) + " cells and " +
                     std::to_string(info.bands) + " bands");
  for (size_t l = 1; l < sizes.size(); ++l)  // fails before anything is written
    level_mapping(o.from_previous ? sizes[l - 1].first : info.width, o.from_previous ? sizes[l - 1].second : info.height,
                  sizes[l].first, sizes[l].second, o.resampling);
  // The levels appear in OUTDIR together, at the end: a failed or cancelled
  // run leaves none of them.
  AtomicFolder levels(outdir);
  auto pass = make_pyramid_pass(parse_backend(v.text("backend")));
  const GeoReference georef = georeference_of(base.dataset());

  double total = 0, done = 0;
  for (const auto& s : sizes) total += double(s.first) * double(s.second);
  const ProgressFn progress = context.checked_progress();
  std::unique_ptr<GdalFeatureRaster> previous;  // the level just written, for --from previous
  for (size_t l = 0; l < sizes.size(); ++l) {
    const auto [w, h] = sizes[l];
    FeatureRasterSource& source = o.from_previous && previous ? static_cast<FeatureRasterSource&>(*previous) : base;
    PyramidLevelRaster level(source, w, h, o.resampling, *pass);
    const std::string path = levels.path_for(level_name(int(l)));
    GeoTiffOutput out(path, format, w, h, GDT_Float32, scale_cells(georef, double(info.width) / w, double(info.height) / h),
                      std::numeric_limits<double>::quiet_NaN(), info.bands);
    const double share = double(w) * double(h) / total;
    stream_feature_strips(level, strip_rows, [&](const Window& win, const float* values) { out.write_interleaved(win, values); },
                          scaled_progress(progress, done, done + share));
    done += share;
    out.commit();
    if (o.from_previous) previous = std::make_unique<GdalFeatureRaster>(path, std::vector<int>{});
  }
  previous.reset();
  levels.commit();
}

}  // namespace

Operation pyramid_operation() { return {pyramid_spec(), run_pyramid_operation}; }

}  // namespace lsm::ops
