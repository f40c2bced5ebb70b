// change: FRAGSTATS' class and landscape metrics of one area at two dates
// and their change (lsm change EARLIER.tif LATER.tif --output PREFIX), as
// pylandstats' SpatioTemporalAnalysis reports them: each date is its own
// landscape (the landscape job), the change is the later value minus the
// earlier (table_difference.h).
#include <gdal_priv.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "atomic_output.h"
#include "common_parameters.h"
#include "error.h"
#include "fragstats_tables.h"
#include "gdal_class_raster.h"
#include "keyed_tables.h"
#include "landscape_parameters.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "operations.h"
#include "same_grid.h"
#include "table_difference.h"

namespace lsm::ops {

namespace {

OperationSpec change_spec() {
  OperationSpec s;
  s.name = "change";
  s.summary = "class and landscape metrics of one area at two dates and their change (CSV)";
  s.title = "Landscape change between two dates (FRAGSTATS)";
  s.category = "Landscape metrics";
  s.manual = "ZONAL.md";
  s.passes = 4;
  s.usage = "usage: lsm change EARLIER LATER --output PREFIX [options]";
  s.front_ends = kCommandLine | kService;  // tables, not a raster the driver could serve
  s.parameters = joined(joined(
      {
          input_raster("input", "the earlier raster (any format GDAL reads)").needed().at_position(1).titled("Earlier raster"),
          input_raster("later", "the later raster, on the earlier one's grid (same size, origin, cell size and CRS)")
              .needed()
              .at_position(2)
              .titled("Later raster"),
          output(ParameterRole::OutputTablePrefix, "output",
                 "output prefix: PREFIX.class.csv and PREFIX.land.csv (both dates, a LID column first) and "
                 "PREFIX.class_change.csv and PREFIX.land_change.csv (later minus earlier)")
              .needed()
              .short_option('o')
              .titled("Output tables (prefix)")
              .with_metavar("PREFIX")
              .making({{"class", ".class.csv", "text/csv", "class table of both dates (LID, TYPE, metrics)"},
                       {"land", ".land.csv", "text/csv", "landscape table of both dates (LID, metrics)"},
                       {"class_change", ".class_change.csv", "text/csv", "each class's change (later minus earlier)"},
                       {"land_change", ".land_change.csv", "text/csv", "the landscape's change (later minus earlier)"}}),
          text("level", "levels to report: any of class,land").subset_of({"class", "land"})
              .with_default("class,land")
              .titled("Levels")
              .checked_by([](const std::string& v) {
                if (MetricLevels::parse(v).patch)
                  throw Error(ErrorKind::BadInput, "lists patch: patches are not the same objects at two dates");
              }),
          metrics_parameter(),
          edge_depth_parameter(),
          edge_distance_parameter(),
      },
      landscape_definition_parameters()),
      patch_parameters());
  return s;
}

// A change table under its temporary name; the caller commits it.
AtomicOutput write_change_table(const std::string& path, const MetricTable& table, MetricLevel level) {
  AtomicOutput file(path);
  std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
  write_table_csv(out, table, level);
  out.close();
  if (!out) throw Error(ErrorKind::Io, "cannot write '" + path + "'");
  return file;
}

void run_change(const ParameterValues& v, const RunContext& context) {
  const std::string prefix = v.text("output");
  require_table_prefix(v);
  MetricLevels levels = MetricLevels::parse(v.text("level"));
  levels.patch = false;
  LandscapeJobOptions job = landscape_job_options(v, context);
  if (v.given("metrics")) job.selection = MetricSelection(v.text("metrics"));
  set_landscape_definition(v, job);
  if (levels.cls && !job.selection.selects_at(kClassLevel)) levels.cls = false;
  if (levels.land && !job.selection.selects_at(kLandscapeLevel)) levels.land = false;
  if (!levels.cls && !levels.land) v.fail("metrics", "'" + v.text("metrics") + "' selects no class or landscape metric");

  const std::string paths[2] = {v.text("input"), v.text("later")};
  GdalClassRaster earlier(paths[0], static_cast<int>(v.integer("band")));
  GdalClassRaster later(paths[1], static_cast<int>(v.integer("band")));
  // A change is only a change of the same cells.
  if (const std::string why = grid_mismatch(earlier, later, "the earlier raster"); !why.empty())
    v.fail("later", "'" + later.path() + "' " + why);
  GdalClassRaster* sources[2] = {&earlier, &later};
  for (int i = 0; i < 2; ++i) {
    use_given_nodata(*sources[i], v);
    sources[i]->require_measurable_cells();
  }
  note_measurement(earlier, paths[0], context);
  // The LIDs: the file names, or the paths where the file names are the same.
  const auto lid = [&](int i) {
    const std::string a = std::filesystem::path(paths[0]).filename().string(), b = std::filesystem::path(paths[1]).filename().string();
    return a != b ? (i ? b : a) : paths[i];
  };
  if (lid(0) == lid(1)) v.fail("later", "is the earlier raster itself ('" + paths[1] + "')");

  KeyedTableFiles files(prefix, levels, TableFormat::Fragstats, "LID");  // fails now if PREFIX is not writable
  const std::map<int32_t, std::string> names[2] = {earlier.class_names(), later.class_names()};
  if (!names[0].empty() || !names[1].empty()) files.add_name_column();
  LandscapeSinks sinks;
  sinks.patch_rows = [](const MetricTable&) {};  // no patch table: the patch rows are not kept
  const ProgressFn progress = context.checked_progress();
  FragstatsMetrics dates[2];
  for (int i = 0; i < 2; ++i) {
    job.after_scan = class_count_check(v, paths[i]);
    dates[i] = run_landscape_job(*sources[i], job, sinks, scaled_progress(progress, i * 0.5, (i + 1) * 0.5)).metrics;
    files.set_class_names(names[i]);
    files.add_landscape(lid(i), dates[i], true);
  }
  // Every table is written under its temporary name before any is renamed
  // into place: a failure leaves none.
  std::vector<AtomicOutput> changes;
  if (levels.cls)
    changes.push_back(write_change_table(prefix + ".class_change.csv", table_difference(dates[0].cls, dates[1].cls, true),
                                         MetricLevel::Class));
  if (levels.land)
    changes.push_back(write_change_table(prefix + ".land_change.csv",
                                         table_difference(dates[0].land, dates[1].land, false), MetricLevel::Landscape));
  files.commit();
  for (AtomicOutput& f : changes) f.commit();
}

}  // namespace

Operation change_operation() { return {change_spec(), run_change}; }

}  // namespace lsm::ops
