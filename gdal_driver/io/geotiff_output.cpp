#include "geotiff_output.h"

#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal_priv.h>

#include "error.h"
#include "gdal_errors.h"
#include "gdal_environment.h"

namespace lsm {

GeoReference georeference_of(GDALDataset* dataset) {
  GeoReference g;
  g.has_geotransform = dataset->GetGeoTransform(g.geotransform) == CE_None;
  if (const char* wkt = dataset->GetProjectionRef()) g.wkt = wkt;
  return g;
}

void GeoTiffOutput::Closer::operator()(GDALDataset* d) const { GDALClose(d); }

GeoReference scale_cells(const GeoReference& georef, double sx, double sy) {
  GeoReference g = georef;
  g.geotransform[1] *= sx;  // column steps in x and y
  g.geotransform[4] *= sx;
  g.geotransform[2] *= sy;  // row steps
  g.geotransform[5] *= sy;
  return g;
}

namespace {

GDALDriver* driver_named(const std::string& name) {
  prepare_gdal_for_streaming();
  GDALDriver* driver = GetGDALDriverManager()->GetDriverByName(name.c_str());
  if (!driver) throw Error(ErrorKind::BadInput, "unknown output format '" + name + "' (see lsm --formats)");
  return driver;
}

bool can(GDALDriver* driver, const char* capability) {
  const char* v = driver->GetMetadataItem(capability);
  return v && CPLTestBool(v);
}

// Sets each NAME=VALUE of `options` in `list`, replacing a value of the same
// name already there (lsm's defaults), so that the user's choice is the one
// GDAL reads (it reads a name's first occurrence).
void set_options(CPLStringList& list, const std::vector<std::string>& options) {
  for (const std::string& o : options) {
    const size_t eq = o.find('=');
    list.SetNameValue(o.substr(0, eq).c_str(), o.substr(eq + 1).c_str());
  }
}

// GDAL's warnings while checking creation options ("driver GTiff does not
// support creation option FOO"), joined.
void CPL_STDCALL collect_warning(CPLErr level, CPLErrorNum, const char* message) {
  if (level < CE_Warning) return;
  std::string& text = *static_cast<std::string*>(CPLGetErrorHandlerUserData());
  text += (text.empty() ? "" : "; ") + std::string(message);
}

}  // namespace

void check_raster_format(const RasterFormat& format) {
  GDALDriver* driver = driver_named(format.driver);
  if (!can(driver, GDAL_DCAP_RASTER) || (!can(driver, GDAL_DCAP_CREATE) && !can(driver, GDAL_DCAP_CREATECOPY)))
    throw Error(ErrorKind::BadInput, "output format '" + format.driver + "' cannot write rasters");
  for (const std::string& o : format.creation_options)
    if (o.find('=') == std::string::npos || o.front() == '=')
      throw Error(ErrorKind::BadInput, "bad creation option '" + o + "': expected NAME=VALUE");
  // Options the format does not have, or values it does not take, are
  // refused here (GDAL would only warn and ignore them).
  CPLStringList options;
  set_options(options, format.creation_options);
  std::string warnings;
  CPLPushErrorHandlerEx(collect_warning, &warnings);
  const bool valid = GDALValidateCreationOptions(driver, options.List()) != FALSE;
  CPLPopErrorHandler();
  if (!valid)
    throw Error(ErrorKind::BadInput, "creation options refused by " + format.driver + ": " +
                                         (warnings.empty() ? std::string("see its documentation") : warnings));
}

GeoTiffOutput::GeoTiffOutput(const std::string& path, const RasterFormat& format, int64_t width, int64_t height,
                             GDALDataType type, const GeoReference& georef, std::optional<double> nodata, int bands)
    : file_(path), format_(format) {
  prepare_gdal_for_streaming();
  check_raster_format(format);
  GDALDriver* target = driver_named(format.driver);
  // A format that would clip the cells (PNG and JPEG hold Byte, UInt16) or
  // write no file (MEM) is refused rather than losing the output silently.
  if (EQUAL(target->GetDescription(), "MEM"))
    throw Error(ErrorKind::BadInput, "output format MEM writes no file; give a file format such as GTiff or COG");
  if (const char* types = target->GetMetadataItem(GDAL_DMD_CREATIONDATATYPES)) {
    const CPLStringList list(CSLTokenizeString(types));
    if (list.FindString(GDALGetDataTypeName(type)) < 0)
      throw Error(ErrorKind::BadInput, "output format " + format.driver + " cannot hold " + GDALGetDataTypeName(type) +
                                           " cells (it takes " + types + "); give GTiff or COG");
  }
  const double bytes = static_cast<double>(width) * static_cast<double>(height) * bands * GDALGetDataTypeSizeBytes(type);
  if (format.max_bytes > 0 && bytes > static_cast<double>(format.max_bytes))
    throw Error(ErrorKind::BadInput, "the output '" + std::string(CPLGetFilename(path.c_str())) + "' would hold " +
                                         std::to_string(static_cast<uint64_t>(bytes)) + " bytes (" +
                                         std::to_string(width) + " x " + std::to_string(height) + " cells, " +
                                         std::to_string(bands) + " bands), more than the limit of " +
                                         std::to_string(format.max_bytes) + " bytes");
  const bool direct = can(target, GDAL_DCAP_CREATE);
  GDALDriver* driver = direct ? target : driver_named("GTiff");
  CPLStringList options;
  if (EQUAL(driver->GetDescription(), "GTiff")) {
    options.SetNameValue("TILED", "YES");
    options.SetNameValue("BLOCKXSIZE", "256");
    options.SetNameValue("BLOCKYSIZE", "256");
    options.SetNameValue("COMPRESS", direct ? "DEFLATE" : "NONE");  // a staging file is read once, at once
    options.SetNameValue("BIGTIFF", "IF_SAFER");
    // One band's window at a time is written: band-interleaved blocks keep each write in its own blocks.
    if (bands > 1) options.SetNameValue("INTERLEAVE", "BAND");
    // Single-threaded compression: GDAL 3.6 was seen to hang writing a DEFLATE
    // GTiff with GDAL_NUM_THREADS=ALL_CPUS and a small block cache.
    options.SetNameValue("NUM_THREADS", "1");
  }
  if (direct) set_options(options, format.creation_options);  // the user's replace lsm's defaults
  std::string create_path = file_.temp_path();
  if (!direct) {
    const std::string name = file_.temp_path() + ".lsm-staging.tif";  // the temporary name holds the process ID
    staging_ = format.staging_dir.empty() ? name : format.staging_dir + "/" + CPLGetFilename(name.c_str());
    create_path = staging_;
  }
  CPLErrorReset();
  dataset_.reset(driver->Create(create_path.c_str(), int(width), int(height), bands, type, options.List()));
  if (!dataset_) throw Error(ErrorKind::Io, "cannot create '" + path + "': " + gdal_failure_reason());
  if (georef.has_geotransform) dataset_->SetGeoTransform(const_cast<double*>(georef.geotransform));
  if (!georef.wkt.empty()) dataset_->SetProjection(georef.wkt.c_str());
  if (nodata)
    for (int b = 1; b <= bands; ++b) dataset_->GetRasterBand(b)->SetNoDataValue(*nodata);
}

GeoTiffOutput::~GeoTiffOutput() {
  // An uncommitted output is closed, then its files removed (AtomicDatasetOutput);
  // a staging GeoTIFF in the scratch folder is removed here.
  dataset_.reset();
  if (!staging_.empty() && !format_.staging_dir.empty()) {
    VSIUnlink(staging_.c_str());
    VSIUnlink((staging_ + ".aux.xml").c_str());
  }
}

void GeoTiffOutput::write(const Window& w, const void* data, GDALDataType data_type, int band) {
  CPLErrorReset();
  if (dataset_->GetRasterBand(band)->RasterIO(GF_Write, int(w.x0), int(w.y0), int(w.width), int(w.height),
                                           const_cast<void*>(data), int(w.width), int(w.height), data_type, 0,
                                           0) != CE_None)
    throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "': " + gdal_failure_reason());
}

