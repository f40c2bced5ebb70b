// lsm: landscape metrics in the style of the GDAL command-line tools. GDAL's
// general options (--config KEY VALUE, --debug ON, --version, --formats,
// --help-general) work as in GDAL's tools; `lsm --describe` prints every
// command and its parameters as JSON (tools/describe.h).
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>

#include <unistd.h>

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "atomic_output.h"
#include "commands.h"
#include "describe.h"
#include "error.h"

namespace {

const std::vector<lsm::cli::CommandEntry>& command_table() {
  using lsm::cli::CommandEntry;
  static const std::vector<CommandEntry> commands = {
      {"metrics", "FRAGSTATS patch, class and landscape tables (CSV)", lsm::cli::run_metrics},
      {"label", "patch-ID raster (IDs = PIDs of the patch table)", lsm::cli::run_label},
      {"synth", "neutral landscape model (fractal, classified)", lsm::cli::run_synth},
      {"kmeans", "K-means classes of a photo or multiband raster", lsm::cli::run_kmeans},
      {"gradient", "Gaussian-derivative gradients: gx, gy, magnitude, orientation", lsm::cli::run_gradient},
      {"pyramid", "image pyramid (31 levels, scale 1.05)", lsm::cli::run_pyramid},
      {"hog", "HOG descriptors (GeoTIFF raster or .npy)", lsm::cli::run_hog},
      {"fuzzy", "fuzzy connectedness from seeds (2-D image or 3-D volume)", lsm::cli::run_fuzzy},
  };
  return commands;
}

void print_usage() {
  std::cout << "usage: lsm <command> [options]\n"
               "       lsm --describe | --version | --formats | --help-general\n"
               "commands:\n";
  for (const auto& c : command_table()) {
    std::string name = "  " + c.name;
    name.resize(12, ' ');
    std::cout << name << c.summary << "\n";
  }
  std::cout << "run 'lsm <command> --help' for the options of a command; GDAL's general options\n"
               "(--config KEY VALUE, --debug ON) are accepted before or after the command\n";
}

// SIGINT, SIGTERM (QGIS's cancel), SIGHUP: no half-written output survives.
extern "C" void on_termination_signal(int signal) {
  lsm::remove_temporary_outputs_now();
  ::_exit(128 + signal);
}

int run(int argc, char** argv) {
  // lsm reports GDAL's failures itself, as one line; keep GDAL from printing its own.
  CPLSetErrorHandler(CPLQuietErrorHandler);
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    print_usage();
    return argc < 2 ? 1 : 0;
  }
  if (std::string(argv[1]) == "--describe") {
    std::cout << lsm::cli::describe_commands(command_table());
    return 0;
  }
  for (const auto& c : command_table())
    if (c.name == argv[1]) return c.run(std::vector<std::string>(argv + 2, argv + argc));
  std::cerr << "lsm: error: unknown command '" << argv[1] << "' (run 'lsm --help' for the commands)\n";
  return 1;
}

}  // namespace

// GDAL's general options go through GDALGeneralCmdLineProcessor: all those
// before the command, and --config KEY VALUE / --debug VALUE anywhere after it
// (other GDAL options such as --format would clash with the commands' own).
int main(int argc, char** argv) {
  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, on_termination_signal);
  GDALAllRegister();
  std::vector<std::string> general{argv[0]}, command;
  int i = 1;
  for (; i < argc && std::string(argv[i]).rfind("--", 0) == 0 && std::string(argv[i]) != "--describe" &&
         std::string(argv[i]) != "--help";
       ++i) {
    general.push_back(argv[i]);
    if ((general.back() == "--config" || general.back() == "--debug" || general.back() == "--format" ||
         general.back() == "--optfile") && i + 1 < argc)
      for (int n = general.back() == "--config" ? 2 : 1; n > 0 && i + 1 < argc; --n) general.push_back(argv[++i]);
  }
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    const int values = a == "--config" ? 2 : a == "--debug" ? 1 : 0;
    if (values && i + values < argc) {
      general.push_back(a);
      for (int n = 0; n < values; ++n) general.push_back(argv[++i]);
    } else {
      command.push_back(a);
    }
  }
  for (const std::string& a : general)
    if (a == "--version") std::cout << "lsm " << LSM_VERSION << "\n";  // then GDAL's line
  // GDAL applies the options; for --version, --formats, --format and
  // --help-general it prints and returns 0 or less: the exit code.
  CPLStringList general_args;
  for (const std::string& a : general) general_args.AddString(a.c_str());
  char** processed = general_args.StealList();
  const int left = GDALGeneralCmdLineProcessor(static_cast<int>(general.size()), &processed, 0);
  CSLDestroy(processed);
  if (left < 1) return -left;
  std::vector<std::string> rest{argv[0]};
  rest.insert(rest.end(), command.begin(), command.end());
  std::vector<char*> pointers;
  for (std::string& a : rest) pointers.push_back(a.data());
  try {
    return run(static_cast<int>(pointers.size()), pointers.data());
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "lsm: error: " << e.what() << "\n";
    return 1;
  }
}
