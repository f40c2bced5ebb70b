#include "gdal_class_raster.h"

#include <gdal_rat.h>

#include <climits>
#include <cmath>
#include <sstream>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <algorithm>
#include <exception>
#include <vector>

#include <omp.h>

#include "error.h"
#include "printable_text.h"
#include "gdal_errors.h"
#include "gdal_open.h"
#include "geodesic_rows.h"
#include "serial_thresholds.h"

namespace lsm {

void GdalClassRaster::Closer::operator()(GDALDataset* d) const { GDALClose(d); }

GdalClassRaster::GdalClassRaster(const std::string& path, int band) : path_(path), band_index_(band) {
  dataset_.reset(open_input_raster(path));
  const int bands = dataset_->GetRasterCount();
  if (band < 1 || band > bands)
    throw Error(ErrorKind::BadInput, "band " + std::to_string(band) + " is out of range: '" + path + "' has " +
                                         std::to_string(bands) + (bands == 1 ? " band" : " bands"));
  band_ = dataset_->GetRasterBand(band);
  const GDALDataType type = band_->GetRasterDataType();
  if (GDALDataTypeIsComplex(type))
    throw Error(ErrorKind::BadInput, std::string("band ") + std::to_string(band) + " of '" + path + "' has complex type " +
                                         GDALGetDataTypeName(type) + ": class codes must be integers");
  switch (type) {
    case GDT_Byte:
    case GDT_UInt16:
    case GDT_Int16:
    case GDT_Int32:
#if GDAL_VERSION_NUM >= 3070000
    case GDT_Int8:
#endif
      read_as_int32_ = true;
      break;
    default:  // UInt32, (U)Int64, Float32/64: read as double and checked cell by cell
      read_as_int32_ = false;
  }
  GDALDriver* driver = dataset_->GetDriver();
  geotiff_ = driver && std::string(driver->GetDescription()) == "GTiff";
  int has = 0;
  nodata_ = band_->GetNoDataValue(&has);
  has_nodata_ = has != 0;

  info_.width = dataset_->GetRasterXSize();
  info_.height = dataset_->GetRasterYSize();
  band_->GetBlockSize(&info_.block_width, &info_.block_height);
  double gt[6];
  const bool has_geotransform = dataset_->GetGeoTransform(gt) == CE_None;
  if (has_geotransform) {
    info_.cell_width = std::hypot(gt[1], gt[4]);
    info_.cell_height = std::hypot(gt[2], gt[5]);
    const double shear = gt[1] * gt[2] + gt[4] * gt[5];  // 0 when the raster's axes are orthogonal
    for (double size : {info_.cell_width, info_.cell_height})
      if (!std::isfinite(size) || size <= 0 || size > 1e7)
        cell_problem_ = "has a cell size of " + (std::ostringstream() << size).str() + " map units (from its geotransform)";
    if (cell_problem_.empty() && std::fabs(shear) > 1e-9 * info_.cell_width * info_.cell_height)
      cell_problem_ = "has a sheared geotransform (its cells are not rectangles)";
  }
  if (const OGRSpatialReference* srs = dataset_->GetSpatialRef()) {
    has_crs_ = !srs->IsEmpty();
    geographic_ = srs->IsGeographic();
    if (geographic_ && has_geotransform) measure_on_ellipsoid(*srs, gt);
  }
}

void GdalClassRaster::measure_on_ellipsoid(const OGRSpatialReference& srs, const double gt[6]) {
  if (gt[2] != 0 || gt[4] != 0)
    throw Error(ErrorKind::BadInput, "'" + path_ +
                                         "' is a geographic raster with a rotated geotransform; "
                                         "warp it north-up (gdalwarp) first");
  // Raster x is longitude and y latitude (GDAL's traditional GIS axis order for rasters).
  const double degrees_per_unit = srs.GetAngularUnits(nullptr) * 180.0 / M_PI;
  OGRErr err = OGRERR_NONE;
  const double a = srs.GetSemiMajor(&err);
  const double inverse_flattening = srs.GetInvFlattening(&err);
  GeographicGrid grid;
  grid.top_latitude = gt[3] * degrees_per_unit;
  grid.row_step = gt[5] * degrees_per_unit;
  grid.column_step = gt[1] * degrees_per_unit;
  grid.height = info_.height;
  ellipsoid_shape_ = {a, inverse_flattening > 0 ? 1 / inverse_flattening : 0, degrees_per_unit};
  info_.geodesic = std::make_shared<const GeodesicRows>(geodesic_rows(grid, a, ellipsoid_shape_.flattening));
  const char* name = srs.GetAttrValue("SPHEROID");
  ellipsoid_ = name ? name : "a=" + std::to_string(a) + " m";
}

GdalClassRaster::~GdalClassRaster() = default;

void GdalClassRaster::require_measurable_cells() const {
  if (!cell_problem_.empty())
    throw Error(ErrorKind::BadInput, "'" + path_ + "' " + cell_problem_ +
                                         ": areas and lengths cannot be measured; fix the georeferencing (gdal_edit.py -a_ullr or -tr)");
}

std::vector<Window> GdalClassRaster::column_slabs(const Window& w) const {
  const int64_t bw = std::max(1, info_.block_width);
  const int64_t first_block = w.x0 / bw, end_block = (w.x0 + w.width + bw - 1) / bw;
  const int64_t slabs = std::min<int64_t>({omp_get_max_threads(), end_block - first_block, 64});
  // A small window (a zone's, a plot's) is read on the calling thread: a
  // team of readers costs more than its few blocks (serial_thresholds.h).
  if (!geotiff_ || !read_as_int32_ || slabs < 2 || w.width * w.height <= kSerialCells) return {w};
  std::vector<Window> out;
  for (int64_t k = 0; k < slabs; ++k) {
    const int64_t x0 = std::max(w.x0, (first_block + (end_block - first_block) * k / slabs) * bw);
    const int64_t x1 = std::min(w.x0 + w.width, (first_block + (end_block - first_block) * (k + 1) / slabs) * bw);
    out.push_back({x0, w.y0, x1 - x0, w.height});
  }
  return out;
}

GDALRasterBand* GdalClassRaster::slab_band(size_t slab) {
  while (slab_readers_.size() <= slab) {
    // One decoding thread per handle: the slabs are the parallelism.
    const char* const options[] = {"NUM_THREADS=1", nullptr};
    GDALDataset* d = GDALDataset::Open(path_.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, options);
    if (!d) throw Error(ErrorKind::Io, "cannot open '" + path_ + "' again for parallel reading: " + gdal_failure_reason());
    slab_readers_.emplace_back(d);
  }
  return slab_readers_[slab]->GetRasterBand(band_index_);
}

GDALRasterBand* GdalClassRaster::small_window_band(const Window& w) {
  // GDAL_NUM_THREADS=ALL_CPUS makes every read of the main handle hand its
  // blocks to GDAL's thread pool: for a zone's few blocks the handing costs
  // more than the decoding (bern_valais' 1 044 grid zones: 0.53 -> 0.41 s).
  if (geotiff_ && w.width * w.height <= kSerialCells) return slab_band(0);
  return band_;
}

namespace {

// GDAL_NUM_THREADS=ALL_CPUS (lsm's default, or the host's setting) decodes
// the main handle's blocks in GDAL's threads; in a host (the driver in QGIS)
// their failures reach the host's handler, not lsm's, and the read fails
// without a reason. The same read through a single-threaded handle meets
// the failure in the reading thread, where HeldGdalMessages hears it.
bool without_reason(const Error& e) {
  const std::string m = e.what();
  return m.size() >= kNoGdalReason.size() && m.compare(m.size() - kNoGdalReason.size(), kNoGdalReason.size(), kNoGdalReason) == 0;
}

// FRAGSTATS reads negative class codes as the landscape border (cells outside
// the landscape that decide the type of its boundary edges): a job that does
// not give them that meaning refuses them rather than read them as classes.
[[noreturn]] void negative_code(int band, const std::string& path, int64_t code, int64_t x, int64_t y) {
  throw Error(ErrorKind::BadInput, "band " + std::to_string(band) + " of '" + path + "' holds the negative class code " +
                                       std::to_string(code) + " at column " + std::to_string(x) + ", row " +
                                       std::to_string(y) + ": FRAGSTATS reads negative codes as the landscape "
                                       "border, which this command does not take (lsm metrics does); here make them the "
                                       "raster's nodata value");
}

}  // namespace

int32_t GdalClassRaster::border_code(int64_t code, int64_t x, int64_t y) const {
  switch (border_codes_) {
    case BorderCodes::Refuse: negative_code(band_index_, path_, code, x, y);
    case BorderCodes::AsNodata: met_border_codes_.store(true, std::memory_order_relaxed); return kNoClass;
    case BorderCodes::AsRead: break;
  }
  return static_cast<int32_t>(code);
}

void GdalClassRaster::read_integers(GDALRasterBand* band, const Window& w, int32_t* out, int64_t line_stride) const {
  HeldGdalMessages held;  // GDAL's reason goes into lsm's line, from whichever thread reads
  if (band->RasterIO(GF_Read, int(w.x0), int(w.y0), int(w.width), int(w.height), out, int(w.width), int(w.height),
                     GDT_Int32, 0, static_cast<GSpacing>(line_stride) * 4) != CE_None)
    throw Error(ErrorKind::Io, "cannot read rows " + std::to_string(w.y0) + ".." + std::to_string(w.y0 + w.height - 1) +
                                   " of '" + path_ + "': " + gdal_failure_reason());
  const bool nodata_is_code = has_nodata_ && std::floor(nodata_) == nodata_ && nodata_ >= INT32_MIN && nodata_ <= INT32_MAX;
  const int32_t nd = nodata_is_code ? static_cast<int32_t>(nodata_) : 0;
  for (int64_t y = 0; y < w.height; ++y) {
    int32_t* row = out + y * line_stride;
    for (int64_t x = 0; x < w.width; ++x) {
      if (nodata_is_code && row[x] == nd) row[x] = kNoClass;
      else if (row[x] < 0 && row[x] != kNoClass) row[x] = border_code(row[x], w.x0 + x, w.y0 + y);
      else if (row[x] == kNoClass)
        throw Error(ErrorKind::BadInput, "band " + std::to_string(band_index_) + " of '" + path_ + "' holds the value " +
                                             std::to_string(row[x]) + " (reserved) at column " +
                                             std::to_string(w.x0 + x) + ", row " + std::to_string(w.y0 + y) +
                                             ": class codes must be integers in the int32 range");
    }
  }
}

void GdalClassRaster::read(const Window& w, int32_t* out, int64_t line_stride) {
  HeldGdalMessages held;  // GDAL's reason goes into lsm's line, from whichever thread reads
  const size_t n = static_cast<size_t>(w.width * w.height);
  auto fail = [&]() {
    throw Error(ErrorKind::Io, "cannot read rows " + std::to_string(w.y0) + ".." + std::to_string(w.y0 + w.height - 1) +
                                   " of '" + path_ + "': " + gdal_failure_reason());
  };
  auto bad_value = [&](size_t i, const std::string& what) {
    throw Error(ErrorKind::BadInput, "band " + std::to_string(band_index_) + " of '" + path_ + "' holds " + what +
                                         " at column " + std::to_string(w.x0 + int64_t(i) % w.width) + ", row " +
                                         std::to_string(w.y0 + int64_t(i) / w.width) +
                                         ": class codes must be integers in the int32 range");
  };
  if (read_as_int32_) {
    const std::vector<Window> slabs = column_slabs(w);
    if (slabs.size() == 1) {
      GDALRasterBand* band = small_window_band(w);
      try {
        return read_integers(band, w, out, line_stride);
      } catch (const Error& e) {
        if (band != band_ || !without_reason(e)) throw;
      }
      return read_integers(slab_band(0), w, out, line_stride);  // the failure again, in this thread
    }
    std::vector<GDALRasterBand*> bands;
    for (size_t k = 0; k < slabs.size(); ++k) bands.push_back(slab_band(k));
    // The leftmost slab's error is the one reported, whatever the schedule.
    std::vector<std::exception_ptr> errors(slabs.size());
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(slabs.size()))
    for (int64_t k = 0; k < static_cast<int64_t>(slabs.size()); ++k) {
      const Window& slab = slabs[static_cast<size_t>(k)];
      try {
        read_integers(bands[static_cast<size_t>(k)], slab, out + (slab.x0 - w.x0), line_stride);
      } catch (...) {
        errors[static_cast<size_t>(k)] = std::current_exception();
      }
    }
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    return;
  }
  CPLErrorReset();
  std::vector<double> values(n);
  GDALRasterBand* band = small_window_band(w);
  const auto read_doubles = [&](GDALRasterBand* from) {
    return from->RasterIO(GF_Read, int(w.x0), int(w.y0), int(w.width), int(w.height), values.data(), int(w.width),
                          int(w.height), GDT_Float64, 0, 0) == CE_None;
  };
  if (!read_doubles(band)) {
    // Met in one of GDAL's decoding threads without a reason here: again
    // through the single-threaded handle, where this thread hears it.
    if (band != band_ || gdal_failure_reason() != kNoGdalReason || !read_doubles(slab_band(0))) fail();
  }
  for (size_t i = 0; i < n; ++i) {
    const double v = values[i];
    int32_t& cell = out[static_cast<int64_t>(i) / w.width * line_stride + static_cast<int64_t>(i) % w.width];
    if (std::isnan(v) || (has_nodata_ && v == nodata_)) {
      cell = kNoClass;
    } else if (std::floor(v) != v) {
      char text[64];
      std::snprintf(text, sizeof text, "the non-integer value %.17g", v);
      bad_value(i, text);
    } else if (v == double(INT32_MIN)) {
      bad_value(i, "the value -2147483648, which lsm reserves for nodata,");
    } else if (v < 0 && v > double(INT32_MIN)) {
      cell = border_code(static_cast<int64_t>(v), w.x0 + int64_t(i) % w.width, w.y0 + int64_t(i) / w.width);
    } else if (v < double(INT32_MIN) || v > double(INT32_MAX)) {
      char text[64];
      std::snprintf(text, sizeof text, "the value %.17g", v);
      bad_value(i, text);
    } else {
      cell = static_cast<int32_t>(v);
    }
  }
}

