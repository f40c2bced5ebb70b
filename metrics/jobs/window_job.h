#pragma once
// The moving-window job: for every focal cell, FRAGSTATS' class and landscape
// metrics of the landscape inside a window around it (FRAGSTATS 4.2 User
// Guide, "Moving window" analysis: the window is the landscape, its edge the
// landscape boundary). Rows of values go to a sink as they are made; the
// raster is read as a band of rows (the window's reach above and below), so
// memory does not grow with the raster's height.
//
//   WindowJobOptions o;
//   o.shape = square_window(10);                  // 21 x 21 cells
//   o.class_metrics = {"PLAND"};                  // one band per class
//   o.landscape_metrics = {"SHDI", "CONTAG"};     // one band each
//   WindowPlan plan = run_window_job(raster, o, sink);
//
// The metrics come from a window's counts — cells per class and cell-side
// adjacencies between classes, kept as the window slides — and, for NP, PD,
// LPI, COHESION, DIVISION, MESH and SPLIT, from the window's patches
// (window_patches.h), through the families' formulas
// (metrics/fragstats/families), with TCA, CPLAND, NDCA and DCAD from the
// window's core areas; the AREA ... CONTIG, CORE, DCORE, CAI and ENN
// distributions and PAFRAC from the window's patches through the patch
// table's formulas (patch_columns.h). Every value equals `lsm metrics` on the
// window cut out as its own landscape (docs/WINDOW.md): every class and
// landscape metric of the catalogue.
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fragstats_core_areas.h"
#include "patch_stats.h"
#include "progress.h"
#include "raster.h"
#include "tile_labeler.h"

