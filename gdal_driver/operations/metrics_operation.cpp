// metrics: the FRAGSTATS patch, class and landscape tables and the class
// adjacency matrix of a categorical raster (lsm metrics INPUT --out PREFIX).
#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include "cell_neighbourhood.h"
#include "class_descriptors.h"
#include "common_parameters.h"
#include "error.h"
#include "fragstats_core_areas.h"
#include "fragstats_gyrate.h"
#include "fragstats_metrics.h"
#include "fragstats_tables.h"
#include "gdal_class_raster.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "operations.h"
#include "patch_records.h"
#include "patch_row_metrics.h"
#include "summary_table.h"

namespace lsm::ops {

namespace {

std::vector<std::string> metric_acronyms() {
  std::vector<std::string> acronyms;
  for (const MetricInfo& m : metric_catalogue()) acronyms.push_back(m.acronym);
  return acronyms;
}

OperationSpec metrics_spec() {
  OperationSpec s;
  s.name = "metrics";
  s.summary = "FRAGSTATS patch, class and landscape tables (CSV)";
  s.title = "Landscape metrics (FRAGSTATS)";
  s.category = "Landscape metrics";
  s.passes = 2;
  s.usage = "usage: lsm metrics INPUT --out PREFIX [options]";
  s.front_ends = kCommandLine | kService;  // not a raster the driver could serve
  s.parameters = joined(
      {
          input_raster("input", "input raster (any format GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputTablePrefix, "out",
                 "output prefix: PREFIX.patch.csv, PREFIX.class.csv, PREFIX.land.csv (or PREFIX.tidy.csv) and "
                 "PREFIX.adj.csv (not when --metrics lists only metrics of the patch records, such as AREA, PERIM, CA, NP, TE)")
              .needed()
              .short_option('o')
              .titled("Output tables (prefix)")
              .with_metavar("PREFIX"),
          text("level", "levels to report: any of patch,class,land (default all)")
              .subset_of({"patch", "class", "land"})
              .titled("Levels")
              .checked_by([](const std::string& v) { MetricLevels::parse(v); }),
          text("metrics", "FRAGSTATS acronyms to report, comma-separated (default all)")
              .subset_of(metric_acronyms())
              .labelled(metric_choice_labels(metric_acronyms()))
              .checked_by([](const std::string& v) { MetricSelection{v}; }),
          integer("edge-depth", "edge depth for core metrics").with_default("1").at_least(1).at_most(1000).in("cells"),
          text("gyrate", "GYRATE rule: the mean distance of a patch's cells")
              .one_of_labelled({{"fragstats", "to the patch's area-median point, as FRAGSTATS prints"},
                                {"centroid", "to the centroid, the documented definition"}})
              .titled("GYRATE rule")
              .with_default("fragstats"),
          text("core-areas", "disjunct core areas, which NCORE, CORE, CAI and the class/landscape core metrics count")
              .one_of_labelled({{"fragstats", "as FRAGSTATS counts them, missing some"},
                                {"all", "every 8-connected core area, the documented definition"}})
              .with_default("fragstats"),
          integer("background", "class code of FRAGSTATS background: inside the landscape, but no patches and no class")
              .at_least(-2147483648.0)
              .at_most(2147483647.0),
          number("boundary-edge", "proportion of the landscape boundary and background edge counted as edge in TE/ED")
              .with_default("0")
              .at_least(0)
              .at_most(1),
          text("memory-limit", "memory the run may hold, e.g. 512M or 2G: what does not fit (patch records, per-patch "
                               "values, edge cells) goes to scratch files, and the raster is labeled again instead of kept")
              .with_default("1G")
              .in("bytes")
              .technical()
              .checked_by([](const std::string& v) { memory_size(v); }),
          text("temp-dir", "folder of the scratch files (default $TMPDIR or /tmp); they have no name and vanish on any exit")
              .titled("Scratch folder")
              .technical()
              .only(kCommandLine),  // a server's folders are not the client's to choose
          integer("max-classes", "refuse rasters with more classes than this").with_default("1000").at_least(1).at_most(1000000).technical(),
          integer("max-richness", "maximum potential number of classes, for RPR (default: RPR empty)").at_least(0).at_most(2147483647),
          text("format", "table layout")
              .one_of_labelled({{"fragstats", "one column per metric"}, {"tidy", "one row per value"}})
              .with_default("fragstats"),
          text("class-descriptors", "FRAGSTATS class descriptor file (ID, Name, Enabled, IsBackground): class names "
                                    "for the tables, classes left out of the class table, the background classes")
              .titled("Class descriptors")
              .with_metavar("FILE")
              .only(kCommandLine),
          flag("print", "also print key columns of the class and landscape tables on stdout, aligned, with class names")
              .only(kCommandLine),
      },
      patch_parameters());
  return s;
}

void run_metrics(const ParameterValues& v, const RunContext& context) {
  const std::string input = v.text("input"), prefix = v.text("out"), temp_dir = v.text("temp-dir");
  // Every option is checked before any work.
  const MetricLevels levels = MetricLevels::parse(v.given("level") ? v.text("level") : "patch,class,land");
  const TableFormat format = parse_table_format(v.text("format"));
  const MetricSelection selection = v.given("metrics") ? MetricSelection(v.text("metrics")) : MetricSelection();
  const uint64_t memory_limit = memory_size(v.text("memory-limit"));
  const ClassDescriptors descriptors =
      v.given("class-descriptors") ? read_class_descriptors(v.text("class-descriptors")) : ClassDescriptors{};
  // --background wins over the descriptor file's IsBackground classes.
  const std::set<int32_t> background = v.given("background")
                                           ? std::set<int32_t>{static_cast<int32_t>(v.integer("background"))}
                                           : descriptors.background;
  MetricOptions metric_options;
  metric_options.background = background;
  metric_options.boundary_edge = v.number("boundary-edge");
  if (v.integer("max-richness") > 0) metric_options.max_richness = static_cast<int>(v.integer("max-richness"));
  metric_options.wanted = [&selection](const std::string& column) { return selection.selects(column); };
  metric_options.temp_dir = temp_dir;
  metric_options.memory_limit = memory_limit / 4;
  const ProgressFn progress = context.checked_progress();

  GdalClassRaster source(input, static_cast<int>(v.integer("band")));
  source.require_measurable_cells();
  // Notes on stderr stay with -q, which silences only the progress.
  if (source.geographic())
    std::cerr << "lsm: note: '" << input << "' has a geographic CRS; areas and lengths are measured on the "
              << source.ellipsoid() << " ellipsoid (PROJ geodesics), distances in the local plane of each pair\n";
  else if (!source.has_crs())
    std::cerr << "lsm: warning: '" << input << "' has no CRS; map units are taken as metres\n";
  // The second pass (shape, core, ENN, class adjacencies) runs only when a
  // wanted metric needs it; area/edge metrics come from the scan's records.
  const bool second_pass = selection.needs_second_pass() || !background.empty() || source.geographic();
  ScanOptions scan = scan_options(v);
  scan.keep_patch_ids = second_pass;
  // Closed patch records beyond an eighth of the limit wait on a scratch file
  // (the second pass needs only their classes and last rows, read once).
  scan.max_record_bytes = memory_limit / 8;
  scan.temp_dir = temp_dir;
  // Its per-patch arrays (sort keys, fragment links) beyond a sixteenth of
  // the limit each go to scratch files, as the second pass's do.
  scan.max_patch_array_bytes = memory_limit / 16;
  // Rasters whose labels fit half the memory limit (2 x 4 bytes a cell at
  // the second pass's peak; 64 Mi cells with 1G) keep them for the second
  // pass instead of being labeled a second time.
  if (second_pass) scan.keep_labels_max_bytes = static_cast<int64_t>(memory_limit / 4);
  auto labeler = make_labeler(parse_backend(v.text("backend")));
  // On a GPU (one or several) the second pass's per-cell tests run there too.
  const std::unique_ptr<NeighbourhoodCounter> counter = second_pass_counter(*labeler);
  MetricTableFiles files(prefix, levels, format, second_pass);  // fails now if PREFIX is not writable
  // Class names: the descriptor file's, else the raster's attribute table or category names.
  const std::map<int32_t, std::string> names = descriptors.names.empty() ? source.class_names() : descriptors.names;
  files.set_class_names(names);
  // Up to two passes over the raster: labeling (the first half of the
  // progress when a second pass follows), then per-cell metrics.
  const double scan_share = second_pass ? 0.5 : 1;
  const PatchTable table = scan_patches(source, *labeler, scan, scaled_progress(progress, 0, scan_share));
  const size_t classes = class_codes(table).size();
  const long long max_classes = v.integer("max-classes");
  if (classes > static_cast<size_t>(max_classes))
    throw Error(ErrorKind::BadInput, "'" + input + "' has " + std::to_string(classes) + " classes, more than " +
                                         v.spelled("max-classes") + " " + std::to_string(max_classes) +
                                         " (is it a categorical raster?)");
  RowMetricOptions row_options;
  row_options.temp_dir = temp_dir;
  // Per-patch arrays of the second pass beyond a sixteenth of the limit each
  // (64 MiB with 1G: 16 M patches of 4 bytes) live on scratch files.
  row_options.max_patch_array_bytes = memory_limit / 16;
  row_options.edge_depth = static_cast<int>(v.integer("edge-depth"));
  row_options.gyrate = parse_gyrate_rule(v.text("gyrate"));
  row_options.core_areas = parse_core_area_rule(v.text("core-areas"));
  row_options.want_enn = selection.wants_enn();
  row_options.counter = counter.get();
  const PatchRowResults rows =
      second_pass
          ? compute_patch_row_metrics(source, *labeler, table, row_options, nullptr, scaled_progress(progress, 0.5, 1))
          : records_only_row_results(table);
  // The patch table goes to its file block by block as it is computed.
  FragstatsMetrics m = compute_fragstats_metrics(table, rows, metric_options, [&](const MetricTable& block) {
    if (selection.all()) files.write_patch_rows(block);  // the default: no copy of a block of rows
    else files.write_patch_rows(selection.apply(block));
  });
  m.cls = selection.apply(m.cls);
  // FRAGSTATS leaves classes that are not Enabled out of the class-level output.
  m.cls.rows.erase(std::remove_if(m.cls.rows.begin(), m.cls.rows.end(),
                                  [&](const MetricTable::Row& r) { return descriptors.disabled.count(r.type) > 0; }),
                   m.cls.rows.end());
  m.land = selection.apply(m.land);
  files.write(m, rows);
  if (v.flag("print")) {  // a summary for a person; every column is in the files
    if (levels.cls) {
      std::cout << "\nClass metrics (key columns; all in " << prefix << ".class.csv)\n";
      write_summary_table(std::cout, m.cls, MetricLevel::Class, names);
    }
    if (levels.land) {
      std::cout << "\nLandscape metrics (key columns; all in " << prefix << ".land.csv)\n";
      write_summary_table(std::cout, m.land, MetricLevel::Landscape);
    }
  }
}

}  // namespace

Operation metrics_operation() { return {metrics_spec(), run_metrics}; }

}  // namespace lsm::ops
