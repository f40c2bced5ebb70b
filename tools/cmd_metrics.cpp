// lsm metrics INPUT --out PREFIX: FRAGSTATS patch, class and landscape tables.
#include <iostream>

#include "area_edge_metrics.h"
#include "cli_common.h"
#include "commands.h"
#include "fragstats_tables.h"
#include "gdal_class_raster.h"

namespace lsm::cli {

int run_metrics(const std::vector<std::string>& args) {
  PatchOptions o;
  std::string prefix;
  bool print = false;
  po::options_description desc("lsm metrics options");
  desc.add_options()
      ("input", po::value(&o.input)->required(), "input raster (any format GDAL reads)")
      ("out,o", po::value(&prefix)->required(), "output prefix: PREFIX.patch.csv, PREFIX.class.csv, PREFIX.land.csv")
      ("print", po::bool_switch(&print), "also print the class and landscape tables on stdout");
  add_patch_options(desc, o);
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse(args, desc, pos, "usage: lsm metrics INPUT --out PREFIX [options]")) return 0;

  const ScanOptions scan = o.scan_options();
  GdalClassRaster source(o.input, o.band);
  if (source.geographic())
    std::cerr << "lsm: warning: '" << o.input << "' has a geographic CRS; cell sizes are in degrees, not metres\n";
  auto labeler = make_labeler(parse_backend(o.backend));
  FragstatsTableFiles files(prefix);  // fails now if PREFIX is not writable
  const PatchTable table = scan_patches(source, *labeler, scan, terminal_progress(o.quiet));
  const AreaEdgeMetrics m = compute_area_edge_metrics(table.patches, table.raster);
  files.write(table, m);
  if (print) {
    std::cout << "\nClass metrics (" << prefix << ".class.csv)\n";
    write_class_csv(std::cout, m);
    std::cout << "\nLandscape metrics (" << prefix << ".land.csv)\n";
    write_land_csv(std::cout, m);
  }
  return 0;
}

}  // namespace lsm::cli
