#pragma once
// Scalar images and volumes read whole for fuzzy connectedness: one band as
// an image, or every band as a volume (band k = slice k, as the CT volumes of
// ../shared/data/volumes are stored), nodata as NaN.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "fuzzy_connectedness.h"
#include "geotiff_output.h"
#include "progress.h"

namespace lsm {

struct LoadedVolume {
  std::vector<float> values;  ///< slice-major, row-major (VolumeView's layout); NaN = nodata
  int64_t width = 0, height = 0, depth = 1;
  /// Voxel size (x, y, z) in mm from the VOXEL_SIZE_MM metadata item, if present.
  std::optional<std::array<double, 3>> voxel_size_mm;
  GeoReference georef;
  VolumeView view() const { return {values.data(), width, height, depth}; }
};

/// Reads `path`: band `band` (1-based) as an image, or, when `as_volume`,
/// all bands as slices. A value equal to its band's nodata value, or NaN,
/// becomes NaN. Throws lsm::Error(BadInput) naming the problem (missing
/// file, band out of range, complex type), lsm::Error(Io) when reading fails.
LoadedVolume read_volume(const std::string& path, bool as_volume, int band, const ProgressFn& progress = {});

}  // namespace lsm
