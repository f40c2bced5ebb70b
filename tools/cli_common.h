#pragma once
// Options and helpers shared by the lsm commands. The CLI only parses
// arguments, opens inputs and outputs and calls the engine: no algorithm here.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "geotiff_output.h"
#include "patch_scan.h"
#include "progress.h"

namespace lsm::cli {

namespace po = boost::program_options;

/// Options of the commands that label patches (metrics, label).
struct PatchOptions {
  std::string input;
  int band = 1;
  int neighbors = 8;
  std::string backend = "auto";
  std::string tile_size;  // "" (auto), "N" or "WxH"
  bool quiet = false;

  /// The engine's scan options; throws lsm::Error(BadInput) for bad values.
  ScanOptions scan_options() const;
};

/// Adds --band, --neighbors, --backend, --tile-size and -q to `desc`.
void add_patch_options(po::options_description& desc, PatchOptions& o);

/// Adds GDAL's -of FORMAT and -co NAME=VALUE (repeatable) for the command's
/// raster outputs; parse() applies them (set_raster_output_format).
void add_raster_output_options(po::options_description& desc);

/// Parses `args` against `desc` with `positional` names; prints help and
/// returns false for --help. Throws lsm::Error(BadInput) on bad arguments.
bool parse(const std::vector<std::string>& args, po::options_description& desc,
           const po::positional_options_description& positional, const std::string& usage);

/// Bytes of a memory size: a number with an optional unit K, M or G (powers
/// of 1024; "1.5G"), plain numbers in MiB. Throws lsm::Error(BadInput)
/// naming `option` for anything else or a size below 1 MiB (tiny limits
/// serve tests: they send everything that can go to scratch files there).
uint64_t parse_memory_size(const std::string& text, const std::string& option);

/// GDAL's terminal progress on stdout (0...10...20... 100 - done.), or none when quiet.
ProgressFn terminal_progress(bool quiet);

}  // namespace lsm::cli
