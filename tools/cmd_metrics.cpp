// lsm metrics INPUT --out PREFIX: the FRAGSTATS patch, class and landscape
// tables and the class adjacency matrix.
#include <algorithm>
#include <iostream>
#include <optional>

#include "cli_common.h"
#include "commands.h"
#include "cell_neighbourhood.h"
#include "error.h"
#include "fragstats_metrics.h"
#include "fragstats_tables.h"
#include "gdal_class_raster.h"
#include "metric_selection.h"
#include "patch_records.h"
#include "patch_row_metrics.h"

namespace lsm::cli {

int run_metrics(const std::vector<std::string>& args) {
  PatchOptions o;
  std::string prefix, levels_text = "patch,class,land", metrics_text, format_text = "fragstats";
  std::string gyrate_text = "fragstats", core_areas_text = "fragstats";
  std::string memory_limit_text = "1G", temp_dir;
  bool print = false;
  int edge_depth = 1, max_classes = 1000, max_richness = 0;
  std::optional<int32_t> background;
  double boundary_edge = 0;
  po::options_description desc("lsm metrics options");
  desc.add_options()
      ("input", po::value(&o.input)->required(), "input raster (any format GDAL reads)")
      ("out,o", po::value(&prefix)->required(),
       "output prefix: PREFIX.patch.csv, PREFIX.class.csv, PREFIX.land.csv (or PREFIX.tidy.csv) and PREFIX.adj.csv "
       "(not when --metrics lists only metrics of the patch records, such as AREA, PERIM, CA, NP, TE)")
      ("level", po::value(&levels_text), "levels to report: any of patch,class,land (default all)")
      ("metrics", po::value(&metrics_text), "FRAGSTATS acronyms to report, comma-separated (default all)")
      ("edge-depth", po::value(&edge_depth), "edge depth for core metrics, in cells (default 1)")
      ("gyrate", po::value(&gyrate_text)->default_value(gyrate_text),
       "GYRATE rule: fragstats (mean distance to the patch's area-median point, as FRAGSTATS prints) or "
       "centroid (mean distance to the centroid, the documented definition)")
      ("core-areas", po::value(&core_areas_text)->default_value(core_areas_text),
       "disjunct core areas: fragstats (as FRAGSTATS counts them, missing some) or all (every "
       "8-connected core area, the documented definition); changes NCORE, CORE, CAI and the class/landscape core metrics")
      ("background", po::value<int32_t>()->notifier([&](int32_t v) { background = v; }),
       "class code of FRAGSTATS background: inside the landscape, but no patches and no class")
      ("boundary-edge", po::value(&boundary_edge),
       "proportion 0..1 of the landscape boundary and background edge counted as edge in TE/ED (default 0)")
      ("memory-limit", po::value(&memory_limit_text)->default_value(memory_limit_text),
       "memory the run may hold, e.g. 512M or 2G: what does not fit (patch records, per-patch "
       "values, edge cells) goes to scratch files, and the raster is labeled again instead of kept")
      ("temp-dir", po::value(&temp_dir),
       "folder of the scratch files (default $TMPDIR or /tmp); they have no name and vanish on any exit")
      ("max-classes", po::value(&max_classes), "refuse rasters with more classes than this (default 1000)")
      ("max-richness", po::value(&max_richness), "maximum potential number of classes, for RPR (default: RPR empty)")
      ("format", po::value(&format_text), "table layout: fragstats (one column per metric) or tidy (one row per value)")
      ("print", po::bool_switch(&print), "also print the class and landscape tables on stdout");
  add_patch_options(desc, o);
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse(args, desc, pos, "usage: lsm metrics INPUT --out PREFIX [options]")) return 0;

  // Check every option before any work.
  const MetricLevels levels = MetricLevels::parse(levels_text);
  const TableFormat format = parse_table_format(format_text);
  const MetricSelection selection = metrics_text.empty() ? MetricSelection() : MetricSelection(metrics_text);
  if (edge_depth < 1) throw Error(ErrorKind::BadInput, "--edge-depth must be at least 1 cell");
  const GyrateRule gyrate_rule = parse_gyrate_rule(gyrate_text);
  const CoreAreaRule core_area_rule = parse_core_area_rule(core_areas_text);
  const uint64_t memory_limit = parse_memory_size(memory_limit_text, "--memory-limit");
  if (max_classes < 1) throw Error(ErrorKind::BadInput, "--max-classes must be at least 1");
  if (max_richness < 0) throw Error(ErrorKind::BadInput, "--max-richness must be positive");
  MetricOptions metric_options;
  metric_options.background = background;
  metric_options.boundary_edge = boundary_edge;
  if (max_richness > 0) metric_options.max_richness = max_richness;
  metric_options.wanted = [&selection](const std::string& column) { return selection.selects(column); };
  metric_options.temp_dir = temp_dir;
  metric_options.memory_limit = memory_limit / 4;
  if (!(boundary_edge >= 0 && boundary_edge <= 1))
    throw Error(ErrorKind::BadInput, "--boundary-edge must be between 0 and 1");

