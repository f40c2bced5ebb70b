#include "same_grid.h"

#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <algorithm>
#include <cmath>

namespace lsm {

std::string grid_mismatch(const GdalClassRaster& reference, const GdalClassRaster& other,
                          const std::string& reference_role) {
  const RasterInfo a = reference.info(), b = other.info();
  if (a.width != b.width || a.height != b.height)
    return "is " + std::to_string(b.width) + " x " + std::to_string(b.height) + " cells, " + reference_role + " " +
           std::to_string(a.width) + " x " + std::to_string(a.height) + ": put it on " + reference_role +
           "'s grid (gdalwarp -te -tr)";
  double ga[6], gb[6];
  const bool has_a = reference.dataset()->GetGeoTransform(ga) == CE_None;
  const bool has_b = other.dataset()->GetGeoTransform(gb) == CE_None;
  if (has_a != has_b) return "and " + reference_role + " are not both georeferenced (gdal_edit.py -a_ullr)";
  if (has_a)
    for (int i = 0; i < 6; ++i)
      if (std::fabs(ga[i] - gb[i]) > 1e-6 * std::max(std::fabs(ga[1]), std::fabs(ga[5])))
        return "is not on " + reference_role + "'s grid (another origin or cell size): gdalwarp it to " +
               reference_role + "'s -te and -tr";
  const OGRSpatialReference *sa = reference.dataset()->GetSpatialRef(), *sb = other.dataset()->GetSpatialRef();
  const char* equivalent[] = {"IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES", nullptr};
  if ((sa == nullptr) != (sb == nullptr) || (sa && !sa->IsSame(sb, equivalent)))
    return "is not in " + reference_role + "'s CRS: gdalwarp -t_srs it first";
  return "";
}

}  // namespace lsm
