// lsm: landscape metrics in the style of the GDAL command-line tools. GDAL's
// general options (--config KEY VALUE, --debug ON, --version, --formats,
// --help-general) work as in GDAL's tools; `lsm --describe` prints every
// command and its parameters as JSON (gdal_driver/operations/operation_json.h).
// The commands are the operations of gdal_driver/operations/operations.h.
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>

#include <unistd.h>

#include <csignal>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "atomic_output.h"
#include "command_line.h"
#include "error.h"
#include "gdal_errors.h"
#include "huge_page_start.h"
#include "operation_json.h"
#include "operations.h"
#include "serve.h"
#ifdef LSM_HAVE_MPI
#include "mpi_ranks.h"
#include "row_range_scan.h"
#endif

namespace {

void print_usage() {
  std::cout << "usage: lsm <command> [options]\n"
               "       lsm --describe | --version | --formats | --help-general\n"
               "commands:\n";
  for (const lsm::ops::Operation& op : lsm::ops::operations()) {
    if (!(op.spec.front_ends & lsm::ops::kCommandLine)) continue;
    std::string name = "  " + op.spec.name;
    name.resize(14, ' ');
    std::cout << name << op.spec.summary << "\n";
  }
  std::cout << "  serve       the OGC API - Processes service: every command above as a process\n"
               "run 'lsm <command> --help' for the options of a command; GDAL's general options\n"
               "(--config KEY VALUE, --debug ON) are accepted before or after the command\n";
}

// SIGINT, SIGTERM (QGIS's cancel), SIGHUP: the run's cancel flag is set, and
// it stops at its next tile, its outputs removed as on any error. Where it
// does not get there within two seconds (a long step between tiles), or a
// second signal comes, the temporary outputs are removed and lsm exits at
// once: no half-written output survives either way.
volatile sig_atomic_t termination_signal = 0;

extern "C" void exit_now(int) {
  lsm::cli::end_progress_line_now();
  lsm::remove_temporary_outputs_now();
  ::_exit(128 + termination_signal);
}

extern "C" void on_termination_signal(int signal) {
  if (termination_signal) exit_now(signal);
  termination_signal = signal;
  lsm::cli::cancel_flag().store(true);
  std::signal(SIGALRM, exit_now);
  ::alarm(2);
}

int run(int argc, char** argv) {
  // lsm reports GDAL's failures itself, as one line; keep GDAL from printing its own.
  CPLSetErrorHandler(lsm::remember_gdal_failure);
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    print_usage();
    return argc < 2 ? 1 : 0;
  }
  if (std::string(argv[1]) == "--describe") {
    std::cout << lsm::ops::describe_json(lsm::ops::operations(), LSM_VERSION);
    return 0;
  }
  if (std::string(argv[1]) == "serve") return lsm::serve::run_serve(std::vector<std::string>(argv + 2, argv + argc));
  const lsm::ops::Operation* op = lsm::ops::find_operation(argv[1]);
  if (op && (op->spec.front_ends & lsm::ops::kCommandLine))
    return lsm::cli::run_command(*op, std::vector<std::string>(argv + 2, argv + argc));
  std::cerr << "lsm: error: unknown command '" << argv[1] << "' (run 'lsm --help' for the commands)\n";
  return 1;
}

}  // namespace

// GDAL's general options go through GDALGeneralCmdLineProcessor: all those
// before the command, and --config KEY VALUE / --debug VALUE anywhere after it
// (other GDAL options such as --format would clash with the commands' own).
int main(int argc, char** argv) {
  lsm::cli::start_on_huge_pages(argc, argv);  // first: glibc reads its tunables at the start
  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, on_termination_signal);
#ifdef LSM_HAVE_MPI
  // Under mpirun or srun: rank 0 runs the command, the other ranks scan the
  // row ranges it asks for until it ends (docs/SCALING.md).
  std::unique_ptr<lsm::mpi::MpiRanks> ranks;
  try {
    ranks = lsm::mpi::MpiRanks::start(&argc, &argv);
  } catch (const std::exception& e) {
    std::cerr << "lsm: error: " << e.what() << "\n";
    return 1;
  }
  struct StopRanks {  // whatever way rank 0 leaves main(), the others stop with it
    lsm::mpi::MpiRanks* ranks;
    ~StopRanks() {
      if (!ranks || ranks->rank() != 0) return;
      try {
        lsm::ops::stop_row_range_scans(*ranks);
      } catch (const std::exception& e) {
        std::cerr << "lsm: error: " << e.what() << "\n";
      }
    }
  } stop_ranks{ranks.get()};
  if (ranks) lsm::ops::use_host_gpu_share(*ranks);  // one GPU a rank where a host runs as many
  if (ranks && ranks->rank() > 0) {
    GDALAllRegister();
    CPLSetErrorHandler(lsm::remember_gdal_failure);  // a rank's GDAL failure travels to rank 0 as its message
    return lsm::ops::serve_row_range_scans(*ranks);
  }
  lsm::cli::set_ranks(ranks.get());
#endif
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
  } catch (const std::bad_alloc&) {
    // Allocations that can be large name their size where they happen; this
    // is the last word for the others.
    std::cout.flush();
    lsm::cli::end_progress_line_now();
    if (termination_signal) return 128 + termination_signal;
    std::cerr << "lsm: error: out of memory: the run needed more memory than this machine (or its limits, ulimit -v) "
                 "allows; lower --memory-limit or the tile size, or use a machine with more memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    lsm::cli::end_progress_line_now();
    if (termination_signal) return 128 + termination_signal;  // stopped by a signal, as asked: no error line
    std::cerr << "lsm: error: " << e.what() << "\n";
    return 1;
  }
}
