// gdal_LSM.so: the GDAL plugin driver of lsm. Opens connection strings
// LSM:<operation>[:<option>=<value>...]:<path> (connection.h) as read-only
// rasters whose blocks come from DerivedRaster; georeferencing, CRS, nodata
// and block size follow the source. Engine errors become GDAL errors
// (CPLError) so GDAL's tools report them their usual way.
#include <gdal_priv.h>

#include <memory>
#include <string>

#include "connection.h"
#include "derived_raster.h"
#include "error.h"
#include "gdal_environment.h"
#include "gdal_errors.h"

namespace lsm::gdal_plugin {

namespace {

class LsmDataset;

class LsmBand final : public GDALRasterBand {
 public:
  LsmBand(LsmDataset* dataset, int band, DerivedRaster& raster);
  double GetNoDataValue(int* has) override {
    if (has) *has = raster_.nodata.has_value();
    return raster_.nodata.value_or(0.0);
  }

 protected:
  CPLErr IReadBlock(int bx, int by, void* data) override;

 private:
  DerivedRaster& raster_;
};

class LsmDataset final : public GDALDataset {
 public:
  LsmDataset(std::unique_ptr<DerivedRaster> raster, std::string source) : raster_(std::move(raster)), source_(std::move(source)) {
    nRasterXSize = static_cast<int>(raster_->width);
    nRasterYSize = static_cast<int>(raster_->height);
    for (int b = 1; b <= raster_->bands; ++b) SetBand(b, new LsmBand(this, b, *raster_));
    if (!raster_->georef.wkt.empty()) srs_.importFromWkt(raster_->georef.wkt.c_str());
    srs_.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    for (const auto& [key, value] : raster_->metadata) GDALDataset::SetMetadataItem(key.c_str(), value.c_str());
  }
  CPLErr GetGeoTransform(double* gt) override {
    if (!raster_->georef.has_geotransform) return CE_Failure;
    std::copy(raster_->georef.geotransform, raster_->georef.geotransform + 6, gt);
    return CE_None;
  }
  const OGRSpatialReference* GetSpatialRef() const override { return srs_.IsEmpty() ? nullptr : &srs_; }
  // The source raster is the file this dataset depends on: a program that
  // reads LSM:label:in.tif (lsm, in its own process) then knows in.tif as an
  // input and refuses to write over it.
  char** GetFileList() override {
    VSIStatBufL stat;
    return VSIStatL(source_.c_str(), &stat) == 0 ? CSLAddString(nullptr, source_.c_str()) : nullptr;
  }

 private:
  std::unique_ptr<DerivedRaster> raster_;
  std::string source_;
  OGRSpatialReference srs_;
};

LsmBand::LsmBand(LsmDataset* dataset, int band, DerivedRaster& raster) : raster_(raster) {
  poDS = dataset;
  nBand = band;
  eDataType = raster.type;
  nBlockXSize = raster.block_width;
  nBlockYSize = raster.block_height;
  if (static_cast<size_t>(band) <= raster.band_names.size()) SetDescription(raster.band_names[band - 1].c_str());
}

CPLErr LsmBand::IReadBlock(int bx, int by, void* data) {
  std::string failure;
  {
    HeldGdalMessages held;  // GDAL's inner messages become part of lsm's one line
    try {
      raster_.read_block(nBand, bx, by, data);
      return CE_None;
    } catch (const std::exception& e) {
      failure = std::string("LSM: ") + e.what();
    }
  }
  // Not printed here: GDAL prints it once, in its "IReadBlock failed ..." line.
  CPLPushErrorHandler(CPLQuietErrorHandler);
  CPLError(CE_Failure, CPLE_AppDefined, "%s", failure.c_str());
  CPLPopErrorHandler();
  return CE_Failure;
}

int identify(GDALOpenInfo* info) { return STARTS_WITH_CI(info->pszFilename, kPrefix) ? TRUE : FALSE; }

GDALDataset* open(GDALOpenInfo* info) {
  if (!identify(info)) return nullptr;
  if (info->eAccess == GA_Update) {
    CPLError(CE_Failure, CPLE_NotSupported, "LSM: the driver is read-only");
    return nullptr;
  }
  std::string failure;
  {
    HeldGdalMessages held;  // GDAL's inner messages become part of lsm's one line
    try {
      const Connection c = parse_connection(info->pszFilename, info->papszOpenOptions);
      return new LsmDataset(open_derived_raster(c), c.path);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  CPLError(CE_Failure, CPLE_OpenFailed, "LSM: %s", failure.c_str());
  return nullptr;
}

}  // namespace

}  // namespace lsm::gdal_plugin

extern "C" void GDALRegister_LSM() {
  if (!GDAL_CHECK_VERSION("LSM")) return;  // built against another GDAL
  if (GDALGetDriverByName("LSM") != nullptr) return;
  // Inside GDAL's tools or QGIS the host owns GDAL's settings.
  lsm::leave_gdal_settings_to_host();
  auto* driver = new GDALDriver();
  driver->SetDescription("LSM");
  driver->SetMetadataItem(GDAL_DCAP_RASTER, "YES");
  driver->SetMetadataItem(GDAL_DMD_LONGNAME,
                          "lsm derived rasters: patch IDs, patch metrics, K-means classes, gradients, pyramid levels, HOG descriptors, fuzzy connectedness (LSM:<operation>[:<option>=<value>...]:<path>)");
  driver->SetMetadataItem(GDAL_DMD_CONNECTION_PREFIX, lsm::gdal_plugin::kPrefix);
  // An absolute path: GDAL reads a relative topic as a page of its own
  // documentation site, where this driver has none.
  driver->SetMetadataItem(GDAL_DMD_HELPTOPIC, LSM_DRIVER_MANUAL);
  static const std::string options = lsm::gdal_plugin::open_option_list();
  driver->SetMetadataItem(GDAL_DMD_OPENOPTIONLIST, options.c_str());
  driver->pfnIdentify = lsm::gdal_plugin::identify;
  driver->pfnOpen = lsm::gdal_plugin::open;
  GetGDALDriverManager()->RegisterDriver(driver);
}
