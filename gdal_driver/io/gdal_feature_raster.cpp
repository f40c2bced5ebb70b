#include "gdal_feature_raster.h"

#include <gdal_priv.h>

#include <limits>

#include "error.h"
#include "gdal_errors.h"
#include "gdal_open.h"

namespace lsm {

void GdalFeatureRaster::Closer::operator()(GDALDataset* d) const { GDALClose(d); }

GdalFeatureRaster::GdalFeatureRaster(const std::string& path, std::vector<int> bands)
    : path_(path), bands_(std::move(bands)) {
  dataset_.reset(open_input_raster(path));
  const int count = dataset_->GetRasterCount();
  if (bands_.empty())
    for (int b = 1; b <= count; ++b)
      if (dataset_->GetRasterBand(b)->GetColorInterpretation() != GCI_AlphaBand) bands_.push_back(b);
  if (bands_.empty()) throw Error(ErrorKind::BadInput, "'" + path + "' has no bands to read");
  for (int b : bands_) {
    if (b < 1 || b > count)
      throw Error(ErrorKind::BadInput, "band " + std::to_string(b) + " is out of range: '" + path + "' has " +
                                           std::to_string(count) + (count == 1 ? " band" : " bands"));
    GDALRasterBand* band = dataset_->GetRasterBand(b);
    const GDALDataType type = band->GetRasterDataType();
    if (GDALDataTypeIsComplex(type))
      throw Error(ErrorKind::BadInput, "band " + std::to_string(b) + " of '" + path + "' has complex type " +
                                           GDALGetDataTypeName(type));
    all_byte_ = all_byte_ && type == GDT_Byte;
    all_uint16_ = all_uint16_ && type == GDT_UInt16;
    int has = 0;
    const double nodata = band->GetNoDataValue(&has);
    has_nodata_.push_back(has != 0);
    nodata_.push_back(static_cast<float>(nodata));
  }
  info_.width = dataset_->GetRasterXSize();
  info_.height = dataset_->GetRasterYSize();
  info_.bands = static_cast<int>(bands_.size());
  dataset_->GetRasterBand(bands_[0])->GetBlockSize(&info_.block_width, &info_.block_height);
}

GdalFeatureRaster::~GdalFeatureRaster() = default;

void GdalFeatureRaster::read(const Window& w, float* out) {
  HeldGdalMessages held;  // GDAL's reason goes into lsm's line, from whichever thread reads
  const int n = info_.bands;
  const GSpacing pixel = sizeof(float) * n, line = pixel * w.width;
  GDALRasterIOExtraArg extra;
  INIT_RASTERIO_EXTRA_ARG(extra);
  if (dataset_->RasterIO(GF_Read, static_cast<int>(w.x0), static_cast<int>(w.y0), static_cast<int>(w.width),
                         static_cast<int>(w.height), out, static_cast<int>(w.width), static_cast<int>(w.height),
                         GDT_Float32, n, bands_.data(), pixel, line, sizeof(float), &extra) != CE_None)
    throw Error(ErrorKind::Io, "reading '" + path_ + "' failed: " + gdal_failure_reason());
  const int64_t cells = w.width * w.height;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 0; i < cells; ++i) {
    float* f = out + i * n;
    for (int b = 0; b < n; ++b)
      if (f[b] != f[b] || (has_nodata_[b] && f[b] == nodata_[b])) {
        f[0] = nan;
        break;
      }
  }
}

}  // namespace lsm
