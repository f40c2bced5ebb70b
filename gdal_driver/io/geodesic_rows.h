#pragma once
// Cell sizes on the ellipsoid for a north-up raster in a geographic CRS,
// measured with PROJ's geodesic functions (Karney's algorithms, geodesic.h).
#include <cstdint>

#include "raster.h"

namespace lsm {

/// Longitude/latitude grid of a geographic raster, in degrees.
struct GeographicGrid {
  double top_latitude = 0;   ///< latitude of the top edge of row 0
  double row_step = 0;       ///< latitude change per row (negative for north-up)
  double column_step = 0;    ///< longitude change per column
  int64_t height = 0;        ///< rows
};

/// Per-row cell areas and side lengths on the ellipsoid with semi-major axis
/// `semi_major_m` and flattening `flattening` (0 = sphere). A cell is bounded
/// by two meridians (geodesics, measured directly) and two parallels (not
/// geodesics: they are measured as chains of short geodesics, at most 0.01
/// degree of longitude each, which leaves a relative error below 1e-9 for
/// any cell size). Throws lsm::Error(BadInput) for latitudes beyond +-90 degrees.
GeodesicRows geodesic_rows(const GeographicGrid& grid, double semi_major_m, double flattening);

}  // namespace lsm
