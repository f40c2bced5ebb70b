#pragma once
// The first pass in row ranges (docs/ENGINE.md, "Row ranges in several
// processes"; docs/SCALING.md): each process (an MPI rank) scans a
// contiguous range of tile rows of the same tile grid, reading the rows just
// above and below it for the true neighbours of its edge rows, and sends a
// summary — its patches with exact counts, the patch IDs of its first and
// last rows, and its tiles' fragment links. The summaries, merged in row
// order by the seam merge that joins tile rows in one process
// (PatchFrontier), give the one-process PatchTable bit for bit: the same
// records, PIDs (raster order of first cells) and fragment links, so the
// rest of the landscape job runs on it unchanged.
//
// Transport-free and GDAL-free: a summary is a byte string
// (serialize_summary()); the operation layer moves the strings between
// processes (gdal_driver/operations/row_range_scan.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "patch_scan.h"

namespace lsm {

/// What one process's row range contributes to the first pass.
struct RowRangeSummary {
  int64_t first_row = 0, end_row = 0;  ///< raster rows [first_row, end_row); empty when equal
  int64_t width = 0;                   ///< raster width (cells)
  /// The range's patches in its own PID order (raster order of first cells),
  /// in raster coordinates, each patch's edge counts as in the whole raster
  /// (the sides across the range's first and last rows counted against the
  /// true neighbours). A patch cut by the range's edge is a fragment here.
  std::vector<PatchStats> patches;
  /// The range's PIDs (1-based, 0 = nodata) of its first and last rows.
  std::vector<uint32_t> first_row_pids, last_row_pids;
  /// Its tiles' fragment links (PatchTable::fragment_pid in range PIDs, and
  /// tile_fragment_base), tiles in row-major order.
  std::vector<uint32_t> fragment_pid;
  std::vector<uint64_t> tile_fragment_base;
  bool met_border = false;  ///< the range read a negative class code (the landscape border)
  std::string error;        ///< not empty: the range failed with this message (nothing else is set)
  ErrorKind error_kind = ErrorKind::Internal;  ///< and this kind
};

/// The tile rows [first, end) of each of `ranks` ranges of `grid`, contiguous
/// and in order, balanced by rows (every tile row is as wide as the raster):
/// the first `rows % ranks` ranges take one row more; ranges beyond the
/// grid's rows are empty.
std::vector<std::pair<int64_t, int64_t>> tile_row_ranges(const TileGrid& grid, int ranks);

/// Scans tile rows [first_tile_row, end_tile_row) of `grid` (planned on the
/// whole of `source` with the scan's options; the range's tiles are the
/// grid's). `source` is the whole raster: the rows above and below the range
/// are read for its edges. `options`' tile sizes must be the grid's.
/// Throws lsm::Error.
RowRangeSummary scan_row_range(ClassRasterSource& source, TileLabeler& labeler, const ScanOptions& options,
                               const TileGrid& grid, int64_t first_tile_row, int64_t end_tile_row,
                               const ProgressFn& progress = {});

/// A summary as bytes and back (the same binary on every rank: raw records).
/// deserialize_summary() throws lsm::Error(Internal) for bytes that are not one.
std::vector<uint8_t> serialize_summary(const RowRangeSummary& summary);
RowRangeSummary deserialize_summary(const std::vector<uint8_t>& bytes);

/// The whole raster's PatchTable (records in PID order, fragment links of
/// every tile of `grid`, as scan_patches() with keep_patch_ids gives them)
/// from the summaries of consecutive ranges covering its rows, in row order
/// (empty ranges allowed; taken, their records merged in place). Linear in
/// the patches: a union-find over the nodes of the ranges' edge rows, and
/// PIDs in node order (a patch's first node holds its first cell). Throws lsm::Error(Internal) when they do not
/// cover the raster, BadInput beyond 2^32 - 2 patches.
PatchTable merge_row_ranges(const RasterInfo& raster, NeighbourRule rule, const TileGrid& grid,
                            std::vector<RowRangeSummary> summaries);

}  // namespace lsm
