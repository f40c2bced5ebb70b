#pragma once
// The zonal job: FRAGSTATS' metrics of many landscapes inside one raster —
// zones (administrative units, watersheds, reserves), buffers around survey
// points, the tiles of a sample grid. Each zone is a landscape of its own:
// cells outside it are outside the landscape (as nodata), its border is the
// landscape boundary (FRAGSTATS 4.2, "Landscape boundary" and "Sampling
// strategies"). Zones may overlap; each is measured on its own.
//
//   GridZones zones(info, 100, 100);           // or BufferZones, or a GDAL ZoneSource
//   run_zonal_job(raster, zones, options, [](const ZoneResults& z) { ... });
//
// How: a zone is read as a window of the raster (its bounding box) whose
// cells outside the zone read as nodata (ZoneWindow), and the landscape job
// runs on that window. The cost is the sum of the zones' bounding boxes, not
// the raster once per zone; memory is one zone's job at a time. The result
// of each zone is, by construction, the landscape job on the zone cut out.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "landscape_job.h"
#include "raster.h"

namespace lsm {

/// One zone: its name in the tables and its bounding box in raster cells.
struct Zone {
  std::string id;  ///< the ZONE column's value (a field's value, a feature ID, a zone code)
  Window window;   ///< cells [x0, x0+width) x [y0, y0+height), inside the raster; empty = no cell
};

/// The cells [first, last) along one axis of `size` cells whose centres
/// (c + 0.5, in cell units) lie in [low, high], cut by the raster: the
/// cell-centre rule of zones' bounding boxes. {0, 0} when there is none.
std::pair<int64_t, int64_t> cells_with_centres_within(double low, double high, int64_t size);

/// Where the zones are. A ZoneSource may be read from one thread at a time.
class ZoneSource {
 public:
  virtual ~ZoneSource() = default;
  virtual size_t count() const = 0;
  virtual const Zone& zone(size_t index) const = 0;
  /// Marks which cells of zone `index` lie in it, rows [row0, row0 + rows)
  /// of its window (0 = the window's first row): inside[r * window.width + c]
  /// = 1 for a cell of the zone, 0 otherwise. Throws lsm::Error.
  virtual void mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) = 0;
};

/// Tiles of `tile_width` x `tile_height` cells from the raster's top-left
/// corner, row by row (FRAGSTATS' uniform tiles): ZONE "row_col" (0-based).
/// Tiles at the right and bottom edges are partial (cut by the raster);
/// every cell is in exactly one tile. Throws lsm::Error(BadInput) for a
/// size < 1.
class GridZones final : public ZoneSource {
 public:
  GridZones(const RasterInfo& raster, int64_t tile_width, int64_t tile_height);
  size_t count() const override { return zones_.size(); }
  const Zone& zone(size_t index) const override { return zones_.at(index); }
  void mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) override;

 private:
  std::vector<Zone> zones_;
};

/// The shape of a buffer around a point.
enum class BufferShape {
  Circle,  ///< cells whose centre lies within the radius (landscapemetrics' sample_lsm "circle")
  Square   ///< cells whose centre lies within the radius along x and along y (side 2 x radius)
};

/// A point in raster cell coordinates: x = column, y = row, cell (c, r)
/// spanning [c, c+1) x [r, r+1), so its centre is (c + 0.5, r + 0.5).
struct CellPoint {
  std::string id;  ///< the ZONE column's value
  double x = 0, y = 0;
};

/// Distances on the ellipsoid between points of a raster in degrees, in
/// cell coordinates (CellPoint's), for plots of a radius in metres. The
/// engine has no geodesic code of its own: the GDAL layer measures with
/// PROJ's (gdal_driver/io/geodesic_distances.h).
class EllipsoidDistances {
 public:
  virtual ~EllipsoidDistances() = default;
  /// Metres along the geodesic from (x0, y0) to (x1, y1).
  virtual double metres(double x0, double y0, double x1, double y1) const = 0;
  /// A box {x_low, x_high, y_low, y_high} in cell coordinates that holds
  /// every point within `radius_m` metres of (x, y) (it may hold more).
  virtual std::array<double, 4> box_within(double x, double y, double radius_m) const = 0;
};

