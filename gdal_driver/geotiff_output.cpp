#include "geotiff_output.h"

#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal_priv.h>

#include "error.h"
#include "gdal_environment.h"

namespace lsm {

GeoReference georeference_of(GDALDataset* dataset) {
  GeoReference g;
  g.has_geotransform = dataset->GetGeoTransform(g.geotransform) == CE_None;
  if (const char* wkt = dataset->GetProjectionRef()) g.wkt = wkt;
  return g;
}

void GeoTiffOutput::Closer::operator()(GDALDataset* d) const { GDALClose(d); }

GeoTiffOutput::GeoTiffOutput(const std::string& path, int64_t width, int64_t height, GDALDataType type,
                             const GeoReference& georef, std::optional<double> nodata, int bands)
    : file_(path) {
  prepare_gdal_for_streaming();
  GDALDriver* driver = GetGDALDriverManager()->GetDriverByName("GTiff");
  if (!driver) throw Error(ErrorKind::Io, "GDAL has no GTiff driver");
  CPLStringList options;
  options.SetNameValue("TILED", "YES");
  options.SetNameValue("BLOCKXSIZE", "256");
  options.SetNameValue("BLOCKYSIZE", "256");
  options.SetNameValue("COMPRESS", "DEFLATE");
  options.SetNameValue("BIGTIFF", "IF_SAFER");
  // One band's window at a time is written: band-interleaved blocks keep each write in its own blocks.
  if (bands > 1) options.SetNameValue("INTERLEAVE", "BAND");
  // Single-threaded compression: GDAL 3.6 was seen to hang writing a DEFLATE
  // GTiff with GDAL_NUM_THREADS=ALL_CPUS and a small block cache.
  options.SetNameValue("NUM_THREADS", "1");
  CPLErrorReset();
  dataset_.reset(driver->Create(file_.temp_path().c_str(), int(width), int(height), bands, type, options.List()));
  if (!dataset_) throw Error(ErrorKind::Io, "cannot create '" + path + "': " + CPLGetLastErrorMsg());
  if (georef.has_geotransform) dataset_->SetGeoTransform(const_cast<double*>(georef.geotransform));
  if (!georef.wkt.empty()) dataset_->SetProjection(georef.wkt.c_str());
  if (nodata)
    for (int b = 1; b <= bands; ++b) dataset_->GetRasterBand(b)->SetNoDataValue(*nodata);
}

GeoTiffOutput::~GeoTiffOutput() = default;  // an uncommitted output is closed, then its file removed

void GeoTiffOutput::write(const Window& w, const void* data, GDALDataType data_type, int band) {
  CPLErrorReset();
  if (dataset_->GetRasterBand(band)->RasterIO(GF_Write, int(w.x0), int(w.y0), int(w.width), int(w.height),
                                           const_cast<void*>(data), int(w.width), int(w.height), data_type, 0,
                                           0) != CE_None)
    throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "': " + CPLGetLastErrorMsg());
}

void GeoTiffOutput::write_interleaved(const Window& w, const float* data) {
  const int bands = dataset_->GetRasterCount();
  CPLErrorReset();
  if (dataset_->RasterIO(GF_Write, int(w.x0), int(w.y0), int(w.width), int(w.height), const_cast<float*>(data),
                         int(w.width), int(w.height), GDT_Float32, bands, nullptr, sizeof(float) * bands,
                         sizeof(float) * bands * w.width, sizeof(float), nullptr) != CE_None)
    throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "': " + CPLGetLastErrorMsg());
}

void GeoTiffOutput::describe_band(int band, const std::string& description) {
  dataset_->GetRasterBand(band)->SetDescription(description.c_str());
}

void GeoTiffOutput::set_metadata(const std::string& key, const std::string& value) {
  dataset_->SetMetadataItem(key.c_str(), value.c_str());
}

void GeoTiffOutput::commit() {
  CPLErrorReset();
  dataset_->FlushCache(false);
  GDALClose(dataset_.release());  // void in GDAL 3.6: failures show in the error state
  if (CPLGetLastErrorType() >= CE_Failure)
    throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "': " + CPLGetLastErrorMsg());
  file_.commit();
}

}  // namespace lsm
