#pragma once
// What the operations that run the landscape job (metrics, patchmetric,
// patches) share: their values as job options, the class-count limit, and
// the note on how a raster's cells are measured.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "landscape_job.h"
#include "operation_spec.h"

namespace lsm {
class GdalClassRaster;
struct ClassDescriptors;
}

namespace lsm::ops {

/// background, boundary-edge and max-richness: what is inside the landscape
/// and how its edge and richness count (FRAGSTATS' analysis parameters), for
/// every operation that reports class and landscape metrics.
std::vector<ParameterSpec> landscape_definition_parameters();

/// Sets the analysis values of landscape_definition_parameters() in a job's
/// options (the landscape, window or zonal job's): background (when given),
/// the boundary edge share, the maximum richness (when above 0).
template <class JobOptions>
void set_landscape_definition(const ParameterValues& values, JobOptions& job) {
  if (values.given("background")) job.background = {static_cast<int32_t>(values.integer("background"))};
  job.boundary_edge = values.number("boundary-edge");
  if (values.integer("max-richness") > 0) job.max_richness = static_cast<int>(values.integer("max-richness"));
}

/// metrics: FRAGSTATS acronyms of the catalogue (metric_catalogue.h) to
/// report, comma-separated, labelled with their names and units and listed
/// by --list-metrics; default all.
ParameterSpec metrics_parameter();
/// edge-depth: the core metrics' edge depth in cells (1..1000, default 1).
ParameterSpec edge_depth_parameter();
/// edge-distance: the same as a distance in map units, FRAGSTATS' way (m);
/// the landscape job turns it into cells (edge_depth_cells()). Declare it
/// beside edge-depth: landscape_job_options() refuses the two together
/// unless the depth is its default (which dialogs send).
ParameterSpec edge_distance_parameter();
/// core-areas: how disjunct core areas are counted (fragstats, all).
ParameterSpec core_areas_parameter();
/// The edge depth of edge-depth and edge-distance, where declared, in a
/// landscape job's options (edge_depth, edge_distance): both given, the
/// depth not its default, is lsm::Error(BadInput) ("exclude each other").
void set_edge_depth(const ParameterValues& values, LandscapeJobOptions& job);
/// What the tables of a landscape are computed with: metrics, edge-depth,
/// edge-distance, gyrate, core-areas, background, boundary-edge,
/// max-richness, contrast-table, search-radius, similarity-table, threshold-distance,
/// max-classes (in that order). `metrics` and the in-memory landscape
/// (landscape_tables.h) declare them alike.
std::vector<ParameterSpec> table_analysis_parameters();
/// The inputs of the metrics that take a FRAGSTATS table or distance:
/// contrast-table, edge-depth-table, search-radius, similarity-table,
/// threshold-distance.
std::vector<ParameterSpec> auxiliary_input_parameters();
/// Sets job.contrast, job.threshold_distance, job.search_radius and
/// job.similarity from auxiliary_input_parameters()' values (class names of
/// CLASS_LIST_LITERAL looked up in `class_names`); throws
/// lsm::Error(BadInput) for a bad table or distance, or when job.selection
/// names a metric without its input (CWED, TECI, ECON without the contrast
/// table; CONNECT without the threshold distance; set_proximity_inputs()),
/// and for an edge depth file with --edge-distance or a depth other than 1
/// (job.edge_depth_table; set_edge_depth() must have run).
void set_auxiliary_inputs(const ParameterValues& values, LandscapeJobOptions& job,
                          const std::map<int32_t, std::string>& class_names = {});
/// contrast-table: a FRAGSTATS edge contrast weight file (.fce) for CWED,
/// TECI and ECON; a path of the machine that runs it (trusted).
ParameterSpec contrast_table_parameter();
/// edge-depth-table: a FRAGSTATS edge depth file (.fdt) for the core
/// metrics; a path of the machine that runs it (trusted).
ParameterSpec edge_depth_table_parameter();
/// Sets job.edge_depth_table from --edge-depth-table (CLASS_LIST_LITERAL
/// names looked up in `class_names`); throws lsm::Error(BadInput) for a bad
/// file, or with --edge-distance or a depth other than 1 (set_edge_depth()
/// must have run).
void set_edge_depth_table(const ParameterValues& values, LandscapeJobOptions& job,
                          const std::map<int32_t, std::string>& class_names = {});
/// --threshold-distance (m), CONNECT's.
ParameterSpec threshold_distance_parameter();
/// Its value: none when not given; throws lsm::Error(BadInput) for one <= 0.
std::optional<double> threshold_distance(const ParameterValues& values);
/// --search-radius (m), PROX's and SIMI's.
ParameterSpec search_radius_parameter();
/// similarity-table: a FRAGSTATS similarity weight file (.fsq) for SIMI; a
/// path of the machine that runs it (trusted).
ParameterSpec similarity_table_parameter();
/// Sets job.search_radius and job.similarity from --search-radius and
/// --similarity-table (CLASS_LIST_LITERAL names looked up in
/// `class_names`); throws lsm::Error(BadInput) for a radius <= 0, a bad
/// table (read_similarity_table()), or when job.selection names PROX or
/// SIMI without the radius, or SIMI without the table.
void set_proximity_inputs(const ParameterValues& values, LandscapeJobOptions& job,
                          const std::map<int32_t, std::string>& class_names = {});
/// class-descriptors: a FRAGSTATS class descriptor file (names, disabled and
/// background classes); a path of the machine that runs it (trusted).
ParameterSpec class_descriptors_parameter();
/// The landscape job's options of table_analysis_parameters()' and
/// patch_parameters()' values: the selection, the background (--background,
/// else the descriptor file's), the disabled classes, the GYRATE and core
/// area rules, and --max-classes checked after the scan of `input` (the name
/// its message gives the raster).
LandscapeJobOptions table_job_options(const ParameterValues& values, const RunContext& context,
                                      const ClassDescriptors& descriptors, const std::string& input);
/// Fails on `output` unless it is a prefix of file names (not empty, not a
/// folder): "give one such as DIR/run1 (tables run1.class.csv ...)".
void require_table_prefix(const ParameterValues& values);

/// The job options of patch_parameters()' values (neighbour rule, tile size,
/// backend, memory-limit, temp-dir) and edge-depth or edge-distance where
/// declared (both, the depth not its default: lsm::Error(BadInput)); the
/// metric choices (selection, background ...) are the caller's.
LandscapeJobOptions landscape_job_options(const ParameterValues& values, const RunContext& context);

/// Applies --nodata (where given) to `source`: that value's cells are outside
/// the landscape, whatever the band's own nodata value.
void use_given_nodata(GdalClassRaster& source, const ParameterValues& values);

/// The check of max-classes after the scan (where declared; else none):
/// lsm::Error(BadInput) "'INPUT' has N classes, more than --max-classes M (is
/// it a categorical raster?)".
std::function<void(const PatchTable&)> class_count_check(const ParameterValues& values, const std::string& input);

/// The note that `source` is measured on its CRS's ellipsoid, or the warning
/// that it has no CRS (map units taken as metres), through context.notify().
void note_measurement(const GdalClassRaster& source, const std::string& input, const RunContext& context);

}  // namespace lsm::ops
