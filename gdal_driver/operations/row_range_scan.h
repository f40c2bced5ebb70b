#pragma once
// The first pass across ranks (docs/SCALING.md, "One raster across MPI
// ranks"): rank 0, running lsm metrics or lsm label, sends every rank the
// raster's path and the scan's options; each rank opens the raster itself
// (a shared file system), scans its range of tile rows (row_ranges.h) and
// sends its summary back; rank 0 merges them into the one-process
// PatchTable and runs the rest of the command alone. A rank's failure ends
// the command on rank 0 with that rank's message.
#include <functional>
#include <optional>
#include <string>

#include "landscape_job.h"
#include "operation_spec.h"
#include "rank_transport.h"

namespace lsm::ops {

/// How every rank opens the raster: its path, band, the nodata value given
/// (--nodata; none: the band's own), the labeling backend.
struct ScanRecipe {
  std::string path;
  int band = 1;
  std::optional<double> nodata;
  Backend backend = Backend::Auto;
};

/// The recipe of input `input` of an operation's values: band, --nodata
/// (where declared and given), `backend`.
ScanRecipe scan_recipe(const ParameterValues& values, const std::string& input, Backend backend);

/// On rank 0: the scan of `recipe`'s raster in one range of tile rows per
/// rank, merged; the same PatchTable as scan_patches() with keep_patch_ids
/// (its kept labels left out), of a BorderAsNodataSource where the raster
/// holds FRAGSTATS' landscape border (negative codes: nodata to the scan;
/// PatchTable::ranks_met_border says a rank met it). `options` as the job
/// gives them. Throws lsm::Error: a rank's failure with its message
/// ("rank 2: ...").
PatchTable scan_in_ranks(RankTransport& ranks, const ScanRecipe& recipe, TileLabeler& labeler,
                         const ScanOptions& options, const ProgressFn& progress = {});

/// LandscapeJobOptions::scan for rank 0: scan_in_ranks() with `recipe`.
std::function<PatchTable(ClassRasterSource&, TileLabeler&, const ScanOptions&, const ProgressFn&)> scan_across_ranks(
    RankTransport& ranks, ScanRecipe recipe);

/// On every rank, before any CUDA work: this rank's CUDA backends use its
/// share of its host's GPUs (one GPU each where a host runs as many ranks as
/// it has GPUs: gpus_of_host_rank()).
void use_host_gpu_share(const RankTransport& ranks);

/// On the other ranks: scans the ranges rank 0 asks for until it says stop.
/// Returns 0 (a scan's failure goes to rank 0, which reports it).
int serve_row_range_scans(RankTransport& ranks);
/// On rank 0, once the command has ended (or failed): the other ranks stop.
void stop_row_range_scans(RankTransport& ranks);

}  // namespace lsm::ops