/// Buffers of `radius` metres around points (FRAGSTATS' and landscape-
/// metrics' plots, pylandstats' BufferAnalysis): a cell is in a buffer when
/// its centre is (cell-centre rule), distances in metres from the raster's
/// cell size. Buffers may overlap and may reach past the raster (cut by it);
/// a point whose buffer holds no cell of the raster is a zone with no cell.
/// A geographic raster's degrees are no metres: on one, plots need
/// `ellipsoid` (distances along geodesics; circles only), else
/// lsm::Error(BadInput); BadInput too for a radius that is not > 0 and for
/// square plots on a geographic raster.
class BufferZones final : public ZoneSource {
 public:
  /// `ellipsoid`, where given, must outlive the zones.
  BufferZones(const RasterInfo& raster, std::vector<CellPoint> points, double radius_m, BufferShape shape,
              const EllipsoidDistances* ellipsoid = nullptr);
  size_t count() const override { return zones_.size(); }
  const Zone& zone(size_t index) const override { return zones_.at(index); }
  void mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) override;

 private:
  std::vector<Zone> zones_;
  std::vector<CellPoint> points_;
  double radius_, cell_width_, cell_height_;
  BufferShape shape_;
  const EllipsoidDistances* ellipsoid_;  // null: a projected raster (distances from the cell size)
};

/// A zone's window of the raster as a raster of its own: the cells of the
/// window that are outside the zone read as nodata (kNoClass). Geographic
/// rasters keep their rows' sizes on the ellipsoid.
class ZoneWindow final : public ClassRasterSource {
 public:
  /// `raster` and `zones` must outlive it; `mask_lock`, where given, is held
  /// around each call of zones.mask() (workers sharing one ZoneSource).
  /// Throws lsm::Error(Internal) for a zone with an empty window.
  ZoneWindow(ClassRasterSource& raster, ZoneSource& zones, size_t index, std::mutex* mask_lock = nullptr);
  RasterInfo info() const override { return info_; }
  using ClassRasterSource::read;
  void read(const Window& window, int32_t* out, int64_t line_stride) override;

 private:
  ClassRasterSource& raster_;
  ZoneSource& zones_;
  size_t index_;
  Window window_;
  std::mutex* mask_lock_;
  RasterInfo info_;
  std::vector<uint8_t> inside_;
};

/// One zone's results.
struct ZoneResults {
  size_t index = 0;  ///< of the zone in the ZoneSource
  const Zone* zone = nullptr;
  /// False when the zone holds no cell with a class (outside the raster,
  /// nodata or background only): `landscape` is then empty, as no metric of
  /// a landscape without patches is defined.
  bool measured = false;
  int64_t cells = 0;  ///< cells of the zone with a class or background (its landscape's cells)
  LandscapeResults landscape;
};

/// Receives each zone's results, in zone order.
using ZoneResultSink = std::function<void(const ZoneResults&)>;
/// Receives each zone's patch rows (block by block, PID order) before the
/// zone's results; null = the patch table stays in ZoneResults.
using ZonePatchSink = std::function<void(const Zone&, const MetricTable& rows)>;

/// Zones measured side by side: small zones are mostly a job's fixed cost
/// (threads, tables), which workers overlap.
struct ZonalWorkers {
  /// Zones measured at once on the CPU. With a GPU backend and count > 1,
  /// the GPU measures the zones of at least gpu_min_cells cells (window),
  /// one at a time, and `count` CPU workers the others beside it: a small
  /// zone's job on a GPU is bound by its launches and waits. Results are the
  /// same either way (the backends give identical tables).
  int count = 1;
  int64_t gpu_min_cells = int64_t{1} << 22;  ///< window cells (4 Mi) from which a zone goes to the GPU
  /// Opens one more handle on the raster for a worker; null = the workers
  /// share the job's raster, one read at a time (a GDAL raster's cache of
  /// decoded blocks then serves them all).
  std::function<std::unique_ptr<ClassRasterSource>()> open_raster;
};

/// Runs the landscape job on every zone, handing each zone's results (and
/// before them its patch rows) to the sinks in zone order, on the calling
/// thread or, with several workers, on theirs (one at a time). Options are
/// the landscape job's; one labeler serves every zone, one per worker on the
/// CPU (ZonalWorkers says which zones a GPU takes). Results do not depend on the workers. Progress goes from 0 to 1 over
/// the zones, in proportion to their windows' cells. Throws what
/// run_landscape_job() throws, and Error(Io, "interrupted") when `progress`
/// returns false.
void run_zonal_job(ClassRasterSource& raster, ZoneSource& zones, const LandscapeJobOptions& options,
                   const ZoneResultSink& sink, const ZonePatchSink& patch_rows = {}, const ProgressFn& progress = {},
                   const ZonalWorkers& workers = {});

}  // namespace lsm
