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
  explicit LsmDataset(std::unique_ptr<DerivedRaster> raster) : raster_(std::move(raster)) {
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

 private:
  std::unique_ptr<DerivedRaster> raster_;
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
  try {
    raster_.read_block(nBand, bx, by, data);
    return CE_None;
  } catch (const std::exception& e) {
    CPLError(CE_Failure, CPLE_AppDefined, "LSM: %s", e.what());
    return CE_Failure;
  }
}

int identify(GDALOpenInfo* info) { return STARTS_WITH_CI(info->pszFilename, kPrefix) ? TRUE : FALSE; }

GDALDataset* open(GDALOpenInfo* info) {
  if (!identify(info)) return nullptr;
  if (info->eAccess == GA_Update) {
    CPLError(CE_Failure, CPLE_NotSupported, "LSM: the driver is read-only");
    return nullptr;
  }
  try {
    const Connection c = parse_connection(info->pszFilename, info->papszOpenOptions);
    return new LsmDataset(open_derived_raster(c));
  } catch (const std::exception& e) {
    CPLError(CE_Failure, CPLE_OpenFailed, "LSM: %s", e.what());
    return nullptr;
  }
}

// GDAL_DMD_OPENOPTIONLIST: every option of every operation.
std::string open_option_list() {
  std::string xml = "<OpenOptionList>";
  auto add = [&](const char* name, const char* type, const char* text) {
    char* escaped = CPLEscapeString(text, -1, CPLES_XML);  // descriptions may hold quotes and apostrophes
    xml += std::string("<Option name='") + name + "' type='" + type + "' description=\"" + escaped + "\"/>";
    CPLFree(escaped);
  };
  add("BAND", "int", "1-based source band (label, gradient, fuzzy without VOLUME); default 1");
  add("NEIGHBORS", "int", "label, patchmetric: neighbour rule, 4 or 8 (default 8, FRAGSTATS)");
  add("METRIC", "string", "patchmetric: the FRAGSTATS patch metric of every cell (AREA, PERIM, GYRATE, PARA, SHAPE, FRAC, CIRCLE, CONTIG, CORE, NCORE, CAI, ENN)");
  add("EDGE_DEPTH", "int", "patchmetric: edge depth in cells for the core metrics (default 1)");
  add("BACKEND", "string", "auto, cpu or cuda (default auto)");
  add("GREY", "boolean", "gradient: differentiate the grey levels of bands 1-3");
  add("SIGMA", "float", "gradient: Gaussian sigma in cells (default 1)");
  add("RADIUS", "int", "gradient: kernel radius in cells (default 3: 7 taps)");
  add("K", "int", "kmeans: number of classes (required)");
  add("COLOR_SPACE", "string", "kmeans: none or lab (8-bit RGB clustered in CIE L*a*b*)");
  add("SEED", "int", "kmeans: k-means++ seed (default 0)");
  add("N_INIT", "int", "kmeans: k-means++ runs, the lowest inertia wins (default 1)");
  add("MAX_ITER", "int", "kmeans: Lloyd iterations per run (default 300)");
  add("CELL", "int", "hog: pixels per cell side (default 8)");
  add("BLOCK", "int", "hog: cells per block side (default 3)");
  add("BINS", "int", "hog: orientation bins (default 9)");
  add("SIGNED", "boolean", "hog: orientations over 360 degrees");
  add("NORM", "string", "hog: L1, L1-sqrt, L2 or L2-Hys (default L2-Hys)");
  add("VARIANT", "string", "hog: skimage (default) or dalal-triggs (OpenCV's HOGDescriptor)");
  add("WINDOW_SIGMA", "float", "hog dalal-triggs: block window sigma in pixels (default block * cell / 4)");
  add("LEVEL", "int", "pyramid: the level, 0 = the base (required)");
  add("SCALE", "float", "pyramid: size ratio of consecutive levels (default 1.05)");
  add("RESAMPLING", "string", "pyramid: bilinear, area or gaussian (default bilinear)");
  add("VOLUME", "boolean", "fuzzy: every band a slice, segmented in 3-D");
  add("SEEDS", "string", "fuzzy: seeds X,Y[,Z] separated by semicolons (0-based)");
  add("ADJACENCY", "int", "fuzzy: 4 or 8 (image), 6 or 26 (volume)");
  add("SEED_RADIUS", "int", "fuzzy: object statistics from the (2R+1)-voxel boxes around the seeds (default 2)");
  add("MEAN", "float", "fuzzy: object mean (default: from the seeds)");
  add("SD", "float", "fuzzy: object SD (default: from the seeds)");
  add("SD_DIFF", "float", "fuzzy: SD of half-differences of neighbours (default: from the seeds)");
  return xml + "</OpenOptionList>";
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
  driver->SetMetadataItem(GDAL_DMD_HELPTOPIC, "docs/GDAL_DRIVER.md");
  static const std::string options = lsm::gdal_plugin::open_option_list();
  driver->SetMetadataItem(GDAL_DMD_OPENOPTIONLIST, options.c_str());
  driver->pfnIdentify = lsm::gdal_plugin::identify;
  driver->pfnOpen = lsm::gdal_plugin::open;
  GetGDALDriverManager()->RegisterDriver(driver);
}
