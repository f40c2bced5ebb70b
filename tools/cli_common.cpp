#include "cli_common.h"

#include <cpl_progress.h>

#include <iostream>
#include <optional>

#include "describe.h"
#include "error.h"

namespace lsm::cli {

namespace {
int64_t parse_size(const std::string& text, const std::string& whole) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used != text.size() || v <= 0)
    throw Error(ErrorKind::BadInput, "--tile-size '" + whole + "' is not N or WxH with positive integers");
  return v;
}
}  // namespace

ScanOptions PatchOptions::scan_options() const {
  ScanOptions s;
  if (neighbors == 8) s.rule = NeighbourRule::Eight;
  else if (neighbors == 4) s.rule = NeighbourRule::Four;
  else throw Error(ErrorKind::BadInput, "--neighbors must be 4 or 8, not " + std::to_string(neighbors));
  if (!tile_size.empty()) {
    const size_t x = tile_size.find_first_of("xX");
    if (x == std::string::npos) {
      s.tile_width = s.tile_height = parse_size(tile_size, tile_size);
    } else {
      s.tile_width = parse_size(tile_size.substr(0, x), tile_size);
      s.tile_height = parse_size(tile_size.substr(x + 1), tile_size);
    }
  }
  return s;
}

void add_patch_options(po::options_description& desc, PatchOptions& o) {
  desc.add_options()
      ("band,b", po::value(&o.band)->default_value(1), "band of class codes (1-based)")
      ("neighbors,n", po::value(&o.neighbors)->default_value(8), "neighbour rule: 8 (FRAGSTATS default) or 4")
      ("backend", po::value(&o.backend)->default_value("auto"), "auto, cpu or cuda")
      ("tile-size", po::value(&o.tile_size),
       "tile size N (N x N) or WxH cells; default: rows from the blocks, 1024 columns on the CPU, all on a GPU")
      ("quiet,q", po::bool_switch(&o.quiet), "no progress output");
}

namespace {
// -of / -co of the command being parsed, applied once parsing succeeds.
RasterFormat requested_format;
}  // namespace

uint64_t parse_memory_size(const std::string& text, const std::string& option) {
  const std::string bad = option + " must be a size such as 512M or 2G, not '" + text + "'";
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw Error(ErrorKind::BadInput, bad);
  }
  std::string unit = text.substr(used);
  double scale = 1024.0 * 1024;  // plain numbers: MiB
  if (unit == "K" || unit == "k") scale = 1024;
  else if (unit == "G" || unit == "g") scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty() && unit != "M" && unit != "m") throw Error(ErrorKind::BadInput, bad);
  if (!(value > 0) || value * scale > 1e18) throw Error(ErrorKind::BadInput, bad);
  const uint64_t bytes = static_cast<uint64_t>(value * scale);
  if (bytes < (uint64_t(1) << 20)) throw Error(ErrorKind::BadInput, option + " must be at least 1M");
  return bytes;
}

void add_raster_output_options(po::options_description& desc) {
  desc.add_options()
      ("of", po::value(&requested_format.driver),
       "output raster format: a GDAL driver's short name (default GTiff); COG, PNG and other copy-only formats are written through a temporary GeoTIFF")
      ("co", po::value(&requested_format.creation_options)->composing(),
       "creation option NAME=VALUE of the output format (repeatable)");
}

bool parse(const std::vector<std::string>& args, po::options_description& desc,
           const po::positional_options_description& positional, const std::string& usage) {
  desc.add_options()("help,h", "show this help");
  if (describing()) {  // lsm --describe: report the options, do no work
    describe_options(desc, positional, usage);
    return false;
  }
  po::variables_map vm;
  try {
    // allow_long_disguise: GDAL's -of and -co are long options with one dash.
    const int style = po::command_line_style::default_style | po::command_line_style::allow_long_disguise;
    po::store(po::command_line_parser(args).options(desc).positional(positional).style(style).run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n" << desc << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(ErrorKind::BadInput, std::string(e.what()) + " (see --help)");
  }
  if (vm.count("of") || vm.count("co")) set_raster_output_format(requested_format);
  return true;
}

ProgressFn terminal_progress(bool quiet) {
  if (quiet) return {};
  return [](double f) { return GDALTermProgress(f, nullptr, nullptr) != 0; };
}

}  // namespace lsm::cli
