#pragma once
// The landscape job: FRAGSTATS' patch, class and landscape metrics of one
// categorical raster, with their results in memory. It is the metrics
// pipeline as one engine call — scan (labeling, seam merge, patch records),
// the second pass over the patch IDs where a wanted metric needs it, the
// tables — so that every operation (metrics, patchmetric, patches), the
// service, and later the moving window, zonal, Python and MPI front ends
// call the same code. Files are one sink among others: the job writes none.
//
//   LandscapeJobOptions o;                       // FRAGSTATS' defaults, 1G budget
//   o.selection = MetricSelection("AREA,ENN");   // or all
//   LandscapeResults r = run_landscape_job(raster, o);
//   r.metrics.cls, r.metrics.land, r.metrics.patch (or a PatchRowSink)
//
// Formulas and units: docs/metrics.md (FRAGSTATS 4.2 documentation,
// section by metric); the pipeline and its memory: docs/ENGINE.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "fragstats_core_areas.h"
#include "fragstats_gyrate.h"
#include "fragstats_metrics.h"
#include "landscape_border.h"
#include "metric_selection.h"
#include "patch_row_metrics.h"
#include "patch_scan.h"
#include "progress.h"
#include "raster.h"
#include "run_budget.h"
#include "tile_labeler.h"

namespace lsm {

/// What a landscape job computes and with what it may compute it.
struct LandscapeJobOptions {
  NeighbourRule rule = NeighbourRule::Eight;  ///< FRAGSTATS' patch neighbour rule (8 by default)
  /// Tile grid in cells; 0 = the scheduler's choice (results never depend on it).
  int64_t tile_width = 0, tile_height = 0;
  Backend backend = Backend::Auto;
  /// A labeler of the caller's (e.g. a SplitTileLabeler over several GPUs);
  /// null = make_labeler(backend). Not owned; must outlive the job.
  TileLabeler* labeler = nullptr;
  /// The metrics reported; empty = all. Columns not selected are left out of
  /// the tables, and their distributions are not computed.
  MetricSelection selection;
  /// FRAGSTATS background classes: inside the landscape, no patches, no class.
  std::set<int32_t> background;
  /// Classes left out of the class table (FRAGSTATS' class descriptors with
  /// Enabled false); their patches and cells still count everywhere else.
  std::set<int32_t> disabled_classes;
  double boundary_edge = 0;         ///< share (0..1) of boundary and background edge counted in TE/ED
  std::optional<int> max_richness;  ///< for RPR; none: RPR undefined
  /// FRAGSTATS' edge contrast weights, for CWED, TECI and ECON
  /// (class_pair_table.h); none: those are undefined.
  std::shared_ptr<const ClassPairTable> contrast;
  /// FRAGSTATS' threshold distance of CONNECT, in map units (m), > 0;
  /// none: CONNECT is undefined. Projected rasters only.
  std::optional<double> threshold_distance;
  /// FRAGSTATS' search radius of PROX and SIMI, in map units (m), > 0;
  /// none: both are undefined. Projected rasters only.
  std::optional<double> search_radius;
  /// FRAGSTATS' similarity weights, for SIMI (class_pair_table.h); none:
  /// SIMI is undefined.
  std::shared_ptr<const ClassPairTable> similarity;
  int edge_depth = 1;               ///< cells (>= 1), for the core metrics
  /// FRAGSTATS' edge depth file (class_pair_table.h): depths in metres per
  /// pair of classes, each a whole number (0 or more) of the raster's
  /// square cells; set, it replaces edge_depth and edge_distance. Projected
  /// rasters only.
  std::shared_ptr<const ClassPairTable> edge_depth_table;
  /// The edge depth as FRAGSTATS asks for it, a distance in map units (m);
  /// when set it replaces edge_depth and must be a whole number (>= 1) of the
  /// raster's square cells (edge_depth_cells()).
  std::optional<double> edge_distance;
  GyrateRule gyrate = GyrateRule::Fragstats;
  CoreAreaRule core_areas = CoreAreaRule::Fragstats;
  RunBudget budget;                 ///< memory shares and scratch folder (run_budget.h)
  /// The first pass: null = scan_patches() in this process; set, another
  /// that gives the same PatchTable (the scan in row ranges across MPI
  /// ranks: row_ranges.h, gdal_driver/operations/row_range_scan.h). It gets
  /// the job's source, labeler and scan options; the kept labels it may
  /// leave out (the second pass then relabels).
  std::function<PatchTable(ClassRasterSource& source, TileLabeler& labeler, const ScanOptions& options,
                           const ProgressFn& progress)>
      scan;
  /// Called once the patch records exist, before the second pass: a caller's
  /// check of the scan (a class-count limit). Throws to stop the job.
  std::function<void(const PatchTable& records)> after_scan;
};

/// The job's decisions for one raster, taken before any work and kept with
/// the results (tests check them; docs/ENGINE.md explains each).
struct LandscapePlan {
  /// The second pass over the patch IDs runs: some wanted metric needs shape,
  /// core, ENN or the class adjacencies, or the raster is geographic or has
  /// background (both need per-cell sizes and edges). Else every metric
  /// derives from the patch records (from_patch_records()).
  bool second_pass = false;
  /// The scan keeps its tile labels for the second pass (they fit the
  /// KeptLabels share: 4 bytes a cell, 8 at the pass's peak); else the
  /// raster is labeled again, strip by strip.
  bool labels_kept = false;
  bool enn = false;                 ///< ENN is wanted (edge cells are kept for it)
  /// ECON or its distribution is wanted and edge contrast weights are given:
  /// the second pass weighs every patch's perimeter (24 bytes a patch).
  bool edge_contrast = false;
  /// CONNECT is wanted and a threshold distance is given: the second pass
  /// counts each class's joined pairs (connectance_sweep.h).
  bool connectance = false;
  /// PROX or its distribution is wanted and a search radius is given
  /// (proximity_sweep.h; 8 bytes a patch).
  bool proximity = false;
  /// SIMI or its distribution is wanted, with a search radius and similarity
  /// weights: the proximity sweep also seeks neighbours of other classes.
  bool similarity = false;
  int64_t kept_labels_bytes = 0;    ///< the limit given to the scan (ScanOptions::keep_labels_max_bytes)
  uint64_t record_bytes = 0;        ///< closed records held before a scratch file (ScanOptions::max_record_bytes)
  uint64_t patch_array_bytes = 0;   ///< each per-patch array before a scratch file
  uint64_t table_bytes = 0;         ///< the class and landscape statistics (MetricOptions::memory_limit)
};

/// The edge depth in cells for `raster`: options.edge_distance over the cell
/// width where set, else options.edge_depth. Throws lsm::Error(BadInput) for
/// a distance on a geographic raster (cells in degrees) or on cells that are
/// not square (to 0.1 %), or one that is not a whole number of cells (to
/// 0.1 %; 1 to 1000), naming the nearest distances that are.
int edge_depth_cells(const RasterInfo& raster, const LandscapeJobOptions& options);
/// An edge depth file's depths (m) as whole cells of `raster` (a copy of
/// `metres` with each value divided by the cell size). Throws
/// lsm::Error(BadInput) naming the file and the pair for a depth that is not
/// a whole number (0 to 1000) of square cells, or on a geographic raster.
std::shared_ptr<const ClassPairTable> edge_depths_in_cells(const RasterInfo& raster, const ClassPairTable& metres);

/// Decides the plan for a raster of `raster`'s shape. Pure: no I/O.
LandscapePlan plan_landscape_job(const RasterInfo& raster, const LandscapeJobOptions& options);

/// Where the job hands results that need not stay in memory.
struct LandscapeSinks {
  /// The patch table, a block of rows at a time in PID order, restricted to
  /// the selection; null = kept in LandscapeResults::metrics.patch (memory
  /// grows with the patch count: 8 bytes a column and patch).
  PatchRowSink patch_rows;
  /// The patch-ID raster (UInt32, PIDs of the patch table, 0 = nodata and
  /// background), written strip by strip after the tables by one more
  /// labeling pass; null = not written. A sink may read the patch rows it
  /// got through `patch_rows`, which are complete by then.
  LabelRasterSink* patch_ids = nullptr;
};

/// Everything a landscape job yields.
struct LandscapeResults {
  LandscapePlan plan;
  /// The scan's patch records (cells, edges, bounding box, first cell per
  /// patch, PID order), the tile grid and the raster's geometry.
  PatchTable records;
  /// FRAGSTATS' landscape border (negative class codes: landscape_border.h)
  /// when the raster has one, else null: outside the landscape, it types
  /// the boundary beside it for TE, ED, CWED, TECI, ECON and the core cells.
  std::shared_ptr<const LandscapeBorder> border;
  /// The second pass's per-patch values, disjunct core areas and the class
  /// adjacency matrix (FRAGSTATS .adj: adjacency.sides_h/sides_v); without
  /// a second pass, records_only_row_results().
  PatchRowResults rows;
  /// cls (ascending class code, disabled classes left out) and land,
  /// restricted to the selection; patch only without a patch_rows sink.
  FragstatsMetrics metrics;
};

/// Runs the landscape job on `source`. Negative class codes are FRAGSTATS'
/// landscape border (the job asks `source` to read them as nodata while it
/// runs, ClassRasterSource::take_border_codes):
/// outside the landscape, they type the boundary beside them
/// (LandscapeResults::border). Progress goes from 0 to 1 over every
/// pass (scan, second pass, patch IDs). Throws lsm::Error: BadInput for bad
/// options (boundary_edge outside [0, 1], edge_depth < 1, an edge_distance
/// edge_depth_cells() refuses, a threshold distance or search radius that is
/// not positive or is given for a geographic raster) or raster values,
/// Io for scratch files and reads, Io "interrupted" when `progress` returns
/// false, Backend when the backend is unavailable.
LandscapeResults run_landscape_job(ClassRasterSource& source, const LandscapeJobOptions& options,
                                   const LandscapeSinks& sinks = {}, const ProgressFn& progress = {});

}  // namespace lsm
