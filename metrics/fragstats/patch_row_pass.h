#pragma once
// The second pass over a labeled raster: patch IDs row by row, in raster
// order, whatever the tile grid. Per-cell metrics that need a patch's final
// identity or its neighbourhood (GYRATE, CONTIG, CIRCLE, core area, ENN,
// class adjacencies) are accumulated by a PatchRowVisitor, so their results
// cannot depend on the tile size or the backend.
#include <cstdint>
#include <vector>

#include "patch_scan.h"
#include "progress.h"
#include "raster.h"
#include "tile_labeler.h"

namespace lsm {

/// Receives the patch-ID raster one full row at a time, rows in order 0..height-1.
class PatchRowVisitor {
 public:
  virtual ~PatchRowVisitor() = default;
  /// Row `y`: `pids` holds raster-width patch IDs (0 = nodata). Valid only during the call.
  virtual void row(int64_t y, const uint32_t* pids) = 0;
  /// Called once after the last row.
  virtual void finish() = 0;
};

/// Relabels `source` (as write_patch_ids() does) and feeds every row to each
/// of `visitors` (each sees all rows in order, then finish(); the visitors
/// take each strip of rows concurrently, one thread each, so they must not
/// share mutable state), then to each of `parallel_visitors` (visitors that
/// spread each row over the cores themselves: one after the other, outside
/// the visitors' parallel region, where a nested one would get one thread),
/// and to `also_write` when it is not null. Memory: one tile row of patch
/// IDs. `table` must come from scan_patches() with keep_patch_ids. Throws
/// lsm::Error.
void visit_patch_rows(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                      const std::vector<PatchRowVisitor*>& visitors,
                      const std::vector<PatchRowVisitor*>& parallel_visitors = {}, LabelRasterSink* also_write = nullptr,
                      const ProgressFn& progress = {});

/// True when the scan kept its tile labels (ScanOptions::keep_labels_max_bytes).
bool has_kept_labels(const PatchTable& table);
/// The patch-ID raster (row-major, 0 = nodata) from the scan's kept tile
/// labels, without relabeling. Throws lsm::Error(Internal) when they were not kept.
std::vector<uint32_t> assemble_patch_ids(const PatchTable& table);
/// Feeds every row of an in-memory patch-ID raster to each of `visitors`,
/// the visitors running concurrently (one thread each): they must not share
/// mutable state. Rethrows the first exception of a visitor.
void visit_rows_in_memory(const std::vector<uint32_t>& pids, int64_t width, int64_t height,
                          const std::vector<PatchRowVisitor*>& visitors);
/// Feeds every row of an in-memory patch-ID raster to each of
/// `parallel_visitors` in turn (each spreads a row over the cores itself),
/// then finish(); reports progress from `from` to `to` (0..1) by rows.
/// Throws lsm::Error(Io) "interrupted" when `progress` returns false.
void visit_rows_in_memory_in_turn(const std::vector<uint32_t>& pids, int64_t width, int64_t height,
                                  const std::vector<PatchRowVisitor*>& parallel_visitors, const ProgressFn& progress,
                                  double from, double to);

}  // namespace lsm
