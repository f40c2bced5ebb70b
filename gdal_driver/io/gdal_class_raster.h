#pragma once
// A band of any raster GDAL opens, served to the engine as integer class
// codes (ClassRasterSource). Cells equal to the band's nodata value (and NaN
// cells of floating-point bands) are outside the landscape.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "raster.h"

class GDALDataset;
class GDALRasterBand;
class OGRSpatialReference;

namespace lsm {

class GdalClassRaster final : public ClassRasterSource {
 public:
  /// Opens band `band` (1-based) of `path`. Throws lsm::Error(BadInput) with
  /// one line naming the problem: the file is missing or not a raster, the
  /// band is out of range, or the band's type cannot hold class codes.
  GdalClassRaster(const std::string& path, int band);
  ~GdalClassRaster() override;

  RasterInfo info() const override { return info_; }
  /// Reads a window as class codes. Throws lsm::Error(BadInput) for a value
  /// that is not an integer in the int32 range, lsm::Error(Io) on read errors.
  /// A GeoTIFF window several blocks wide is read as slabs of whole block
  /// columns on several threads, each through its own dataset handle (GDAL's
  /// handles are not shared between threads): decoding, conversion and the
  /// nodata test all run in parallel. Not safe to call concurrently.
  using ClassRasterSource::read;
  void read(const Window& window, int32_t* out, int64_t line_stride) override;
  /// Negative codes (the landscape border): refused naming the cell (the
  /// default), read as nodata and noted, or read as they are.
  bool take_border_codes(BorderCodes how) override {
    border_codes_ = how;
    met_border_codes_ = false;
    return true;
  }
  bool met_border_codes() const override { return met_border_codes_.load(std::memory_order_relaxed); }

  /// Takes `value` as the band's nodata value in place of its own (none, or
  /// another): its cells are outside the landscape, as gdal_translate's
  /// -a_nodata declares. Call before reading.
  void set_nodata(double value) {
    nodata_ = value;
    has_nodata_ = true;
  }

  const std::string& path() const { return path_; }
  /// The open dataset, to copy georeferencing to derived rasters.
  GDALDataset* dataset() const { return dataset_.get(); }
  /// Throws lsm::Error(BadInput) naming the problem when the cells cannot be
  /// measured: a cell size of zero, not finite or above 10^7 map units
  /// (10,000 km), or a sheared geotransform (rotated ones are measured along
  /// their axes). Areas and lengths (FRAGSTATS' AREA, PERIM, TA, ED ...) need
  /// it; labeling alone does not.
  void require_measurable_cells() const;
  /// True when the CRS is geographic: info() then carries the cell sizes on
  /// the ellipsoid (RasterInfo::geodesic), measured with PROJ.
  bool geographic() const { return geographic_; }
  /// Name of the ellipsoid the cells were measured on (geographic rasters).
  const std::string& ellipsoid() const { return ellipsoid_; }
  /// That ellipsoid and the degrees of one map unit (geographic rasters;
  /// zeros otherwise).
  struct EllipsoidShape {
    double semi_major_m = 0, flattening = 0, degrees_per_unit = 0;
  };
  const EllipsoidShape& ellipsoid_shape() const { return ellipsoid_shape_; }
  /// True when the dataset has a CRS; without one, map units are taken as metres.
  bool has_crs() const { return has_crs_; }
  /// The class names the band carries: from its raster attribute table (the
  /// name column, GFU_Name, by the value column GFU_MinMax or GFU_Min, else
  /// by the table's linear binning or row), else its category names (index =
  /// class code). Empty when it has neither.
  std::map<int32_t, std::string> class_names() const;

 private:
  BorderCodes border_codes_ = BorderCodes::Refuse;
  mutable std::atomic<bool> met_border_codes_{false};  // set by reading threads
  // A negative code at (x, y) of the raster, `code`: refused, or nodata (noted), or kept.
  int32_t border_code(int64_t code, int64_t x, int64_t y) const;
  void measure_on_ellipsoid(const OGRSpatialReference& srs, const double geotransform[6]);
  void read_integers(GDALRasterBand* band, const Window& window, int32_t* out, int64_t line_stride) const;
  /// Windows of whole block columns that split `window` among the threads;
  /// one window when it is not worth splitting or the format is not GeoTIFF.
  std::vector<Window> column_slabs(const Window& window) const;
  GDALRasterBand* slab_band(size_t slab);
  /// The band to read `window` through: a handle of its own with one
  /// decoding thread for a small window, else the main one.
  GDALRasterBand* small_window_band(const Window& window);
  struct Closer {
    void operator()(GDALDataset* d) const;
  };
  std::vector<std::unique_ptr<GDALDataset, Closer>> slab_readers_;  // one per slab, opened on first use
  std::string path_;
  std::unique_ptr<GDALDataset, Closer> dataset_;
  GDALRasterBand* band_ = nullptr;
  int band_index_ = 1;
  RasterInfo info_;
  bool geographic_ = false;
  std::string ellipsoid_;
  EllipsoidShape ellipsoid_shape_;
  std::string cell_problem_;  ///< why the cells cannot be measured, or empty
  bool has_crs_ = false;
  bool read_as_int32_ = true;  // integer types that fit int32 are read directly
  bool geotiff_ = false;        // slabs are read in parallel only from GeoTIFFs (files, cheap to reopen)
  bool has_nodata_ = false;
  double nodata_ = 0;
};

}  // namespace lsm