void GeoTiffOutput::write_interleaved(const Window& w, const float* data) {
  const int bands = dataset_->GetRasterCount();
  const int64_t width = dataset_->GetRasterXSize(), height = dataset_->GetRasterYSize();
  int block_width = 0, block_height = 0;
  dataset_->GetRasterBand(1)->GetBlockSize(&block_width, &block_height);
  const int64_t row_values = width * bands;
  if (w.x0 != 0 || w.width != width || w.y0 != pending_y0_ + pending_rows_ || int64_t(block_height) * row_values > (int64_t(256) << 20)) {
    // Not the next full-width rows (or blocks too tall to gather): as given.
    write_pending();
    pending_y0_ = w.y0 + w.height;
    CPLErrorReset();
    if (dataset_->RasterIO(GF_Write, int(w.x0), int(w.y0), int(w.width), int(w.height), const_cast<float*>(data),
                           int(w.width), int(w.height), GDT_Float32, bands, nullptr, sizeof(float) * bands,
                           sizeof(float) * bands * w.width, sizeof(float), nullptr) != CE_None)
      throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "': " + gdal_failure_reason());
    return;
  }
  for (int64_t r = 0; r < w.height; ++r) {
    pending_.insert(pending_.end(), data + r * row_values, data + (r + 1) * row_values);
    ++pending_rows_;
    const int64_t end = pending_y0_ + pending_rows_;
    if (end % block_height == 0 || end == height) write_pending();
  }
}

