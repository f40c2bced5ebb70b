// metrics: the FRAGSTATS patch, class and landscape tables and the class
// adjacency matrix of a categorical raster (lsm metrics INPUT --out PREFIX).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "batch_file.h"
#include "class_descriptors.h"
#include "common_parameters.h"
#include "error.h"
#include "fragstats_tables.h"
#include "gdal_class_raster.h"
#include "landscape_job.h"
#include "keyed_tables.h"
#include "landscape_parameters.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "operations.h"
#include "row_range_scan.h"
#include "summary_table.h"

namespace lsm::ops {

namespace {

OperationSpec metrics_spec() {
  OperationSpec s;
  s.name = "metrics";
  s.summary = "FRAGSTATS patch, class and landscape tables (CSV)";
  s.title = "Landscape metrics (FRAGSTATS)";
  s.category = "Landscape metrics";
  s.manual = "metrics.md";
  s.passes = 2;
  s.usage = "usage: lsm metrics INPUT [INPUT ...] --output PREFIX [options]";
  s.front_ends = kCommandLine | kService;  // not a raster the driver could serve
  s.parameters = joined(joined(joined(
      {
          input_raster("input", "input raster (any format GDAL reads); several, or on the command line a FRAGSTATS "
                                "batch file (.fbt) or a list of rasters (.txt, .lst: one per line), make a batch: one "
                                "set of tables with a LID column first, a row set per raster, as FRAGSTATS' batch "
                                "runs write")
              .needed()
              .several()
              .at_position(1),
          output(ParameterRole::OutputTablePrefix, "output",
                 "output prefix: PREFIX.patch.csv, PREFIX.class.csv, PREFIX.land.csv (or PREFIX.tidy.csv) and "
                 "PREFIX.adj.csv (not when --metrics lists only metrics of the patch records, such as AREA, PERIM, CA, NP, TE)")
              .needed()
              .short_option('o')
              .titled("Output tables (prefix)")
              .with_metavar("PREFIX")
              .also_spelled("out")
              .making({{"patch", ".patch.csv", "text/csv", "patch table (one row per patch)"},
                       {"class", ".class.csv", "text/csv", "class table (one row per class)"},
                       {"land", ".land.csv", "text/csv", "landscape table (one row)"},
                       {"adj", ".adj.csv", "text/csv", "class adjacency matrix (cell sides, double count)"},
                       {"tidy", ".tidy.csv", "text/csv", "tidy table (with format=tidy: level, class, id, metric, value)"}}),
          text("level", "levels to report: any of patch,class,land (default all)")
              .subset_of({"patch", "class", "land"})
              .titled("Levels")
              .checked_by([](const std::string& v) { MetricLevels::parse(v); }),
      },
      table_analysis_parameters()), {
          text("format", "table layout")
              .one_of_labelled({{"fragstats", "one column per metric"}, {"tidy", "one row per value"}})
              .with_default("fragstats"),
          class_descriptors_parameter(),
          flag("print", "also print key columns of the class and landscape tables on stdout, aligned, with class names")
              .presentation(),
      }),
      patch_parameters());
  return s;
}

// The levels of the selected metrics: a table without a selected column is
// not written. Asked for by --level, that is an error; left to the default,
// a note names the tables left out.
void select_levels(MetricLevels& levels, const MetricSelection& selection, const ParameterValues& v,
                   const RunContext& context) {
  const std::pair<bool*, std::pair<unsigned, const char*>> each[] = {
      {&levels.patch, {kPatchLevel, "patch"}}, {&levels.cls, {kClassLevel, "class"}}, {&levels.land, {kLandscapeLevel, "land"}}};
  std::string dropped;
  for (const auto& [wanted, level] : each) {
    if (!*wanted || selection.selects_at(level.first)) continue;
    if (v.given("level"))
      v.fail("metrics", "'" + v.text("metrics") + "' selects no " + level.second + " metric, so --level " +
                            level.second + " would write an empty table");
    *wanted = false;
    dropped += std::string(dropped.empty() ? "" : ", ") + level.second;
  }
  if (!levels.patch && !levels.cls && !levels.land)
    v.fail("metrics", "'" + v.text("metrics") + "' selects no metric of the levels asked for");
  if (const size_t last = dropped.rfind(", "); last != std::string::npos) dropped.replace(last, 2, " or ");
  if (!dropped.empty())
    context.notify("note: --metrics " + v.text("metrics") + " selects no " + dropped +
                   " metric: no table of that level is written");
}

// The LID of each input of a batch: its path's fewest trailing components
// that tell every input apart ("2001/landcover.tif", "2015/landcover.tif";
// "a.tif" where the file names differ), so that no folder of the machine
// that runs it appears where it is not needed. Throws lsm::Error(BadInput)
// for an input given twice.
std::vector<std::string> landscape_ids(const ParameterValues& v, const std::vector<std::string>& inputs) {
  std::vector<std::vector<std::string>> parts;
  size_t deepest = 0;
  for (const std::string& input : inputs) {
    std::vector<std::string> components;
    for (const auto& c : std::filesystem::path(input).lexically_normal()) components.push_back(c.string());
    deepest = std::max(deepest, components.size());
    parts.push_back(std::move(components));
  }
  for (size_t k = 1; k <= deepest; ++k) {
    std::vector<std::string> ids;
    for (const auto& components : parts) {
      std::filesystem::path tail;
      for (size_t i = components.size() > k ? components.size() - k : 0; i < components.size(); ++i) tail /= components[i];
      ids.push_back(tail.string());
    }
    if (std::set<std::string>(ids.begin(), ids.end()).size() == ids.size()) return ids;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t j = i + 1; j < inputs.size(); ++j)
      if (parts[i] == parts[j]) v.fail("input", "names '" + inputs[i] + "' twice: a batch measures each raster once");
  return inputs;
}

// The landscapes of the run: the inputs, each batch file (.fbt, .txt, .lst)
// among them read in its place. Batch files only from the command line: a
// service's inputs are confined to its data folders, the paths in a file are not.
std::vector<BatchLandscape> batch_landscapes(const ParameterValues& v, const std::vector<std::string>& inputs) {
  std::vector<BatchLandscape> landscapes;
  for (const std::string& input : inputs) {
    if (!is_batch_file(input)) {
      BatchLandscape l;
      l.path = input;
      landscapes.push_back(std::move(l));
      continue;
    }
    if (v.front_end() != kCommandLine)
      v.fail("input", "'" + input + "' is a batch file: give the rasters themselves (a batch file is read on the "
                                    "command line only)");
    for (BatchLandscape& l : read_batch_file(input)) landscapes.push_back(std::move(l));
  }
  return landscapes;
}

std::string metres(double value) {
  std::ostringstream text;
  text << std::setprecision(9) << value;
  return text.str();
}

// Refuses a raster that is not what its batch file line says it is.
void check_batch_line(const BatchLandscape& l, const GdalClassRaster& source) {
  if (l.batch_file.empty()) return;
  const std::string where = "'" + l.path + "' ";  // with_batch_line() puts the file and line in front
  const RasterInfo info = source.info();
  if (l.rows && *l.rows != info.height)
    throw Error(ErrorKind::BadInput, where + "has " + std::to_string(info.height) + " rows, the batch file says " +
                                         std::to_string(*l.rows));
  if (l.columns && *l.columns != info.width)
    throw Error(ErrorKind::BadInput, where + "has " + std::to_string(info.width) + " columns, the batch file says " +
                                         std::to_string(*l.columns));
  if (l.cell_size && !info.geodesic)
    for (const double side : {info.cell_width, info.cell_height})
      if (std::fabs(side - *l.cell_size) > 1e-6 * *l.cell_size)
        throw Error(ErrorKind::BadInput, where + "has cells of " + metres(info.cell_width) + " x " +
                                             metres(info.cell_height) + " m, the batch file says " +
                                             metres(*l.cell_size) + " m");
}

// A batch: each input its own landscape, one set of tables with a LID column.
// A batch file's line may give the landscape's band, nodata value and
// background class; they win over the options for that landscape.
void run_batch(const ParameterValues& v, const RunContext& context, const std::vector<BatchLandscape>& landscapes,
               const MetricLevels& levels, TableFormat format, LandscapeJobOptions job,
               const ClassDescriptors& descriptors) {
  const std::string prefix = v.text("output");
  if (v.flag("print"))
    v.fail("print", "prints the tables of one raster; a batch's are in " + prefix + ".class.csv and " + prefix + ".land.csv");
  std::vector<std::string> inputs;
  for (const BatchLandscape& l : landscapes) inputs.push_back(l.path);
  const std::vector<std::string> lids = landscape_ids(v, inputs);
  const auto open = [&](const BatchLandscape& l) {
    auto source = std::make_unique<GdalClassRaster>(l.path, l.band ? *l.band : static_cast<int>(v.integer("band")));
    use_given_nodata(*source, v);
    if (l.nodata) source->set_nodata(*l.nodata);
    return source;
  };
  // Class names: the descriptor file's, else each raster's own (as lsm metrics).
  std::vector<std::map<int32_t, std::string>> names;
  for (const BatchLandscape& l : landscapes)  // every input is checked before any work
    with_batch_line(l, [&] {
      const std::unique_ptr<GdalClassRaster> source = open(l);
      source->require_measurable_cells();
      check_batch_line(l, *source);
      names.push_back(descriptors.names.empty() ? source->class_names() : descriptors.names);
    });
  KeyedTableFiles files(prefix, levels, format, "LID");  // fails now if PREFIX is not writable
  if (std::any_of(names.begin(), names.end(), [](const auto& n) { return !n.empty(); })) files.add_name_column();
  const ProgressFn progress = context.checked_progress();
  const std::set<int32_t> background = job.background;
  for (size_t i = 0; i < landscapes.size(); ++i) {
    const std::unique_ptr<GdalClassRaster> raster = open(landscapes[i]);
    GdalClassRaster& source = *raster;
    note_measurement(source, inputs[i], context);
    job.after_scan = class_count_check(v, inputs[i]);
    job.background = landscapes[i].background ? std::set<int32_t>{*landscapes[i].background} : background;
    files.set_class_names(names[i]);
    bool patch_rows_added = false;
    LandscapeSinks sinks;
    sinks.patch_rows = [&](const MetricTable& block) {
      patch_rows_added = true;
      files.add_patch_rows(lids[i], block);
    };
    const double n = double(inputs.size());
    const LandscapeResults results = run_landscape_job(source, job, sinks, scaled_progress(progress, i / n, (i + 1) / n));
    files.add_landscape(lids[i], results.metrics, patch_rows_added);
  }
  files.commit();
}

void run_metrics(const ParameterValues& v, const RunContext& context) {
  const std::string input = v.text("input"), prefix = v.text("output");
  require_table_prefix(v);  // every option is checked before any work
  MetricLevels levels = MetricLevels::parse(v.given("level") ? v.text("level") : "patch,class,land");
  const TableFormat format = parse_table_format(v.text("format"));
  const ClassDescriptors descriptors =
      v.given("class-descriptors") ? read_class_descriptors(v.text("class-descriptors")) : ClassDescriptors{};
  LandscapeJobOptions job = table_job_options(v, context, descriptors, input);
  select_levels(levels, job.selection, v, context);
  if (const std::vector<std::string> inputs = v.texts("input"); inputs.size() > 1 || is_batch_file(input))
    return run_batch(v, context, batch_landscapes(v, inputs), levels, format, job, descriptors);

  GdalClassRaster source(input, static_cast<int>(v.integer("band")));
  use_given_nodata(source, v);
  source.require_measurable_cells();
  note_measurement(source, input, context);
  const LandscapePlan plan = plan_landscape_job(source.info(), job);
  MetricTableFiles files(prefix, levels, format, plan.second_pass);  // fails now if PREFIX is not writable
  // Class names: the descriptor file's, else the raster's attribute table or category names.
  const std::map<int32_t, std::string> names = descriptors.names.empty() ? source.class_names() : descriptors.names;
  files.set_class_names(names);
  LandscapeSinks sinks;
  // The patch table goes to its file block by block as it is computed.
  sinks.patch_rows = [&files](const MetricTable& block) { files.write_patch_rows(block); };
  if (context.ranks)  // under mpirun: the first pass in row ranges, one per rank
    job.scan = scan_across_ranks(*context.ranks, scan_recipe(v, input, job.backend));
  const LandscapeResults results = run_landscape_job(source, job, sinks, context.checked_progress());
  files.write(results.metrics, results.rows);
  if (v.flag("print")) {  // a summary for a person; every column is in the files
    if (levels.cls) {
      std::cout << "\nClass metrics (key columns; all in " << prefix << ".class.csv)\n";
      write_summary_table(std::cout, results.metrics.cls, MetricLevel::Class, names);
    }
    if (levels.land) {
      std::cout << "\nLandscape metrics (key columns; all in " << prefix << ".land.csv)\n";
      write_summary_table(std::cout, results.metrics.land, MetricLevel::Landscape);
    }
  }
}

}  // namespace

Operation metrics_operation() { return {metrics_spec(), run_metrics}; }

}  // namespace lsm::ops
