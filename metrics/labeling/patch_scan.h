#pragma once
// The main pass of the engine: labels the raster's patches tile by tile,
// merges them across seams and returns one record per patch. Every later
// metric derives from these records, so the raster is labeled once.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "paged_array.h"
#include "patch_stats.h"
#include "progress.h"
#include "raster.h"
#include "tile_labeler.h"
#include "tile_scheduler.h"

namespace lsm {

class PatchRecordFile;

/// Options of a patch scan.
struct ScanOptions {
  NeighbourRule rule = NeighbourRule::Eight;
  int64_t tile_width = 0;   ///< 0 = the labeler's preferred_tile_width()
  int64_t tile_height = 0;
  /// Keep what write_patch_ids() needs (8 bytes per tile-local fragment during
  /// the scan, 4 afterwards).
  bool keep_patch_ids = false;
  /// With keep_patch_ids: also keep every tile's local labels in memory when
  /// the raster's labels take at most this many bytes (4 per cell), so that
  /// the second pass (visit_patch_rows) reads them instead of relabeling the
  /// raster. 0 = never.
  int64_t keep_labels_max_bytes = 0;
  /// When the closed patch records take more than this many bytes (88 a
  /// patch), they go to a scratch file in `temp_dir` as they close, and the
  /// table's records end on a file in PID order (PatchTable::record_file,
  /// patch_records.h) instead of in `patches`; memory then holds 28 bytes a
  /// patch during the scan (sort keys, PIDs, fragment nodes). Default: never.
  uint64_t max_record_bytes = UINT64_MAX;
  std::string temp_dir;  ///< folder of that scratch file (temp_folder())
  /// Per-patch and per-fragment arrays (sort keys, fragment links, patch IDs
  /// of fragments) larger than this many bytes each live on scratch files in
  /// temp_dir (paged_array.h): memory then follows the open patches and the
  /// tile row, not the patch count. Default: always in memory.
  uint64_t max_patch_array_bytes = UINT64_MAX;
  /// Cells of a strip of tile rows at most when the grid is planned
  /// (plan_tiles(); 0: 16 Mi): a memory limit's strips share
  /// (RunBudget::strip_cells()). Results never depend on it.
  int64_t max_strip_cells = 0;
  /// With keep_patch_ids: also note the PIDs of the raster's first and last
  /// rows (PatchTable::first_row_pids, last_row_pids), which link a row
  /// range scanned alone to its neighbours (row_ranges.h).
  bool keep_edge_rows = false;
};

/// The patches of a raster.
struct PatchTable {
  RasterInfo raster;
  NeighbourRule rule = NeighbourRule::Eight;
  TileGrid grid;
  /// One record per patch, sorted by the raster-order index of the patch's
  /// first cell; the patch ID (PID) of patches[i] is i + 1. This order does
  /// not depend on the tile grid or the backend.
  std::vector<PatchStats> patches;
  /// Set when the scan sent the records to a scratch file
  /// (ScanOptions::max_record_bytes; patch_records.h): `patches` is then empty; read them with
  /// for_each_patch_block(), count them with patch_count().
  std::shared_ptr<PatchRecordFile> record_file;
  /// With keep_patch_ids: PID of every tile-local fragment, and the id of
  /// each tile's first fragment (tiles in row-major order).
  PagedArray<uint32_t> fragment_pid;  ///< on a scratch file beyond ScanOptions::max_patch_array_bytes
  std::vector<uint64_t> tile_fragment_base;
  /// With keep_labels_max_bytes (when the raster fits): every tile's local
  /// labels (TileLabels::labels; tiles in row-major order), else empty.
  std::vector<std::vector<uint32_t>> tile_labels;
  /// With ScanOptions::keep_edge_rows: the PID of each cell of the first and
  /// of the last row (0 = nodata), raster width each.
  std::vector<uint32_t> first_row_pids, last_row_pids;
  /// Set by a scan across MPI ranks (row_range_scan.h) when a rank met
  /// FRAGSTATS' landscape border (negative codes, read as nodata); a scan in
  /// one process tells its BorderAsNodataSource instead.
  bool ranks_met_border = false;
};

/// Scans `source` with `labeler`. Throws lsm::Error.
PatchTable scan_patches(ClassRasterSource& source, TileLabeler& labeler, const ScanOptions& options,
                        const ProgressFn& progress = {});

/// The distinct class codes of `table`'s patches, ascending.
std::vector<int32_t> class_codes(const PatchTable& table);

/// Second pass for the patch-ID raster: relabels every tile (the labeling is
/// deterministic) and writes each cell's PID (0 for nodata) to `sink`, with the
/// writing of one tile row overlapping the labeling of the next.
/// `table` must come from scan_patches() with keep_patch_ids on the same
/// source and the same kind of labeler. Throws lsm::Error(BadInput) when there
/// are more than 2^32-1 patches (UInt32 IDs).
void write_patch_ids(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                     LabelRasterSink& sink, const ProgressFn& progress = {});

}  // namespace lsm