std::map<int32_t, std::string> GdalClassRaster::class_names() const {
  std::map<int32_t, std::string> names;
  if (const GDALRasterAttributeTable* rat = band_->GetDefaultRAT(); rat && rat->GetRowCount() > 0) {
    const int name_column = rat->GetColOfUsage(GFU_Name);
    int value_column = rat->GetColOfUsage(GFU_MinMax);
    if (value_column < 0) value_column = rat->GetColOfUsage(GFU_Min);
    double first = 0, step = 1;
    const bool binned = value_column < 0 && rat->GetLinearBinning(&first, &step);
    for (int row = 0; name_column >= 0 && row < rat->GetRowCount(); ++row) {
      const double value = value_column >= 0 ? rat->GetValueAsDouble(row, value_column)
                           : binned       ? first + row * step
                                          : row;
      const std::string name = rat->GetValueAsString(row, name_column);
      // A value that is no int32 class code (1e10, inf, NaN) names no class.
      if (!name.empty() && value == std::floor(value) && value >= INT32_MIN && value <= INT32_MAX)
        names[static_cast<int32_t>(value)] = printable_text(name);
    }
  }
  if (!names.empty()) return names;
  char** categories = band_->GetCategoryNames();
  for (int i = 0; categories && categories[i]; ++i)
    if (*categories[i]) names[i] = printable_text(categories[i]);
  return names;
}

}  // namespace lsm