namespace lsm {

struct ClassPairTable;

/// The cells of a window around a focal cell, as row spans: row offset dy =
/// i - reach() holds the cells dx in [-half_widths[i], half_widths[i]]; a
/// negative half width leaves that row out.
struct WindowShape {
  std::vector<int64_t> half_widths;  ///< 2 reach + 1 entries
  int64_t reach() const { return static_cast<int64_t>(half_widths.size() / 2); }
  /// The widest row's half width (the columns the window reaches left and right).
  int64_t half_width() const;
  /// Cells in the window.
  int64_t cells() const;
};

/// A square of (2 half + 1) x (2 half + 1) cells. Throws lsm::Error(BadInput) for half < 0.
WindowShape square_window(int64_t half);
/// The cells whose centres lie within `radius` (map units) of the focal
/// cell's centre, for cells `cell_width` x `cell_height` in size (FRAGSTATS'
/// round window). Throws lsm::Error(BadInput) for a radius or a cell size
/// that is not positive and finite, or a window of more than 2^31 cells.
WindowShape circular_window(double radius, double cell_width, double cell_height);

/// What a focal cell whose window leaves the raster gets.
enum class WindowEdge {
  Clip,  ///< the window's part inside the raster is the landscape
  Skip   ///< no value (nodata): only whole windows are measured
};

struct WindowJobOptions {
  WindowShape shape = square_window(1);
  /// FRAGSTATS' patch neighbour rule, for the patch-based metrics (NP, LPI ...).
  NeighbourRule rule = NeighbourRule::Eight;
  WindowEdge edge = WindowEdge::Clip;
  /// Class metrics (FRAGSTATS acronyms, window_class_metrics()): one band
  /// per metric and class, in this order, classes ascending.
  std::vector<std::string> class_metrics;
  /// Landscape metrics (window_landscape_metrics()): one band each, after the class bands.
  std::vector<std::string> landscape_metrics;
  /// The classes of the class bands; empty = every class of the raster that is not background.
  std::vector<int32_t> classes;
  std::set<int32_t> background;     ///< FRAGSTATS background classes (as in LandscapeJobOptions)
  double boundary_edge = 0;         ///< share (0..1) of boundary and background edge counted in TE/ED
  std::optional<int> max_richness;  ///< for RPR; none: RPR undefined
  /// The core metrics' edge depth (cells, >= 1) and how disjunct core areas
  /// are counted, as the landscape job takes them (core_area.h).
  int edge_depth = 1;
  CoreAreaRule core_areas = CoreAreaRule::Fragstats;
  /// FRAGSTATS' edge depth file (depths in m per pair of classes, as
  /// LandscapeJobOptions::edge_depth_table): set, it replaces edge_depth for
  /// the core metrics; the window's edge takes the boundary's depths.
  std::shared_ptr<const ClassPairTable> edge_depth_table;
  /// FRAGSTATS' edge contrast weights, which CWED, TECI and ECON's distributions need
  /// (class_pair_table.h; the window's border takes the background's weights).
  std::shared_ptr<const ClassPairTable> contrast;
  /// FRAGSTATS' threshold distance of CONNECT (m, > 0): two patches of a
  /// class in a window are joined when some two of their cells are within
  /// it (as the landscape job's connectance_sweep.h); none: CONNECT refused.
  std::optional<double> threshold_distance;
  /// FRAGSTATS' search radius of PROX and SIMI (m, > 0), for their
  /// distributions; none: those refused.
  std::optional<double> search_radius;
  /// FRAGSTATS' similarity weights, for SIMI's distributions (class_pair_table.h).
  std::shared_ptr<const ClassPairTable> similarity;
  /// Memory the job may hold (bytes): the band of rows and the counts.
  uint64_t memory_limit = uint64_t(1) << 30;
  /// Where the windows are computed. Auto: on the GPUs where this build and
  /// the machine have them and the run qualifies (window_runs_on_gpu()),
  /// else the CPU; Cuda: the GPUs, refused (BadInput) for a run that does
  /// not qualify. Both give the same bits.
  Backend backend = Backend::Auto;
};

/// One output band: a metric, for one class (class metrics) or the landscape.
struct WindowBand {
  std::string metric;
  std::optional<int32_t> class_code;  ///< none: a landscape metric
  /// "PLAND class 3", "SHDI": GDAL's band description.
  std::string description() const;
};

/// The bands a run writes, known before any row is computed.
struct WindowPlan {
  std::vector<WindowBand> bands;
  std::vector<int32_t> class_codes;  ///< every class code of the raster, background included, ascending
};

/// Receives the values row by row, top to bottom.
class WindowRowSink {
 public:
  virtual ~WindowRowSink() = default;
  /// Called once, before the first row. begin() and write_row() are called
  /// one at a time, rows in order, but write_row() may be called from a
  /// thread of the job's (the CPU job writes a block of rows while it
  /// computes the next): a sink keeps no thread-local state.
  virtual void begin(const WindowPlan& plan) = 0;
  /// Row `y`: width x bands values, cell-interleaved (cell x's bands at
  /// x * bands ...); NaN where the metric is undefined (FRAGSTATS' N/A), the
  /// focal cell is nodata, or (WindowEdge::Skip) the window leaves the raster.
  /// A class absent from a window has CA, PLAND, TE and ED 0 there, its
  /// other metrics NaN.
  virtual void write_row(int64_t y, const double* values) = 0;
};

/// The class metrics and the landscape metrics a window computes now, in
/// FRAGSTATS' order.
const std::vector<std::string>& window_class_metrics();
const std::vector<std::string>& window_landscape_metrics();
/// Whether `metric` needs each window's patches (NP, PD, LPI, COHESION,
/// DIVISION, MESH, SPLIT): a labeling of every window, O(window cells) per
/// focal cell, where the others cost O(window rows).
bool window_metric_needs_patches(const std::string& metric);
/// Throws lsm::Error(BadInput) unless a window computes `metric` (upper
/// case) at `level` (kClassLevel or kLandscapeLevel of metric_catalogue.h),
/// saying why: a metric of that level not computed in windows yet (with the
/// list of those that are), or not a metric of that level (with the name
/// probably meant).
void check_window_metric(const std::string& metric, unsigned level);

/// Whether the GPUs can compute the run planned as `plan`: every band a
/// count formula (window_count_program.h: the area, edge,
/// subdivision and aggregation metrics of a class but COHESION, IJI and the
/// core and contrast ones; at the landscape level also CONTAG and the
/// diversity metrics), at most 2048 cells (45 x 45) when a band reads the window's
/// patches (NP, PD, LPI, DIVISION, MESH, SPLIT), at most 32 classes with
/// CONTAG and at most 255 classes. When not, `why_not` says why.
bool window_runs_on_gpu(const WindowPlan& plan, const WindowJobOptions& options, std::string* why_not = nullptr);

/// Checks `options` and the raster's classes and plans the bands: throws
/// lsm::Error(BadInput) naming the problem — no metric, an unknown metric,
/// a metric not computed in windows (patch-based: said so), a class not in
/// the raster, a window wider or taller than the raster (twice the reach
/// plus one), boundary_edge outside [0, 1], CWED or TECI without a
/// contrast table or with one that lacks a class of the raster, an edge
/// depth file that lacks a class or gives a depth that is not a whole
/// number of cells (edge_depths_in_cells()), a geographic raster (windows in
/// degrees are not supported yet), a band of rows over memory_limit, or the
/// Cuda backend for a run the GPUs do not compute (window_runs_on_gpu()).
WindowPlan plan_window_job(const RasterInfo& raster, const std::vector<int32_t>& class_codes,
                           const WindowJobOptions& options);

/// Reads `source` once for its class codes (progress 0 to 0.1) and plans the
/// bands; throws as plan_window_job() above does.
WindowPlan plan_window_job(ClassRasterSource& source, const WindowJobOptions& options, const ProgressFn& progress = {});

/// Rows [first_row, first_row + rows) of the job planned as `plan` (from
/// plan_window_job() with the same options and source) to `sink`, whose
/// begin() it does not call: the values of those rows as the whole run
/// gives them (the band of rows above and below is read as needed), so a
/// raster can be served strip by strip (the GDAL driver). Progress goes from
/// 0 to 1 over the rows; throws lsm::Error(Io) for reads and "interrupted".
void run_window_rows(ClassRasterSource& source, const WindowJobOptions& options, const WindowPlan& plan,
                     int64_t first_row, int64_t rows, WindowRowSink& sink, const ProgressFn& progress = {});

/// Runs the moving window over `source`: one read for the class codes, one
/// for the windows. Progress goes from 0 to 1 over both; throws as
/// plan_window_job() does, lsm::Error(Io) for reads and "interrupted" when
/// `progress` returns false.
WindowPlan run_window_job(ClassRasterSource& source, const WindowJobOptions& options, WindowRowSink& sink,
                          const ProgressFn& progress = {});

}  // namespace lsm
