#pragma once
// When the command line restarts on huge pages (metrics/core/huge_page_malloc.h).
// The restart loads lsm's libraries a second time (~70–80 ms on the
// development machine), so a run restarts only where it gains: a command on
// a large raster (seconds less page-fault work on tens of Mpx), a service
// (its jobs are of any size) or a rank under an MPI launcher (the raster is
// large, and MPI cannot start twice, so the ranks restart before it does).
// A small raster, --help or --describe runs as started.
#include <cstdint>

#include "operation_spec.h"

namespace lsm::cli {

/// Input cells from which a command restarts on huge pages: 4 Mi cells (a
/// 2048 × 2048 raster), where the page faults of its tables and records
/// begin to cost more than the restart.
constexpr int64_t kLargeInputCells = int64_t{1} << 22;

/// First thing in main(): keeps the program's arguments for a later
/// restart, and restarts at once for `lsm serve` and under an MPI launcher
/// (Open MPI's, PMI's, PMIx's or Slurm's rank variables set).
void start_on_huge_pages(int argc, char** argv);

/// Restarts the program on huge pages when the input rasters of a command
/// (`values`' InputRaster parameters, opened through GDAL for their size)
/// hold kLargeInputCells cells or more. Returns when it does not restart
/// (small inputs, unreadable ones: the run reports those itself, restarted
/// or not). Not under MPI: start_on_huge_pages() decided there.
void restart_for_large_inputs(const ops::ParameterValues& values);

}  // namespace lsm::cli
