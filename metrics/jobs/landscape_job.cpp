#include "landscape_job.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>

#include "cell_neighbourhood.h"
#include "class_pair_table.h"
#include "error.h"
#include "landscape_border.h"

namespace lsm {

LandscapePlan plan_landscape_job(const RasterInfo& raster, const LandscapeJobOptions& options) {
  const RunBudget& budget = options.budget;
  LandscapePlan plan;
  // The second pass (shape, core, ENN, class adjacencies) runs only when a
  // wanted metric needs it; area/edge metrics come from the scan's records.
  // Geographic rasters measure every cell on the ellipsoid and background
  // edges come from the adjacencies, so both need it whatever is wanted.
  plan.second_pass = options.selection.needs_second_pass() || !options.background.empty() || raster.geodesic;
  plan.enn = plan.second_pass && options.selection.wants_enn();
  plan.edge_contrast = plan.second_pass && options.contrast && options.selection.wants_patch_metric("ECON");
  plan.connectance = plan.second_pass && options.threshold_distance && options.selection.selects("CONNECT");
  plan.similarity = plan.second_pass && options.search_radius && options.similarity &&
                    options.selection.wants_patch_metric("SIMI");
  plan.proximity = plan.similarity ||
                   (plan.second_pass && options.search_radius && options.selection.wants_patch_metric("PROX"));
  plan.record_bytes = budget.share(BudgetShare::Records);
  plan.patch_array_bytes = budget.share(BudgetShare::PatchArray);
  plan.table_bytes = budget.share(BudgetShare::Tables);
  if (plan.second_pass) {
    plan.kept_labels_bytes = static_cast<int64_t>(budget.share(BudgetShare::KeptLabels));
    // The scan keeps a tile's labels (4 bytes a cell) while their total fits.
    plan.labels_kept = budget.holds_labels(double(raster.width) * double(raster.height));
  }
  return plan;
}

namespace {

std::string metres_text(double m) {
  std::ostringstream text;
  text << std::setprecision(9) << m;
  return text.str();
}

// `d` metres as a whole number (least..1000) of the raster's square cells;
// `given` names the distance in messages ("the edge distance 90 m").
int whole_cells(double d, const RasterInfo& raster, const std::string& given, int least) {
  const double cell = raster.cell_width;
  if (raster.geodesic)
    throw Error(ErrorKind::BadInput, given + " needs a projected raster; this one has cells in degrees: give the edge "
                                             "depth in cells");
  // Square to 0.1 %, as cells of a reprojected raster are (bern_valais: 100.005 x 100.029 m).
  constexpr double kTolerance = 1e-3;
  if (std::fabs(raster.cell_width - raster.cell_height) > kTolerance * cell)
    throw Error(ErrorKind::BadInput, given + " needs square cells; these are " + metres_text(raster.cell_width) + " x " +
                                         metres_text(raster.cell_height) + " m: give the edge depth in cells");
  const double cells = d / cell;
  const double whole = std::round(cells);
  if (!(whole >= least) || std::fabs(cells - whole) > kTolerance * std::max(1.0, cells) || whole > 1000) {
    const double below = std::max<double>(least, std::floor(cells)), above = std::max(below + 1, std::ceil(cells));
    throw Error(ErrorKind::BadInput, given + " is not a whole number of the raster's " + metres_text(cell) +
                                         " m cells (FRAGSTATS' edge depth on them is a multiple of the cell size, " +
                                         std::to_string(least) + " to 1000 cells): give " + metres_text(below * cell) +
                                         " or " + metres_text(above * cell) + " m");
  }
  return static_cast<int>(whole);
}

}  // namespace

int edge_depth_cells(const RasterInfo& raster, const LandscapeJobOptions& options) {
  if (!options.edge_distance) {
    if (options.edge_depth < 1)
      throw Error(ErrorKind::BadInput, "the edge depth must be at least 1 cell (got " + std::to_string(options.edge_depth) + ")");
    return options.edge_depth;
  }
  const double d = *options.edge_distance;
  return whole_cells(d, raster, "the edge distance " + metres_text(d) + " m", 1);
}

std::shared_ptr<const ClassPairTable> edge_depths_in_cells(const RasterInfo& raster, const ClassPairTable& metres) {
  auto cells = std::make_shared<ClassPairTable>(metres);
  const size_t n = metres.codes.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k)
      cells->d[i * n + k] = whole_cells(metres.d[i * n + k], raster,
                                        "the edge depth file '" + metres.path + "': the depth " +
                                            metres_text(metres.d[i * n + k]) + " m of classes " +
                                            std::to_string(metres.codes[i]) + " and " + std::to_string(metres.codes[k]),
                                        0);
  return cells;
}

