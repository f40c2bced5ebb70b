#pragma once
// Whether two rasters lie on one grid: the check of every operation that
// pairs cells of two rasters (a zone raster with its input, two dates of a
// change), so that they refuse alike and say alike how to fix it.
#include <string>

#include "gdal_class_raster.h"

namespace lsm {

/// Why `other` is not on `reference`'s grid, or "" when it is: the same
/// width and height in cells, both georeferenced or neither, the same
/// geotransform (each term within 1e-6 of a cell side) and the same CRS
/// (data axis order aside). The reason is a phrase to follow `other`'s
/// quoted path, names the reference as `reference_role` ("the input", "the
/// earlier raster") and says which GDAL command puts it right.
std::string grid_mismatch(const GdalClassRaster& reference, const GdalClassRaster& other,
                          const std::string& reference_role);

}  // namespace lsm
