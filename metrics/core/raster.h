#pragma once
// Raster geometry and the two I/O interfaces the engine streams through.
// The core never includes GDAL: gdal_driver/ implements these interfaces on
// GDAL datasets, memory_raster.h implements them on in-memory arrays.
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace lsm {

/// Class code value that marks a cell outside the landscape (nodata, or a halo
/// cell beyond the raster's edge). Readers map the band's nodata value to it;
/// a real class code may not take this value.
constexpr int32_t kNoClass = std::numeric_limits<int32_t>::min();

/// Cell sizes on the ellipsoid, row by row, of a north-up raster in a
/// geographic CRS: the cells of one row are equal, rows differ with latitude.
/// Computed by the reader (gdal_driver/, PROJ's geodesic functions); see
/// cell_geometry.h for how the metrics use them.
struct GeodesicRows {
  std::vector<double> cell_area_m2;  ///< [height]: area of one cell of row y (m2)
  std::vector<double> side_h_m;      ///< [height + 1]: top/bottom cell side on row boundary b (b = 0: top of row 0), m
  std::vector<double> side_v_m;      ///< [height]: left/right cell side of row y (meridian arc), m
};

/// Size and cell geometry of a categorical raster.
struct RasterInfo {
  int64_t width = 0;       ///< columns (cells)
  int64_t height = 0;      ///< rows (cells)
  int block_width = 256;   ///< natural read block of the source (cells); tiles align to it
  int block_height = 256;
  double cell_width = 1;   ///< cell size along x in metres (positive); horizontal edges have this length
  double cell_height = 1;  ///< cell size along y in metres (positive); vertical edges have this length
  /// Set for a geographic CRS: cell sizes on the ellipsoid, which the metrics
  /// use instead of cell_width/cell_height (then in degrees).
  std::shared_ptr<const GeodesicRows> geodesic;
};

/// Georeferencing of a raster (read from a source, stamped on an output).
struct GeoReference {
  bool has_geotransform = false;
  double geotransform[6] = {0, 1, 0, 0, 0, 1};  ///< GDAL's affine transform
  std::string wkt;                              ///< CRS as WKT; empty = none
};

/// The format of raster outputs: a GDAL driver's short name and its creation
/// options (the command line's -of and -co). Plain data, so that a run
/// context carries it without GDAL; gdal_driver/io/geotiff_output.h writes it.
struct RasterFormat {
  std::string driver = "GTiff";
  std::vector<std::string> creation_options;  ///< NAME=VALUE
  /// Where a copy-only format's staging GeoTIFF is written (the run's
  /// scratch folder, --temp-dir); empty = beside the output.
  std::string staging_dir;
  /// The most bytes one raster output may hold uncompressed (width x height
  /// x bands x cell size), checked before it is created; 0 = no limit (the
  /// service's --max-output-bytes).
  uint64_t max_bytes = 0;
  /// The run's cancel flag (RunContext::cancel), which also stops the final
  /// copy of a copy-only format (COG); null = none.
  const std::atomic<bool>* cancel = nullptr;
};

/// A window of a raster: columns [x0, x0+width), rows [y0, y0+height).
struct Window {
  int64_t x0 = 0, y0 = 0;
  int64_t width = 0, height = 0;
};

/// A single band of integer class codes, read window by window.
/// Implementations must be usable from one thread at a time (the scheduler's
/// reader thread); they need not be thread-safe.
class ClassRasterSource {
 public:
  virtual ~ClassRasterSource() = default;
  virtual RasterInfo info() const = 0;
  /// Reads `window` (fully inside the raster) into `out`, row-major with
  /// `line_stride` (>= window.width) int32 elements from one row to the next,
  /// class codes as int32 and kNoClass for nodata; the elements between rows
  /// are left alone. Throws lsm::Error(BadInput) for values that are not
  /// class codes (for example non-integer floats), lsm::Error(Io) when
  /// reading fails.
  virtual void read(const Window& window, int32_t* out, int64_t line_stride) = 0;
  void read(const Window& window, int32_t* out) { read(window, out, window.width); }
  /// How a reader takes negative class codes, FRAGSTATS' landscape border
  /// (cells outside the landscape that give the boundary beside them its
  /// class: landscape_border.h).
  enum class BorderCodes {
    Refuse,    ///< lsm::Error(BadInput) naming the cell: the default, for jobs that give them no meaning
    AsNodata,  ///< read as kNoClass, noted (met_border_codes())
    AsRead     ///< read as they are
  };
  /// Asks the reader to take negative codes `how`; returns false when it
  /// holds codes as given and does neither (MemoryClassRaster: its negative
  /// codes are read as they are, and a caller that wants them as nodata
  /// maps them itself).
  virtual bool take_border_codes(BorderCodes how) {
    (void)how;
    return false;
  }
  /// Whether a read since take_border_codes(AsNodata) met a negative code.
  virtual bool met_border_codes() const { return false; }
};

/// Receives the patch-ID raster window by window (UInt32, 0 = nodata).
class LabelRasterSink {
 public:
  virtual ~LabelRasterSink() = default;
  /// Writes `window` from `labels` (row-major, stride window.width).
  virtual void write(const Window& window, const uint32_t* labels) = 0;
};

}  // namespace lsm
