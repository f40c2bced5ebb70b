// lsm synth OUTPUT.tif: a neutral landscape model as a georeferenced GeoTIFF.
#include <ogr_spatialref.h>

#include <algorithm>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "geotiff_output.h"
#include "neutral_landscape.h"

namespace lsm::cli {

int run_synth(const std::vector<std::string>& args) {
  NeutralLandscapeOptions nlm;
  std::string output;
  double cell_size = 30, origin_x = 4000000, origin_y = 3000000;
  int epsg = 3035;
  bool quiet = false;
  po::options_description desc("lsm synth options");
  desc.add_options()
      ("output", po::value(&output)->required(), "output GeoTIFF")
      ("width", po::value(&nlm.width)->default_value(512), "columns")
      ("height", po::value(&nlm.height)->default_value(512), "rows")
      ("classes", po::value(&nlm.classes)->default_value(5), "number of classes (codes 1..N)")
      ("seed", po::value(&nlm.seed)->default_value(1), "random seed")
      ("scale", po::value(&nlm.scale)->default_value(32), "size of the largest features (cells)")
      ("roughness", po::value(&nlm.roughness)->default_value(0.5), "fragmentation, in (0,1)")
      ("octaves", po::value(&nlm.octaves)->default_value(6), "noise octaves, 1..16")
      ("cell-size", po::value(&cell_size)->default_value(30), "cell size (CRS units, metres for the default CRS)")
      ("epsg", po::value(&epsg)->default_value(3035), "CRS as an EPSG code (default ETRS89-LAEA Europe)")
      ("origin-x", po::value(&origin_x)->default_value(4000000), "x of the upper-left corner")
      ("origin-y", po::value(&origin_y)->default_value(3000000), "y of the upper-left corner")
      ("quiet,q", po::bool_switch(&quiet), "no progress output");
  add_raster_output_options(desc);
  po::positional_options_description pos;
  pos.add("output", 1);
  if (!parse(args, desc, pos, "usage: lsm synth OUTPUT.tif [options]")) return 0;
  if (!(cell_size > 0)) throw Error(ErrorKind::BadInput, "--cell-size must be positive");

  const NeutralLandscape landscape(nlm);
  GeoReference georef;
  georef.has_geotransform = true;
  const double gt[6] = {origin_x, cell_size, 0, origin_y, 0, -cell_size};
  std::copy(gt, gt + 6, georef.geotransform);
  OGRSpatialReference srs;
  if (srs.importFromEPSG(epsg) != OGRERR_NONE)
    throw Error(ErrorKind::BadInput, "--epsg " + std::to_string(epsg) + " is not a known EPSG code");
  char* wkt = nullptr;
  srs.exportToWkt(&wkt);
  georef.wkt = wkt;
  CPLFree(wkt);

  GeoTiffOutput out(output, nlm.width, nlm.height, nlm.classes < 255 ? GDT_Byte : GDT_UInt16, georef,
                    std::nullopt);
  const ProgressFn progress = terminal_progress(quiet);
  const int64_t rows_per_strip = 256;
  std::vector<int32_t> strip;
  for (int64_t y = 0; y < nlm.height; y += rows_per_strip) {
    const Window w{0, y, nlm.width, std::min(rows_per_strip, nlm.height - y)};
    strip.resize(static_cast<size_t>(w.width * w.height));
    landscape.classify(w, strip.data());
    out.write(w, strip.data(), GDT_Int32);
    if (progress && !progress(double(y + w.height) / double(nlm.height))) throw Error(ErrorKind::Io, "interrupted");
  }
  out.commit();
  return 0;
}

}  // namespace lsm::cli