LandscapeResults run_landscape_job(ClassRasterSource& source, const LandscapeJobOptions& options,
                                   const LandscapeSinks& sinks, const ProgressFn& progress) {
  const int edge_depth = edge_depth_cells(source.info(), options);  // refuses a bad distance before any work
  if (!(options.boundary_edge >= 0 && options.boundary_edge <= 1))
    throw Error(ErrorKind::BadInput, "the boundary edge share must be in 0..1 (got " + std::to_string(options.boundary_edge) + ")");
  LandscapeResults results;
  const RasterInfo info = source.info();
  // Distances of CONNECT and PROX: metres on a plane.
  for (const auto& [distance, what] : {std::pair{options.threshold_distance, "the threshold distance"},
                                       std::pair{options.search_radius, "the search radius"}}) {
    if (!distance) continue;
    const double d = *distance;
    if (!(d > 0) || !std::isfinite(d))
      throw Error(ErrorKind::BadInput, std::string(what) + " must be a positive number of metres (got " + metres_text(d) + ")");
    if (info.geodesic)
      throw Error(ErrorKind::BadInput, std::string(what) + " " + metres_text(d) +
                                           " m needs a projected raster; this one has cells in degrees");
  }
  std::shared_ptr<const ClassPairTable> edge_depths;  // the edge depth file in cells, refused before any work
  if (options.edge_depth_table) {
    if (info.geodesic)
      throw Error(ErrorKind::BadInput, "the edge depth file '" + options.edge_depth_table->path +
                                           "' gives metres: it needs a projected raster; this one has cells in degrees");
    edge_depths = edge_depths_in_cells(info, *options.edge_depth_table);
  }
  results.plan = plan_landscape_job(info, options);
  const LandscapePlan& plan = results.plan;
  const RunBudget& budget = options.budget;

  std::unique_ptr<TileLabeler> own_labeler;
  TileLabeler* labeler = options.labeler;
  if (!labeler) {
    own_labeler = make_labeler(options.backend);
    labeler = own_labeler.get();
  }
  // Each pass over the raster takes an equal share of the progress.
  const int passes = 1 + (plan.second_pass ? 1 : 0) + (sinks.patch_ids ? 1 : 0);
  const auto pass_progress = [&](int pass) {
    return scaled_progress(progress, double(pass) / passes, double(pass + 1) / passes);
  };

  ScanOptions scan;
  scan.rule = options.rule;
  scan.tile_width = options.tile_width;
  scan.tile_height = options.tile_height;
  scan.keep_patch_ids = plan.second_pass || sinks.patch_ids;
  scan.keep_labels_max_bytes = plan.kept_labels_bytes;
  scan.max_record_bytes = plan.record_bytes;
  scan.max_patch_array_bytes = plan.patch_array_bytes;
  scan.temp_dir = budget.temp_dir;
  scan.max_strip_cells = budget.strip_cells();
  // FRAGSTATS' landscape border (negative codes) is outside the landscape:
  // nodata to the labeler and every pass; when the scan met it, one more
  // read keeps the border cells within the edge depth of the landscape.
  BorderAsNodataSource landscape(source);
  results.records = options.scan ? options.scan(landscape, *labeler, scan, pass_progress(0))
                                 : scan_patches(landscape, *labeler, scan, pass_progress(0));
  if (options.after_scan) options.after_scan(results.records);
  std::shared_ptr<const LandscapeBorder> border;
  if (landscape.met_border() || results.records.ranks_met_border) {
    int reach = std::max(1, edge_depth);
    if (edge_depths)
      for (double d : edge_depths->d) reach = std::max(reach, static_cast<int>(d));
    border = std::make_shared<LandscapeBorder>(landscape.read_border(reach));
    results.border = border;
  }

  if (plan.second_pass) {
    // On a GPU (one or several) the second pass's per-cell tests run there too.
    const std::unique_ptr<NeighbourhoodCounter> counter = second_pass_counter(*labeler);
    RowMetricOptions row_options;
    row_options.temp_dir = budget.temp_dir;
    row_options.max_patch_array_bytes = plan.patch_array_bytes;
    row_options.edge_depth = edge_depth;
    if (edge_depths) {
      row_options.edge_depths = edge_depths;
      row_options.edge_depth_boundary = edge_depth_boundary_class(
          *edge_depths, std::vector<int32_t>(options.background.begin(), options.background.end()));
    }
    row_options.gyrate = options.gyrate;
    row_options.core_areas = options.core_areas;
    row_options.want_enn = plan.enn;
    if (plan.connectance) row_options.threshold_m = options.threshold_distance;
    if (plan.proximity) row_options.search_radius_m = options.search_radius;
    if (plan.similarity) row_options.similarity = options.similarity;
    row_options.background = options.background;
    if (plan.edge_contrast) {
      row_options.contrast = options.contrast;
      row_options.contrast_boundary = boundary_class(
          *options.contrast, std::vector<int32_t>(options.background.begin(), options.background.end()));
    }
    row_options.border = border;
    row_options.counter = counter.get();
    results.rows = compute_patch_row_metrics(landscape, *labeler, results.records, row_options, nullptr, pass_progress(1));
    // The kept labels have served: the tables' share of the budget is theirs.
    std::vector<std::vector<uint32_t>>().swap(results.records.tile_labels);
  } else {
    results.rows = records_only_row_results(results.records);
  }

  const MetricSelection& selection = options.selection;
  MetricOptions metric_options;
  metric_options.background = options.background;
  metric_options.boundary_edge = options.boundary_edge;
  metric_options.max_richness = options.max_richness;
  metric_options.contrast = options.contrast;
  metric_options.border = border;
  if (!selection.all())
    metric_options.wanted = [&selection](const std::string& column) { return selection.selects(column); };
  metric_options.temp_dir = budget.temp_dir;
  metric_options.memory_limit = plan.table_bytes;
  PatchRowSink patch_rows;
  if (sinks.patch_rows)
    patch_rows = [&](const MetricTable& block) {
      if (selection.all()) sinks.patch_rows(block);  // the default: no copy of a block of rows
      else sinks.patch_rows(selection.apply(block));
    };
  results.metrics = compute_fragstats_metrics(results.records, results.rows, metric_options, patch_rows);
  FragstatsMetrics& m = results.metrics;
  if (!sinks.patch_rows) m.patch = selection.apply(m.patch);
  m.cls = selection.apply(m.cls);
  m.cls.rows.erase(std::remove_if(m.cls.rows.begin(), m.cls.rows.end(),
                                  [&](const MetricTable::Row& r) { return options.disabled_classes.count(r.type) > 0; }),
                   m.cls.rows.end());
  m.land = selection.apply(m.land);

  if (sinks.patch_ids)
    write_patch_ids(landscape, *labeler, results.records, *sinks.patch_ids, pass_progress(passes - 1));
  return results;
}

}  // namespace lsm
