// lsm: landscape metrics in the style of the GDAL command-line tools.
#include <cpl_error.h>
#include <gdal.h>

#include <iostream>
#include <map>

#include "commands.h"
#include "error.h"

namespace {
const char* kUsage =
    "usage: lsm <command> [options]\n"
    "commands:\n"
    "  metrics INPUT --out PREFIX   FRAGSTATS patch, class and landscape tables (CSV)\n"
    "  label INPUT OUTPUT.tif       patch-ID raster (IDs = PIDs of the patch table)\n"
    "  synth OUTPUT.tif             neutral landscape model (fractal, classified)\n"
    "  kmeans INPUT OUTPUT.tif      K-means classes of a photo or multiband raster\n"
    "  gradient INPUT OUTPUT.tif    Gaussian-derivative gradients: gx, gy, magnitude, orientation\n"
    "  pyramid INPUT OUTDIR         image pyramid (31 levels, scale 1.05)\n"
    "  hog INPUT OUTPUT             HOG descriptors (GeoTIFF raster or .npy)\n"
    "  fuzzy INPUT OUTPUT.tif       fuzzy connectedness from seeds (2-D image or 3-D volume)\n"
    "run 'lsm <command> --help' for the options of a command\n";
}  // namespace

int main(int argc, char** argv) {
  using Command = int (*)(const std::vector<std::string>&);
  const std::map<std::string, Command> commands = {
      {"metrics", lsm::cli::run_metrics}, {"label", lsm::cli::run_label}, {"synth", lsm::cli::run_synth},
      {"kmeans", lsm::cli::run_kmeans}, {"gradient", lsm::cli::run_gradient}, {"pyramid", lsm::cli::run_pyramid},
      {"hog", lsm::cli::run_hog}, {"fuzzy", lsm::cli::run_fuzzy}};
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? 1 : 0;
  }
  const auto it = commands.find(argv[1]);
  if (it == commands.end()) {
    std::cerr << "lsm: error: unknown command '" << argv[1] << "' (run 'lsm --help' for the commands)\n";
    return 1;
  }
  // lsm reports GDAL's failures itself, as one line; keep GDAL from printing its own.
  CPLSetErrorHandler(CPLQuietErrorHandler);
  try {
    return it->second(std::vector<std::string>(argv + 2, argv + argc));
  } catch (const lsm::Error& e) {
    std::cout.flush();
    std::cerr << "lsm: error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "lsm: error: " << e.what() << "\n";
  }
  return 1;
}