  GdalClassRaster source(o.input, o.band);
  if (source.geographic())
    std::cerr << "lsm: note: '" << o.input << "' has a geographic CRS; areas and lengths are measured on the "
              << source.ellipsoid() << " ellipsoid (PROJ geodesics), distances in the local plane of each pair\n";
  else if (!source.has_crs())
    std::cerr << "lsm: warning: '" << o.input << "' has no CRS; map units are taken as metres\n";
  // The second pass (shape, core, ENN, class adjacencies) runs only when a
  // wanted metric needs it; area/edge metrics come from the scan's records.
  const bool second_pass = selection.needs_second_pass() || background.has_value() || source.geographic();
  ScanOptions scan = o.scan_options();
  scan.keep_patch_ids = second_pass;
  // Closed patch records beyond an eighth of the limit wait on a scratch file
  // (the second pass needs only their classes and last rows, read once).
  scan.max_record_bytes = memory_limit / 8;
  scan.temp_dir = temp_dir;
  // Rasters whose labels fit half the memory limit (2 x 4 bytes a cell at
  // the second pass's peak; 64 Mi cells with 1G) keep them for the second
  // pass instead of being labeled a second time.
  if (second_pass) scan.keep_labels_max_bytes = static_cast<int64_t>(memory_limit / 4);
  auto labeler = make_labeler(parse_backend(o.backend));
  // On the GPU the second pass's per-cell tests run there too; on the CPU the
  // row visitors do them (see RowMetricOptions::counter).
  std::unique_ptr<NeighbourhoodCounter> counter;
  // ("cuda", or "cuda xN" on several GPUs.)
  if (labeler->name().rfind("cuda", 0) == 0) counter = make_neighbourhood_counter(Backend::Cuda);
  MetricTableFiles files(prefix, levels, format, second_pass);  // fails now if PREFIX is not writable
  const ProgressFn progress = terminal_progress(o.quiet);
  // Up to two passes over the raster: labeling (the first half of the
  // progress when a second pass follows), then per-cell metrics.
  const double scan_share = second_pass ? 0.5 : 1;
  const PatchTable table = scan_patches(source, *labeler, scan, scaled_progress(progress, 0, scan_share));
  const size_t classes = class_codes(table).size();
  if (classes > static_cast<size_t>(max_classes))
    throw Error(ErrorKind::BadInput, "'" + o.input + "' has " + std::to_string(classes) +
                                         " classes, more than --max-classes " + std::to_string(max_classes) +
                                         " (is it a categorical raster?)");
  // What the second pass still holds per patch (results, class and last row,
  // ENN's best distance, open-patch slots: about 80 bytes) is not yet bounded
  // by the limit; say so rather than let a run go over it silently.
  const uint64_t per_patch_bytes = uint64_t(80) * patch_count(table);
  if (second_pass && per_patch_bytes > memory_limit && !o.quiet)
    std::cerr << "lsm: note: " << patch_count(table) << " patches: the second pass holds about "
              << (per_patch_bytes >> 20) << " MiB of per-patch results, beyond --memory-limit\n";
  RowMetricOptions row_options;
  row_options.temp_dir = temp_dir;
  row_options.edge_depth = edge_depth;
  row_options.gyrate = gyrate_rule;
  row_options.core_areas = core_area_rule;
  row_options.want_enn = selection.wants_enn();
  row_options.counter = counter.get();
  const PatchRowResults rows =
      second_pass
          ? compute_patch_row_metrics(source, *labeler, table, row_options, nullptr, scaled_progress(progress, 0.5, 1))
          : records_only_row_results(table);
  // The patch table goes to its file block by block as it is computed.
  FragstatsMetrics m = compute_fragstats_metrics(table, rows, metric_options,
                                                 [&](const MetricTable& block) { files.write_patch_rows(selection.apply(block)); });
  m.cls = selection.apply(m.cls);
  m.land = selection.apply(m.land);
  files.write(m, rows);
  if (print) {
    if (levels.cls) {
      std::cout << "\nClass metrics\n";
      write_table_csv(std::cout, m.cls, MetricLevel::Class);
    }
    if (levels.land) {
      std::cout << "\nLandscape metrics\n";
      write_table_csv(std::cout, m.land, MetricLevel::Landscape);
    }
  }
  return 0;
}

}  // namespace lsm::cli
