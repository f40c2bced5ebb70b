#pragma once
// The command-line front end: renders an operation's declaration
// (gdal_driver/operations/operation_spec.h) as Boost.Program_options options
// and --help, parses the arguments through the declaration's validators and
// runs the operation. No option list and no algorithm here.
#include <atomic>
#include <string>
#include <vector>

#include "operation_spec.h"

namespace lsm::cli {

/// Runs `lsm <op> args...`: prints the help for --help, else parses `args`
/// and runs the operation with GDAL's terminal progress on stderr (none with
/// -q). Returns the exit code; throws lsm::Error(BadInput) for bad
/// arguments, naming the option, and whatever the run throws.
int run_command(const ops::Operation& operation, const std::vector<std::string>& args);

/// The cancel flag of the command line's runs: main()'s SIGINT/SIGTERM/SIGHUP
/// handler sets it, and the run stops at its next tile, its outputs removed.
std::atomic<bool>& cancel_flag();

/// Ends the progress line with a newline when a run stopped in the middle of
/// it (an error, a signal), so that the next line starts on its own.
/// Async-signal-safe.
void end_progress_line_now();

/// The MPI ranks the runs share their first pass with (RunContext::ranks):
/// main() sets them on rank 0 under mpirun; null in one process.
void set_ranks(ops::RankTransport* ranks);

/// The --help text of an operation: its usage line(s) and every option.
std::string command_help(const ops::OperationSpec& spec);

}  // namespace lsm::cli
