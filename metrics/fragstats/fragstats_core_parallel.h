#pragma once
// FRAGSTATS' disjunct core areas (fragstats_core_areas.h) of every patch of a
// patch-ID raster held in memory, from a core-cell mask computed beforehand
// (a NeighbourhoodCounter's, cell_neighbourhood.h), the patches scanned in
// parallel on CPU threads. FRAGSTATS' scan is sequential within a patch (a
// LIFO flood whose last cell decides where the scan resumes), so it stays on
// the host with either backend; patches are independent.
//
// Each patch's core runs are gathered in raster order, its areas found by
// fragstats_core_areas(), and the areas handed on in the order the row
// visitor of the streamed path hands them on (patches by their last row,
// then by their first cell in it; each patch's areas in the scan's order), so
// every table built from them is the same bit for bit.
//
// Memory: 12 bytes per core run and 12 per patch, besides the areas found.
#include <cstdint>
#include <functional>

#include "cell_geometry.h"
#include "fragstats_core_areas.h"
#include "paged_array.h"

namespace lsm {

/// `pids`: width x height patch IDs (row-major, 0 = nodata); `core`: 1 where
/// a cell is core (same shape); `last_row_of_pid[pid]`: each patch's last
/// row; `geometry`: null on planar rasters (areas 0), else areas on the
/// ellipsoid. Calls `found(pid, area)` for every counted area, in the order
/// above, from the calling thread.
void fragstats_core_areas_in_parallel(const uint32_t* pids, const uint8_t* core, int64_t width, int64_t height,
                                      const PagedArray<uint32_t>& last_row_of_pid, const CellGeometry* geometry,
                                      const std::function<void(uint32_t, const CountedCoreArea&)>& found);

}  // namespace lsm
