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

/// Checks a RasterFormat (raster.h) before any work: throws
/// lsm::Error(BadInput) for an unknown driver, one that cannot write rasters,
/// or a creation option without '='.
void check_raster_format(const RasterFormat& format);

class GeoTiffOutput {
 public:
  /// Creates `path`'s temporary file as a width x height raster of `bands`
  /// bands of `type` (band-interleaved when bands > 1), `nodata` set on every
  /// band, in `format` (the run context's or -of/-co). GTiff gets lsm's
  /// options (tiled 256 x 256, DEFLATE, BigTIFF when needed) under the
  /// format's. A driver that can only CreateCopy (COG, PNG, JPEG ...) is
  /// written through a temporary GeoTIFF in the format's staging_dir (else
  /// beside the output). Every file of the dataset (side files such as
  /// .aux.xml and ENVI's .hdr included) appears at
  /// its final name only on commit (atomic_dataset.h). Throws
  /// lsm::Error(BadInput) for a bad format (check_raster_format), Error(Io)
  /// when it cannot be created.
  GeoTiffOutput(const std::string& path, const RasterFormat& format, int64_t width, int64_t height, GDALDataType type,
                const GeoReference& georef, std::optional<double> nodata, int bands = 1);
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
  RasterFormat format_;       ///< the format asked for (the staging GeoTIFF's target)
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
