#include "landscape_tables.h"

#include <memory>

#include "class_descriptors.h"
#include "common_parameters.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "landscape_job.h"
#include "landscape_parameters.h"
#include "memory_raster.h"

namespace lsm::ops {

namespace {

OperationSpec make_spec() {
  OperationSpec s;
  s.name = "landscape";
  s.summary = "FRAGSTATS patch, class and landscape tables of one raster, in memory";
  s.title = "Landscape";
  s.category = "Landscape metrics";
  s.manual = "PYTHON.md";
  s.usage = "lsm.Landscape(raster, ...)";
  s.front_ends = 0;  // no front end lists it as an operation: it writes nothing
  s.parameters = joined(
      joined({input_raster("input", "input raster (any format GDAL reads)").at_position(1)}, table_analysis_parameters()),
      {class_descriptors_parameter()});
  for (ParameterSpec p : patch_parameters())
    if (p.name != "quiet") s.parameters.push_back(p);  // progress is the front end's
  return s;
}

}  // namespace

const OperationSpec& landscape_tables_spec() {
  static const OperationSpec spec = make_spec();
  return spec;
}

LandscapeTables landscape_tables(const ParameterValues& v, const RunContext& context,
                                 const std::optional<ArrayRaster>& array, bool patch_ids) {
  v.check_required();  // the declaration's rules (edge-depth or edge-distance)
  const ClassDescriptors descriptors =
      v.given("class-descriptors") ? read_class_descriptors(v.text("class-descriptors")) : ClassDescriptors{};
  const std::string input = array ? std::string("the array") : v.text("input");
  if (!array && input.empty()) v.fail("input", "is missing: give a raster's path or an array");
  LandscapeJobOptions job = table_job_options(v, context, descriptors, input);
  std::unique_ptr<ClassRasterSource> source;
  LandscapeTables out;
  if (array) {
    source = std::make_unique<ArrayViewClassRaster>(array->cells, array->type, array->width, array->height,
                                                    array->row_stride, array->cell_width, array->cell_height,
                                                    v.optional_number("nodata"));
    out.class_names = descriptors.names;
  } else {
    auto raster = std::make_unique<GdalClassRaster>(input, static_cast<int>(v.integer("band")));
    use_given_nodata(*raster, v);
    raster->require_measurable_cells();
    note_measurement(*raster, input, context);
    out.class_names = descriptors.names.empty() ? raster->class_names() : descriptors.names;
    source = std::move(raster);
  }
  const RasterInfo info = source->info();
  out.width = info.width;
  out.height = info.height;
  std::optional<MemoryLabelRaster> ids;
  LandscapeSinks sinks;  // no patch_rows sink: the patch table stays in the results
  if (patch_ids) sinks.patch_ids = &ids.emplace(info.width, info.height);
  LandscapeResults results = run_landscape_job(*source, job, sinks, context.checked_progress());
  out.metrics = std::move(results.metrics);
  out.has_adjacency = results.rows.second_pass;
  if (out.has_adjacency) out.adjacency = std::move(results.rows.adjacency);
  if (ids) out.patch_ids = ids->take_labels();
  return out;
}

}  // namespace lsm::ops