void GeoTiffOutput::write_pending() {
  if (pending_rows_ == 0) return;
  const int bands = dataset_->GetRasterCount();
  const int width = dataset_->GetRasterXSize();
  CPLErrorReset();
  if (dataset_->RasterIO(GF_Write, 0, int(pending_y0_), width, int(pending_rows_), pending_.data(), width,
                         int(pending_rows_), GDT_Float32, bands, nullptr, sizeof(float) * bands,
                         sizeof(float) * bands * width, sizeof(float), nullptr) != CE_None)
    throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "': " + gdal_failure_reason());
  pending_y0_ += pending_rows_;
  pending_rows_ = 0;
  pending_.clear();
}

void GeoTiffOutput::describe_band(int band, const std::string& description) {
  dataset_->GetRasterBand(band)->SetDescription(description.c_str());
}

void GeoTiffOutput::set_metadata(const std::string& key, const std::string& value) {
  dataset_->SetMetadataItem(key.c_str(), value.c_str());
}

void GeoTiffOutput::commit() {
  write_pending();
  CPLErrorReset();
  dataset_->FlushCache(false);
  if (!staging_.empty()) {  // a CreateCopy-only format: copy the finished staging GeoTIFF
    const RasterFormat& format = format_;
    CPLStringList options;
    set_options(options, format.creation_options);
    // The copy stops when the run is cancelled (a dismissed or timed-out job).
    auto keep_going = [](double, const char*, void* flag) -> int {
      return !(flag && static_cast<const std::atomic<bool>*>(flag)->load());
    };
    GDALDataset* copy = driver_named(format.driver)
                            ->CreateCopy(file_.temp_path().c_str(), dataset_.get(), FALSE, options.List(), keep_going,
                                         const_cast<std::atomic<bool>*>(format.cancel));
    if (!copy && format.cancel && format.cancel->load()) throw Error(ErrorKind::Io, "interrupted");
    if (!copy)
      throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "' as " + format.driver + ": " +
                                     gdal_failure_reason());
    GDALClose(copy);
  }
  GDALClose(dataset_.release());  // void in GDAL 3.6: failures show in the error state
  if (CPLGetLastErrorType() >= CE_Failure)
    throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "': " + gdal_failure_reason());
  if (!staging_.empty()) GDALDeleteDataset(GDALGetDriverByName("GTiff"), staging_.c_str());  // with its side files
  file_.commit();
}

}  // namespace lsm
