// synth: a neutral landscape model as a georeferenced raster (lsm synth OUTPUT.tif).
#include <ogr_spatialref.h>

#include <algorithm>
#include <vector>

#include "common_parameters.h"
#include "error.h"
#include "geotiff_output.h"
#include "neutral_landscape.h"
#include "operations.h"
#include "tile_scheduler.h"

namespace lsm::ops {

namespace {

OperationSpec synth_spec() {
  OperationSpec s;
  s.name = "synth";
  s.summary = "neutral landscape model (fractal, classified)";
  s.title = "Neutral landscape";
  s.category = "Landscape metrics";
  s.manual = "metrics.md";
  s.usage = "usage: lsm synth OUTPUT.tif [options]";
  s.front_ends = kCommandLine | kService;  // not a raster the driver could serve
  s.parameters = joined(
      {
          output(ParameterRole::OutputRaster, "output", "output GeoTIFF of class codes 1..N").drawn_as(RasterStyle::Classes).titled("Neutral landscape").needed().at_position(1),
          integer("width", "columns").with_default("512").at_least(1).at_most(1000000).in("cells"),
          integer("height", "rows").with_default("512").at_least(1).at_most(1000000).in("cells"),
          integer("classes", "number of classes (codes 1..N)").with_default("5").at_least(1).at_most(65535),
          integer("seed", "random seed").with_default("1").at_least(0).at_most(9007199254740991),
          number("feature-size", "size of the largest features").with_default("32").at_least(1).at_most(1000000).in("cells").also_spelled("scale"),
          number("roughness", "fragmentation, in (0,1)").with_default("0.5").at_least(0.01).at_most(0.99),
          integer("octaves", "noise octaves").with_default("6").at_least(1).at_most(16),
          number("cell-size", "cell size (CRS units, metres for the default CRS)").with_default("30").at_least(1e-9).at_most(1e7),
          integer("epsg", "CRS as an EPSG code (default ETRS89-LAEA Europe)").with_default("3035").at_least(1).at_most(999999).titled("CRS (EPSG code)"),
          number("origin-x", "x of the upper-left corner").with_default("4000000").at_least(-1e9).at_most(1e9).titled("Upper-left x"),
          number("origin-y", "y of the upper-left corner").with_default("3000000").at_least(-1e9).at_most(1e9).titled("Upper-left y"),
          memory_limit_parameter("strips of 256 rows, generated and written"),
          staging_dir_parameter(),
          quiet_parameter(),
      },
      raster_output_parameters());
  return s;
}

void run_synth(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  NeutralLandscapeOptions nlm;
  nlm.width = v.integer("width");
  nlm.height = v.integer("height");
  nlm.classes = static_cast<int>(v.integer("classes"));
  nlm.seed = static_cast<uint64_t>(v.integer("seed"));
  nlm.scale = v.number("feature-size");
  nlm.roughness = v.number("roughness");
  nlm.octaves = static_cast<int>(v.integer("octaves"));
  const double cell_size = v.number("cell-size");
  if (!(cell_size > 0)) v.fail("cell-size", "must be positive");
  // Two strips of 256 rows in flight (4 bytes a cell), the output's block cache aside.
  require_memory(v, context, 2.0 * 4 * 256 * double(nlm.width), "strips of 256 rows of " + std::to_string(nlm.width) + " cells");
  const NeutralLandscape landscape(nlm);
  GeoReference georef;
  georef.has_geotransform = true;
  const double gt[6] = {v.number("origin-x"), cell_size, 0, v.number("origin-y"), 0, -cell_size};
  std::copy(gt, gt + 6, georef.geotransform);
  OGRSpatialReference srs;
  const long long epsg = v.integer("epsg");
  if (srs.importFromEPSG(static_cast<int>(epsg)) != OGRERR_NONE)
    throw Error(ErrorKind::BadInput, v.spelled("epsg") + " " + std::to_string(epsg) + " is not a known EPSG code");
  char* wkt = nullptr;
  srs.exportToWkt(&wkt);
  georef.wkt = wkt;
  CPLFree(wkt);

  GeoTiffOutput out(v.text("output"), format, nlm.width, nlm.height, nlm.classes < 255 ? GDT_Byte : GDT_UInt16, georef,
                    std::nullopt);
  // The scheduler's streaming core: strip r+1 is generated on its reader
  // thread while strip r is written.
  const int64_t rows_per_strip = 256;
  const int64_t strips = (nlm.height + rows_per_strip - 1) / rows_per_strip;
  struct Strip {
    Window window;
    std::vector<int32_t> classes;
  };
  stream_rows<Strip>(
      strips,
      [&](int64_t strip) {
        const int64_t y = strip * rows_per_strip;
        Strip s{Window{0, y, nlm.width, std::min(rows_per_strip, nlm.height - y)}, {}};
        s.classes.resize(static_cast<size_t>(s.window.width * s.window.height));
        landscape.classify(s.window, s.classes.data());
        return s;
      },
      [&](int64_t, Strip& s) { out.write(s.window, s.classes.data(), GDT_Int32); }, context.checked_progress());
  out.commit();
}

}  // namespace

Operation synth_operation() { return {synth_spec(), run_synth}; }

}  // namespace lsm::ops
