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

/// Feeds every row of the patch-ID raster to each of `visitors` (each sees
/// all rows in order, then finish()), and to `also_write` when it is not null.
///
/// When the scan kept its tile labels (PatchTable::tile_labels) and
/// `also_write` is null, the patch IDs are assembled in memory (4 bytes per
/// cell) and the visitors run concurrently, one thread each: visitors must
/// not share mutable state. Otherwise `source` is relabeled as
/// write_patch_ids() does, with memory for one tile row of patch IDs, and the
/// visitors take each row in turn. `table` must come from scan_patches() with
/// keep_patch_ids. Throws lsm::Error.
void visit_patch_rows(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                      const std::vector<PatchRowVisitor*>& visitors, LabelRasterSink* also_write = nullptr,
                      const ProgressFn& progress = {});

}  // namespace lsm
