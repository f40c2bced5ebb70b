#pragma once
// GDAL overviews computed by lsm (`lsm pyramid --overviews`): the levels are
// made empty by GDAL (resampling "NONE", in an external INPUT.ovr, the input
// opened read-only as with gdaladdo -ro) and filled by an OverviewPass (CPU
// or CUDA), each level from the previous one, in strips of rows, band by band.
#include <string>
#include <vector>

#include "overviews.h"
#include "progress.h"

namespace lsm {

/// Builds the overviews of `path` with `method` and returns their factors
/// (empty when the raster fits in 256 x 256 cells and needs none). Nodata
/// cells (the band's nodata value or NaN) are left out of every reduction.
/// Throws lsm::Error(BadInput) when the input cannot be opened or already has
/// overviews (PATH.ovr or internal ones), lsm::Error(Io) when GDAL fails; a
/// failed run removes the PATH.ovr it started.
std::vector<int> build_overviews(const std::string& path, OverviewMethod method, OverviewPass& pass,
                                 const ProgressFn& progress = {});

}  // namespace lsm
