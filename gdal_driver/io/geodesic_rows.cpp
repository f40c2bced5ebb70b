#include "geodesic_rows.h"

#include <geodesic.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "error.h"

namespace lsm {

GeodesicRows geodesic_rows(const GeographicGrid& grid, double semi_major_m, double flattening) {
  geod_geodesic g;
  geod_init(&g, semi_major_m, flattening);
  const double dlon = std::fabs(grid.column_step);
  // Parallels are chained from short geodesics: their deviation from the
  // parallel shrinks with the cube of the segment length.
  const int segments = std::max(1, static_cast<int>(std::ceil(dlon / 0.01)));
  const double step = dlon / segments;
  auto latitude = [&](int64_t b) {
    const double lat = grid.top_latitude + static_cast<double>(b) * grid.row_step;
    if (!(lat >= -90 - 1e-9 && lat <= 90 + 1e-9))
      throw Error(ErrorKind::BadInput, "geographic raster reaches latitude " + std::to_string(lat) +
                                           ", beyond the poles (is the geotransform in degrees?)");
    return std::clamp(lat, -90.0, 90.0);
  };
  GeodesicRows rows;
  const size_t h = static_cast<size_t>(grid.height);
  rows.side_h_m.resize(h + 1);
  rows.side_v_m.resize(h);
  rows.cell_area_m2.resize(h);
  for (size_t b = 0; b <= h; ++b) {
    const double lat = latitude(static_cast<int64_t>(b));
    double s12 = 0;
    geod_inverse(&g, lat, 0, lat, step, &s12, nullptr, nullptr);
    rows.side_h_m[b] = s12 * segments;
  }
  std::vector<double> lats, lons;
  for (size_t y = 0; y < h; ++y) {
    const double top = latitude(static_cast<int64_t>(y)), bottom = latitude(static_cast<int64_t>(y + 1));
    double s12 = 0;
    geod_inverse(&g, top, 0, bottom, 0, &s12, nullptr, nullptr);
    rows.side_v_m[y] = s12;
    // The cell's outline: along the top parallel eastwards, back along the bottom one.
    lats.clear();
    lons.clear();
    for (int i = 0; i <= segments; ++i) {
      lats.push_back(top);
      lons.push_back(i * step);
    }
    for (int i = segments; i >= 0; --i) {
      lats.push_back(bottom);
      lons.push_back(i * step);
    }
    double area = 0, perimeter = 0;
    geod_polygonarea(&g, lats.data(), lons.data(), static_cast<int>(lats.size()), &area, &perimeter);
    rows.cell_area_m2[y] = std::fabs(area);
  }
  return rows;
}

}  // namespace lsm
