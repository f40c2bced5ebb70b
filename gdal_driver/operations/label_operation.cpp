// label and patchmetric: the patch-ID raster (lsm label INPUT OUTPUT.tif,
// LSM:label) and a FRAGSTATS patch metric of every cell (lsm patchmetric,
// LSM:patchmetric), both streamed strip by strip through the engine: the
// second labeling writes each strip as it comes.
#include <gdal_priv.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include <optional>

#include "common_parameters.h"
#include "class_pair_table.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "geotiff_output.h"
#include "landscape_border.h"
#include "landscape_job.h"
#include "landscape_parameters.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "operations.h"
#include "patch_records.h"
#include "patch_scan.h"
#include "row_range_scan.h"
#include "tile_scheduler.h"

namespace lsm::ops {

namespace {

// The shape of a raster with one value per cell of the class raster (the
// patch IDs, a patch metric): the source's size, blocks and georeferencing.
// Opening the source checks it now, before the driver's dataset exists.
RasterShape per_cell_shape(const ParameterValues& v, CellType type, double nodata, std::string band_name) {
  const int band = static_cast<int>(v.integer("band"));
  GdalClassRaster source(v.text("input"), band);
  const RasterInfo info = source.info();
  RasterShape shape;
  shape.width = info.width;
  shape.height = info.height;
  shape.type = type;
  shape.nodata = nodata;
  shape.georef = georeference_of(source.dataset());
  source.dataset()->GetRasterBand(band)->GetBlockSize(&shape.block_width, &shape.block_height);
  shape.band_names = {std::move(band_name)};
  return shape;
}

std::string upper(std::string s);

OperationSpec label_spec() {
  OperationSpec s;
  s.name = "label";
  s.summary = "patch-ID raster (IDs = PIDs of the patch table)";
  s.title = "Patch IDs";
  s.category = "Landscape metrics";
  s.manual = "metrics.md";
  s.passes = 2;
  s.usage = "usage: lsm label INPUT OUTPUT.tif [options]";
  s.parameters = joined(joined({input_raster("input", "input raster (any format GDAL reads)").needed().at_position(1),
                                output(ParameterRole::OutputRaster, "output", "output GeoTIFF of patch IDs").drawn_as(RasterStyle::Identifiers).titled("Patch IDs")
                                    .needed()
                                    .at_position(2)
                                    .only(kCommandLine | kService)},  // the service names it itself
                               patch_parameters()),
                        raster_output_parameters());
  s.serving.shape_before_run = [](const ParameterValues& v) { return per_cell_shape(v, CellType::UInt32, 0.0, "patch_id"); };
  return s;
}

void run_label(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  ScanOptions scan = scan_options(v, context);
  scan.keep_patch_ids = true;
  GdalClassRaster source(v.text("input"), static_cast<int>(v.integer("band")));
  use_given_nodata(source, v);
  auto labeler = make_labeler(parse_backend(v.text("backend")));
  const RasterInfo info = source.info();
  plan_tiles(info, scan.tile_width, scan.tile_height, scan.max_strip_cells);  // a raster too wide: refused before its output exists
  GeoTiffOutput out(v.text("output"), format, info.width, info.height, GDT_UInt32, georeference_of(source.dataset()), 0.0);
  const ProgressFn progress = context.checked_progress();
  // FRAGSTATS' landscape border (negative codes) is outside the landscape:
  // no patch, ID 0, as in lsm metrics' patch table.
  BorderAsNodataSource landscape(source);
  const ProgressFn scan_progress = scaled_progress(progress, 0.0, 0.5);
  const PatchTable table =
      context.ranks  // under mpirun: the first pass in row ranges, one per rank
          ? scan_in_ranks(*context.ranks, scan_recipe(v, v.text("input"), parse_backend(v.text("backend"))), *labeler,
                          scan, scan_progress)
          : scan_patches(landscape, *labeler, scan, scan_progress);
  GeoTiffLabelSink sink(out);
  write_patch_ids(landscape, *labeler, table, sink, scaled_progress(progress, 0.5, 1.0));
  out.commit();
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

OperationSpec patchmetric_spec() {
  OperationSpec s;
  s.name = "patchmetric";
  s.summary = "a FRAGSTATS patch metric of every cell (Float64, NaN = nodata)";
  s.title = "Patch metric map";
  s.category = "Landscape metrics";
  s.manual = "metrics.md";
  s.passes = 2;
  s.usage = "usage: lsm patchmetric INPUT OUTPUT.tif --metric AREA [options]";
  const std::vector<std::string> names = patch_metric_columns();  // the catalogue's patch metrics
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  s.parameters = joined(
      joined({input_raster("input", "input raster (any format GDAL reads)").needed().at_position(1),
              output(ParameterRole::OutputRaster, "output", "output GeoTIFF: the metric of each cell's patch").drawn_as(RasterStyle::Continuous).titled("Patch metric")
                  .needed()
                  .at_position(2)
                  .only(kCommandLine | kService),  // the service names it itself
              text("metric", "the FRAGSTATS patch metric of every cell, in its FRAGSTATS unit")
                  .one_of(names)
                  .labelled(metric_choice_labels(names))
                  .needed()
                  .checked_by([names, list](const std::string& value) {
                    if (std::find(names.begin(), names.end(), upper(value)) == names.end())
                      throw Error(ErrorKind::BadInput, "'" + value + "' is not a patch metric (expected one of " + list + ")");
                  }),
              edge_depth_parameter(), edge_distance_parameter(), contrast_table_parameter(),
              edge_depth_table_parameter(), search_radius_parameter(), similarity_table_parameter()},
             patch_parameters()),
      raster_output_parameters());
  s.serving.shape_before_run = [](const ParameterValues& v) {
    return per_cell_shape(v, CellType::Float64, std::numeric_limits<double>::quiet_NaN(), upper(v.text("metric")));
  };
  return s;
}

// Writes each relabeled strip as the metric of its cells' patches (by PID,
// filled from the patch table before the first strip comes).
class PatchValueSink final : public LabelRasterSink {
 public:
  PatchValueSink(GeoTiffOutput& out, const std::optional<PagedArray<double>>& by_pid) : out_(out), by_pid_(by_pid) {}
  void write(const Window& w, const uint32_t* ids) override {
    if (!by_pid_) throw Error(ErrorKind::Internal, "patch IDs before the patch table");
    const PagedArray<double>& by_pid = *by_pid_;
    strip_.resize(static_cast<size_t>(w.width * w.height));
    for (size_t i = 0; i < strip_.size(); ++i)
      strip_[i] = ids[i] && ids[i] < by_pid.size() ? by_pid[ids[i]] : std::numeric_limits<double>::quiet_NaN();
    out_.write(w, strip_.data(), GDT_Float64);
    release_paged_memory();
  }

 private:
  GeoTiffOutput& out_;
  const std::optional<PagedArray<double>>& by_pid_;
  std::vector<double> strip_;
};

void run_patchmetric(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  const std::string metric = upper(v.text("metric"));
  LandscapeJobOptions job = landscape_job_options(v, context);
  // Only what the metric needs: AREA, PERIM, PARA, SHAPE and FRAC come from
  // the scan's records alone, without the second pass.
  job.selection = MetricSelection(metric);
  if (v.given("contrast-table"))
    job.contrast = std::make_shared<const ClassPairTable>(read_contrast_table(v.text("contrast-table")));
  if (metric == "ECON" && !job.contrast)  // else a raster of N/A: refused before anything is read or written
    throw Error(ErrorKind::BadInput, "ECON needs FRAGSTATS' edge contrast weights (--contrast-table FILE.fce)");
  set_edge_depth_table(v, job);
  set_proximity_inputs(v, job);
  GdalClassRaster source(v.text("input"), static_cast<int>(v.integer("band")));
  use_given_nodata(source, v);
  source.require_measurable_cells();
  const RasterInfo info = source.info();
  plan_tiles(info, job.tile_width, job.tile_height, job.budget.strip_cells());  // before the output exists
  GeoTiffOutput out(v.text("output"), format, info.width, info.height, GDT_Float64, georeference_of(source.dataset()),
                    std::numeric_limits<double>::quiet_NaN());
  out.describe_band(1, metric);
  // The metric by PID (8 bytes a patch, paged beyond the budget's share).
  std::optional<PagedArray<double>> by_pid;
  job.after_scan = [&](const PatchTable& records) {
    by_pid.emplace(patch_count(records) + 1, PagedPolicy{job.budget.share(BudgetShare::PatchArray), job.budget.temp_dir});
  };
  LandscapeSinks sinks;
  sinks.patch_rows = [&](const MetricTable& block) {
    const size_t column =
        static_cast<size_t>(std::find(block.columns.begin(), block.columns.end(), metric) - block.columns.begin());
    if (column == block.columns.size()) throw Error(ErrorKind::Internal, "the patch table has no column " + metric);
    for (const MetricTable::Row& r : block.rows)
      if (r.pid < by_pid->size()) (*by_pid)[r.pid] = r.values[column];
  };
  PatchValueSink values(out, by_pid);  // the IDs come last, when every value is in
  sinks.patch_ids = &values;
  run_landscape_job(source, job, sinks, context.checked_progress());
  out.commit();
}

}  // namespace

Operation label_operation() { return {label_spec(), run_label}; }
Operation patchmetric_operation() { return {patchmetric_spec(), run_patchmetric}; }

}  // namespace lsm::ops
