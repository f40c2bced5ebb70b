#pragma once
// GeoTIFF outputs of lsm (patch-ID rasters, synthetic landscapes): tiled,
// DEFLATE-compressed, BigTIFF when needed, written under a temporary name and
// renamed into place only when complete (AtomicOutput).
#include <gdal.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "atomic_dataset.h"
#include "raster.h"

class GDALDataset;

namespace lsm {

/// The georeferencing of an open dataset.
GeoReference georeference_of(GDALDataset* dataset);

/// `georef` with cells `sx` times wider and `sy` times taller (the same
/// origin and extent for a raster sx, sy times smaller): pyramid levels, HOG blocks.
GeoReference scale_cells(const GeoReference& georef, double sx, double sy);

/// The format of lsm's raster outputs (the CLI's -of and -co): a GDAL
/// driver's short name and creation options. GTiff (the default) gets lsm's
/// options (tiled 256 x 256, DEFLATE, BigTIFF when needed) under the user's.
/// A driver that can only CreateCopy (COG, PNG, JPEG ...) is written through
/// a temporary GeoTIFF beside the output. Every file of the dataset (side
/// files such as .aux.xml and ENVI's .hdr included) appears at its final
/// name only on commit (atomic_dataset.h).
struct RasterFormat {
  std::string driver = "GTiff";
  std::vector<std::string> creation_options;  ///< NAME=VALUE
};

/// Sets the format of every GeoTiffOutput created afterwards (process-wide,
/// as GDAL's own configuration). Throws lsm::Error(BadInput) for an unknown
/// driver, one that cannot write rasters, or an option without '='.
void set_raster_output_format(const RasterFormat& format);

class GeoTiffOutput {
 public:
  /// Creates `path`'s temporary file as a width x height raster of `bands`
  /// bands of `type` (band-interleaved when bands > 1), `nodata` set on every
  /// band, in the format set_raster_output_format() chose (GeoTIFF by
  /// default). Throws lsm::Error(Io) when it cannot be created.
  GeoTiffOutput(const std::string& path, int64_t width, int64_t height, GDALDataType type, const GeoReference& georef,
                std::optional<double> nodata, int bands = 1);
  ~GeoTiffOutput();
  /// Writes a window of `data` (row-major, of `data_type`) into 1-based
  /// `band`. Throws lsm::Error(Io).
  void write(const Window& window, const void* data, GDALDataType data_type, int band = 1);
  /// Writes a window of every band from cell-interleaved floats (`bands`
  /// values per cell, the output's band count). Full-width windows in row
  /// order are gathered into whole rows of blocks before GDAL sees them, so
  /// that every block is written once and the file's bytes do not depend on
  /// the strip height (GDAL rewrites a pixel-interleaved block, at a new
  /// offset, each time a write leaves it). Throws lsm::Error(Io).
  void write_interleaved(const Window& window, const float* data);
  /// Names 1-based `band` (GDAL's band description, e.g. "gx").
  void describe_band(int band, const std::string& description);
  /// Sets dataset metadata item `key` (default domain), e.g. VOXEL_SIZE_MM.
  void set_metadata(const std::string& key, const std::string& value);
  /// Closes the dataset and renames it into place. Throws lsm::Error(Io).
  void commit();

 private:
  struct Closer {
    void operator()(GDALDataset* d) const;
  };
  AtomicDatasetOutput file_;  ///< the dataset and its side files, at their final names only when complete
  std::string staging_;       ///< the GeoTIFF a CreateCopy-only format is copied from; empty = none
  std::unique_ptr<GDALDataset, Closer> dataset_;
  std::vector<float> pending_;  ///< rows of write_interleaved() not yet given to GDAL, from pending_y0_
  int64_t pending_y0_ = 0, pending_rows_ = 0;
  void write_pending();
};

/// Adapter: the engine's patch-ID raster into a UInt32 GeoTiffOutput.
class GeoTiffLabelSink final : public LabelRasterSink {
 public:
  explicit GeoTiffLabelSink(GeoTiffOutput& out) : out_(out) {}
  void write(const Window& window, const uint32_t* labels) override { out_.write(window, labels, GDT_UInt32); }

 private:
  GeoTiffOutput& out_;
};

}  // namespace lsm
