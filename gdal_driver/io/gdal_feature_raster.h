#pragma once
// Bands of any raster GDAL opens (photos, multiband imagery) served to the
// image operations as per-cell feature vectors (FeatureRasterSource). A cell
// is nodata when any selected band holds its nodata value or NaN.
#include <memory>
#include <string>
#include <vector>

#include "feature_raster.h"

class GDALDataset;

namespace lsm {

class GdalFeatureRaster final : public FeatureRasterSource {
 public:
  /// Opens `path` with the given 1-based bands; empty = every band that is
  /// not an alpha band. Throws lsm::Error(BadInput) naming the problem: the
  /// file is missing or not a raster, a band is out of range, or a band is complex.
  GdalFeatureRaster(const std::string& path, std::vector<int> bands);
  ~GdalFeatureRaster() override;

  FeatureRasterInfo info() const override { return info_; }
  /// Reads the bands as float. Throws lsm::Error(Io) when GDAL fails.
  void read(const Window& window, float* out) override;

  /// The 1-based bands read.
  const std::vector<int>& bands() const { return bands_; }
  /// True when every selected band is 8-bit (Byte): what L*a*b* conversion expects.
  bool all_bands_byte() const { return all_byte_; }
  /// What scikit-image's img_as_float divides by to bring the bands to
  /// [0, 1]: 255 when all are Byte, 65535 when all are UInt16, else 1.
  double unit_range_divisor() const { return all_byte_ ? 255.0 : all_uint16_ ? 65535.0 : 1.0; }
  /// The open dataset, to copy georeferencing to derived rasters.
  GDALDataset* dataset() const { return dataset_.get(); }

 private:
  struct Closer {
    void operator()(GDALDataset* d) const;
  };
  std::string path_;
  std::unique_ptr<GDALDataset, Closer> dataset_;
  std::vector<int> bands_;
  std::vector<bool> has_nodata_;
  std::vector<float> nodata_;
  bool all_byte_ = true, all_uint16_ = true;
  FeatureRasterInfo info_;
};

}  // namespace lsm
