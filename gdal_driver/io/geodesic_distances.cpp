#include "geodesic_distances.h"

#include <gdal_priv.h>
#include <geodesic.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "error.h"

namespace lsm {

GeodesicDistances::GeodesicDistances(const GdalClassRaster& raster) : geodesic_(std::make_unique<geod_geodesic>()) {
  const GdalClassRaster::EllipsoidShape& e = raster.ellipsoid_shape();
  if (!raster.geographic() || !(e.semi_major_m > 0))
    throw Error(ErrorKind::Internal, "geodesic distances asked for a raster that is not geographic");
  geod_init(geodesic_.get(), e.semi_major_m, e.flattening);
  double gt[6];
  raster.dataset()->GetGeoTransform(gt);
  west_ = gt[0] * e.degrees_per_unit;
  north_ = gt[3] * e.degrees_per_unit;
  column_degrees_ = gt[1] * e.degrees_per_unit;
  row_degrees_ = gt[5] * e.degrees_per_unit;
}

GeodesicDistances::~GeodesicDistances() = default;

double GeodesicDistances::metres(double x0, double y0, double x1, double y1) const {
  double s12 = 0;
  geod_inverse(geodesic_.get(), north_ + y0 * row_degrees_, west_ + x0 * column_degrees_, north_ + y1 * row_degrees_,
               west_ + x1 * column_degrees_, &s12, nullptr, nullptr);
  return s12;
}

std::array<double, 4> GeodesicDistances::box_within(double x, double y, double radius_m) const {
  const double lat = north_ + y * row_degrees_, lon = west_ + x * column_degrees_;
  double lat_low = lat, lat_high = lat, lon_low = lon, lon_high = lon;
  double to_pole = 0;
  geod_inverse(geodesic_.get(), lat, lon, lat >= 0 ? 90 : -90, lon, &to_pole, nullptr, nullptr);
  const bool holds_pole = to_pole <= radius_m;
  for (int k = 0; k < 72; ++k) {
    double lat2 = 0, lon2 = 0;
    // Longitudes unrolled: a circle across the antimeridian goes past +-180
    // (the raster's own longitudes decide what of it is inside).
    geod_gendirect(geodesic_.get(), lat, lon, 5.0 * k, GEOD_LONG_UNROLL, radius_m, &lat2, &lon2, nullptr, nullptr, nullptr,
                   nullptr, nullptr, nullptr);
    lat_low = std::min(lat_low, lat2);
    lat_high = std::max(lat_high, lat2);
    lon_low = std::min(lon_low, lon2);
    lon_high = std::max(lon_high, lon2);
  }
  if (holds_pole) {
    (lat >= 0 ? lat_high : lat_low) = lat >= 0 ? 90 : -90;
    lon_low = -std::numeric_limits<double>::infinity();
    lon_high = std::numeric_limits<double>::infinity();
  }
  const double lat_pad = 0.02 * (lat_high - lat_low) + std::fabs(row_degrees_);
  const double lon_pad = 0.02 * (lon_high - lon_low) + std::fabs(column_degrees_);
  const double x_a = (lon_low - lon_pad - west_) / column_degrees_, x_b = (lon_high + lon_pad - west_) / column_degrees_;
  const double y_a = (lat_low - lat_pad - north_) / row_degrees_, y_b = (lat_high + lat_pad - north_) / row_degrees_;
  return {std::min(x_a, x_b), std::max(x_a, x_b), std::min(y_a, y_b), std::max(y_a, y_b)};
}

}  // namespace lsm
