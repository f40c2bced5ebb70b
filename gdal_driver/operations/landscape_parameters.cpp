#include "landscape_parameters.h"

#include <filesystem>

#include "class_descriptors.h"
#include "common_parameters.h"
#include "class_pair_table.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "fragstats_core_areas.h"
#include "fragstats_gyrate.h"

namespace lsm::ops {

namespace {

// An input as the front end names it in a message: "--search-radius
// METRES" on the command line, "input search-radius, in metres" to a
// service client (`cli_value`: "METRES", `what`: "in metres").
std::string named_input(const ParameterValues& v, const std::string& name, const std::string& cli_value,
                        const std::string& what) {
  const std::string spelled = v.spelled(name);
  return spelled.rfind("--", 0) == 0 ? spelled + " " + cli_value : spelled + ", " + what;
}

std::string distance_input(const ParameterValues& v, const std::string& name) {
  return named_input(v, name, "METRES", "in metres");
}

}  // namespace

void use_given_nodata(GdalClassRaster& source, const ParameterValues& values) {
  if (values.spec().find("nodata") && values.given("nodata")) source.set_nodata(values.number("nodata"));
}

std::vector<ParameterSpec> landscape_definition_parameters() {
  return {
      integer("background", "class code of FRAGSTATS background: inside the landscape, but no patches and no class")
          .at_least(-2147483648.0)
          .at_most(2147483647.0),
      number("boundary-edge", "proportion of the landscape boundary and background edge counted as edge in TE/ED")
          .with_default("0")
          .at_least(0)
          .at_most(1),
      integer("max-richness", "maximum potential number of classes, for RPR (default: RPR empty)").at_least(0).at_most(2147483647),
  };
}

ParameterSpec metrics_parameter() {
  std::vector<std::string> acronyms;
  for (const MetricInfo& m : metric_catalogue()) acronyms.push_back(m.acronym);
  // The metrics known but not computed yet, with what each would need.
  std::string not_yet = "Not computed yet (asking for one says so):\n";
  for (const MissingMetric& m : missing_metrics()) {
    const std::string acronym = m.acronym;  // in the catalogue's column of 11
    not_yet += acronym + std::string(acronym.size() < 11 ? 11 - acronym.size() : 1, ' ') + m.from +
               (*m.needs ? std::string("; needs ") + m.needs : std::string()) + "\n";
  }
  return text("metrics", "FRAGSTATS acronyms to report, comma-separated (default all)")
      .subset_of(acronyms)
      .labelled(metric_choice_labels(acronyms))
      .detailed(metric_choice_details(acronyms))
      .listed_with(not_yet)
      .checked_by([](const std::string& v) { MetricSelection{v}; });
}

ParameterSpec edge_depth_parameter() {
  return integer("edge-depth", "edge depth for core metrics").with_default("1").at_least(1).at_most(1000).in("cells");
}

ParameterSpec edge_distance_parameter() {
  return number("edge-distance", "edge depth for core metrics as FRAGSTATS asks for it, a distance: a whole number "
                                 "of the raster's square cells (instead of --edge-depth)")
      .at_least(0)
      .at_most(1e9)
      .in("m")
      .titled("Edge depth as a distance");
}

ParameterSpec core_areas_parameter() {
  return text("core-areas", "disjunct core areas, which NCORE, CORE, CAI and the class/landscape core metrics count")
      .one_of_labelled({{"fragstats", "as FRAGSTATS counts them, missing some"},
                        {"all", "every 8-connected core area, the documented definition"}})
      .with_default("fragstats");
}

void set_edge_depth(const ParameterValues& values, LandscapeJobOptions& job) {
  if (values.spec().find("edge-depth")) job.edge_depth = static_cast<int>(values.integer("edge-depth"));
  if (values.spec().find("edge-distance") && values.given("edge-distance")) {
    // A depth left at its default gives way to the distance (a dialog sends
    // every field it shows); another depth contradicts it.
    const ParameterSpec* depth = values.spec().find("edge-depth");
    if (depth && values.given("edge-depth") && depth->default_value &&
        values.integer("edge-depth") != std::stoll(*depth->default_value))
      throw Error(ErrorKind::BadInput, values.spelled("edge-depth") + " and " + values.spelled("edge-distance") +
                                           " exclude each other");
    job.edge_distance = values.number("edge-distance");
  }
}

std::vector<ParameterSpec> table_analysis_parameters() {
  return joined(
      joined({metrics_parameter(), edge_depth_parameter(), edge_distance_parameter(),
              text("gyrate", "GYRATE rule: the mean distance of a patch's cells")
                  .one_of_labelled({{"fragstats", "to the patch's area-median point, as FRAGSTATS prints"},
                                    {"centroid", "to the centroid, the documented definition"}})
                  .titled("GYRATE rule")
                  .with_default("fragstats"),
              core_areas_parameter()},
             landscape_definition_parameters()),
      joined(auxiliary_input_parameters(),
             {integer("max-classes", "refuse rasters with more classes than this")
           .with_default("1000")
           .at_least(1)
           .at_most(1000000)
           .technical()}));
}

std::vector<ParameterSpec> auxiliary_input_parameters() {
  return {contrast_table_parameter(), edge_depth_table_parameter(), search_radius_parameter(), similarity_table_parameter(),
          threshold_distance_parameter()};
}

ParameterSpec threshold_distance_parameter() {
  return number("threshold-distance", "FRAGSTATS' threshold distance of CONNECT: two patches of a class are joined "
                                      "when their edge-to-edge distance (cell centre to cell centre) is at most this")
      .at_least(0)
      .at_most(1e9)
      .in("m")
      .titled("Threshold distance (CONNECT)");
}

std::optional<double> threshold_distance(const ParameterValues& v) {
  if (!v.given("threshold-distance")) return std::nullopt;
  if (!(v.number("threshold-distance") > 0)) v.fail("threshold-distance", "must be more than 0 m");
  return v.number("threshold-distance");
}

void set_auxiliary_inputs(const ParameterValues& v, LandscapeJobOptions& job,
                          const std::map<int32_t, std::string>& class_names) {
  const bool named = !job.selection.all();  // asked for by name: empty columns would read as a failure
  if (v.given("contrast-table"))
    job.contrast = std::make_shared<const ClassPairTable>(read_contrast_table(v.text("contrast-table"), class_names));
  else if (named)
    for (const char* contrast : {"CWED", "TECI", "ECON"})
      if (job.selection.wants_patch_metric(contrast))
        throw Error(ErrorKind::BadInput,
                    std::string(contrast) + " needs FRAGSTATS' edge contrast weights (" +
                        named_input(v, "contrast-table", "FILE.fce", "a .fce table") + ")");
  job.threshold_distance = threshold_distance(v);
  if (!job.threshold_distance && named && job.selection.selects("CONNECT")) {
    throw Error(ErrorKind::BadInput,
                "CONNECT needs FRAGSTATS' threshold distance (" + distance_input(v, "threshold-distance") + ")");
  }
  set_edge_depth_table(v, job, class_names);
  set_proximity_inputs(v, job, class_names);
}

void set_edge_depth_table(const ParameterValues& v, LandscapeJobOptions& job,
                          const std::map<int32_t, std::string>& class_names) {
  if (!v.given("edge-depth-table")) return;
  for (const char* other : {"edge-distance", "edge-depth"})  // a depth at its default gives way, as to --edge-distance
    if (v.spec().find(other) && v.given(other) && !(std::string(other) == "edge-depth" && job.edge_depth == 1))
      throw Error(ErrorKind::BadInput, v.spelled(other) + " and " + v.spelled("edge-depth-table") + " exclude each other");
  job.edge_depth_table =
      std::make_shared<const ClassPairTable>(read_edge_depth_table(v.text("edge-depth-table"), class_names));
}

ParameterSpec edge_depth_table_parameter() {
  return input_table("edge-depth-table", "FRAGSTATS edge depth file (.fdt: FSQ_TABLE, the class list, a matrix of depths in "
                                  "m, row = the class of the patch, column = the class beyond its edge), for the core "
                                  "metrics (instead of --edge-depth)")
      .titled("Edge depths per class pair")
      .with_metavar("FILE");
}

ParameterSpec contrast_table_parameter() {
  return input_table("contrast-table", "FRAGSTATS edge contrast weight file (.fce: FSQ_TABLE, the class list, a symmetric "
                                "matrix of weights 0..1), for CWED, TECI and ECON; the landscape boundary takes the "
                                "background's weights (the --background class, else class 999)")
      .titled("Edge contrast weights")
      .with_metavar("FILE");
}

ParameterSpec search_radius_parameter() {
  return number("search-radius", "FRAGSTATS' search radius of PROX and SIMI: the patches whose edge-to-edge "
                                 "distance (cell centre to cell centre) to a patch is at most this are its neighbours")
      .at_least(0)
      .at_most(1e9)
      .in("m")
      .titled("Search radius (PROX, SIMI)");
}

ParameterSpec similarity_table_parameter() {
  return input_table("similarity-table", "FRAGSTATS similarity weight file (.fsq: FSQ_TABLE, the class list, a matrix of "
                                  "weights 0..1, row = the focal patch's class), for SIMI with --search-radius")
      .titled("Similarity weights")
      .with_metavar("FILE");
}

void set_proximity_inputs(const ParameterValues& v, LandscapeJobOptions& job,
                          const std::map<int32_t, std::string>& class_names) {
  const bool named = !job.selection.all();  // asked for by name: empty columns would read as a failure
  if (v.given("search-radius")) {
    if (!(v.number("search-radius") > 0)) v.fail("search-radius", "must be more than 0 m");
    job.search_radius = v.number("search-radius");
  } else {
    for (const char* metric : {"PROX", "SIMI"})
      if (named && job.selection.wants_patch_metric(metric))
        throw Error(ErrorKind::BadInput,
                    std::string(metric) + " needs FRAGSTATS' search radius (" + distance_input(v, "search-radius") + ")");
  }
  if (v.given("similarity-table"))
    job.similarity =
        std::make_shared<const ClassPairTable>(read_similarity_table(v.text("similarity-table"), class_names));
  else if (named && job.selection.wants_patch_metric("SIMI"))
    throw Error(ErrorKind::BadInput, "SIMI needs FRAGSTATS' similarity weights (" +
                                         named_input(v, "similarity-table", "FILE.fsq", "a .fsq table") + ")");
}

ParameterSpec class_descriptors_parameter() {
  return input_table("class-descriptors", "FRAGSTATS class descriptor file (ID, Name, Enabled, IsBackground): class names "
                                   "for the tables, classes left out of the class table, the background classes")
      .titled("Class descriptors")
      .with_metavar("FILE");
}

LandscapeJobOptions table_job_options(const ParameterValues& v, const RunContext& context,
                                      const ClassDescriptors& descriptors, const std::string& input) {
  LandscapeJobOptions job = landscape_job_options(v, context);
  if (v.given("metrics")) job.selection = MetricSelection(v.text("metrics"));
  // --background wins over the descriptor file's IsBackground classes.
  job.background = v.given("background") ? std::set<int32_t>{static_cast<int32_t>(v.integer("background"))}
                                         : descriptors.background;
  // FRAGSTATS leaves classes that are not Enabled out of the class-level output.
  job.disabled_classes = descriptors.disabled;
  set_landscape_definition(v, job);  // the background as given, else the descriptor file's (above)
  job.gyrate = parse_gyrate_rule(v.text("gyrate"));
  job.core_areas = parse_core_area_rule(v.text("core-areas"));
  job.after_scan = class_count_check(v, input);
  set_auxiliary_inputs(v, job, descriptors.names);
  return job;
}

void require_table_prefix(const ParameterValues& values) {
  const std::string prefix = values.text("output");
  if (prefix.empty() || prefix.back() == '/' || std::filesystem::is_directory(prefix))
    values.fail("output", "'" + prefix + "' is not a prefix of file names: give one such as " +
                              (prefix.empty() ? std::string("run1") : prefix + (prefix.back() == '/' ? "" : "/") + "run1") +
                              " (tables run1.class.csv, run1.land.csv ...)");
}

LandscapeJobOptions landscape_job_options(const ParameterValues& values, const RunContext& context) {
  const ScanOptions scan = scan_options(values, context);
  LandscapeJobOptions job;
  job.rule = scan.rule;
  job.tile_width = scan.tile_width;
  job.tile_height = scan.tile_height;
  job.backend = parse_backend(values.text("backend"));
  job.budget = run_budget(values, context);
  set_edge_depth(values, job);
  return job;
}

std::function<void(const PatchTable&)> class_count_check(const ParameterValues& values, const std::string& input) {
  if (!values.spec().find("max-classes")) return {};
  const long long max_classes = values.integer("max-classes");
  const std::string spelled = values.spelled("max-classes");
  return [input, max_classes, spelled](const PatchTable& records) {
    const size_t classes = class_codes(records).size();
    if (classes > static_cast<size_t>(max_classes))
      throw Error(ErrorKind::BadInput, "'" + input + "' has " + std::to_string(classes) + " classes, more than " +
                                           spelled + " " + std::to_string(max_classes) + " (is it a categorical raster?)");
  };
}

void note_measurement(const GdalClassRaster& source, const std::string& input, const RunContext& context) {
  // Notes on stderr stay with -q, which silences only the progress.
  if (source.geographic())
    context.notify("note: '" + input + "' has a geographic CRS; areas and lengths are measured on the " +
                   source.ellipsoid() + " ellipsoid (PROJ geodesics), distances in the local plane of each pair");
  else if (!source.has_crs())
    context.notify("warning: '" + input + "' has no CRS; map units are taken as metres");
}

}  // namespace lsm::ops
