#pragma once
// Distances on the ellipsoid for plots around points on a raster in degrees,
// measured with PROJ's geodesic functions (Karney's algorithms, geodesic.h):
// the EllipsoidDistances of the zonal job's BufferZones.
#include <array>
#include <memory>

#include "gdal_class_raster.h"
#include "zonal_job.h"

struct geod_geodesic;  // PROJ's geodesic.h, kept out of the callers' includes

namespace lsm {

class GeodesicDistances final : public EllipsoidDistances {
 public:
  /// For `raster`, which must be geographic and north-up (as GdalClassRaster
  /// already requires to measure its cells); its ellipsoid and geotransform
  /// are copied. Throws lsm::Error(Internal) for a raster that is not geographic.
  explicit GeodesicDistances(const GdalClassRaster& raster);
  ~GeodesicDistances() override;
  /// Metres along the geodesic between two points in cell coordinates.
  double metres(double x0, double y0, double x1, double y1) const override;
  /// The box of the geodesic circle: its northern and southern points and
  /// the extremes in longitude of 72 points around it (every 5 degrees of
  /// azimuth), widened by 2 % of its size and a cell on each side, which
  /// more than covers what lies between the sampled points. A circle that
  /// holds a pole spans every longitude.
  std::array<double, 4> box_within(double x, double y, double radius_m) const override;

 private:
  std::unique_ptr<geod_geodesic> geodesic_;
  double west_ = 0, north_ = 0;                  // degrees at cell coordinates (0, 0)
  double column_degrees_ = 0, row_degrees_ = 0;  // degrees per cell along x and y (row_degrees_ < 0 north-up)
};

}  // namespace lsm
