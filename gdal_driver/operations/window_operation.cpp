// window: moving-window metric rasters (lsm window INPUT OUTPUT.tif
// --metrics SHDI,PLAND --window-size 500): for every focal cell, FRAGSTATS'
// class and landscape metrics of the window around it (the window job,
// metrics/jobs/window_job.h), one Float32 band per metric and class, written
// row by row as the window slides.
#include <gdal_priv.h>

#include <algorithm>
#include <map>
#include <memory>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "common_parameters.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "fragstats_core_areas.h"
#include "geotiff_output.h"
#include "landscape_parameters.h"
#include "metric_catalogue.h"
#include "operations.h"
#include "class_pair_table.h"
#include "window_job.h"

namespace lsm::ops {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }), item.end());
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// Every metric a window computes at some level, in FRAGSTATS' order (class first).
std::vector<std::string> window_metrics() {
  std::vector<std::string> all = window_class_metrics();
  for (const std::string& m : window_landscape_metrics())
    if (std::find(all.begin(), all.end(), m) == all.end()) all.push_back(m);
  return all;
}

// A dialog's label and listing details of each window metric: a
// distribution statistic (AREA_MN) as its patch metric's with the statistic
// named ("Patch area (ha), mean").
std::pair<std::vector<std::string>, std::vector<std::string>> window_metric_labels(const std::vector<std::string>& metrics) {
  static const std::map<std::string, std::string> statistic_names = {
      {"MN", "mean"}, {"AM", "area-weighted mean"}, {"MD", "median"},
      {"RA", "range"}, {"SD", "standard deviation"}, {"CV", "coefficient of variation (%)"}};
  std::vector<std::string> labels, details;
  for (const std::string& m : metrics) {
    const size_t u = m.rfind('_');
    const auto stat = u == std::string::npos ? statistic_names.end() : statistic_names.find(m.substr(u + 1));
    if (stat == statistic_names.end() || find_metric(m)) {
      labels.push_back(metric_choice_labels({m}).front());
      details.push_back(metric_choice_details({m}).front());
      continue;
    }
    const std::string base = m.substr(0, u);
    labels.push_back(metric_choice_labels({base}).front() + ", " + stat->second);
    const std::string base_details = metric_choice_details({base}).front();
    details.push_back("class, landscape" + base_details.substr(base_details.find(" · ")));
  }
  return {labels, details};
}

// The metrics asked for, at the levels asked for: each metric at every one
// of those levels where a window computes it. Throws lsm::Error(BadInput)
// through the job's own checks for a metric at none of them.
void split_by_level(const ParameterValues& v, WindowJobOptions& job) {
  const std::vector<std::string> levels = split_list(v.text("level"));
  const bool cls = std::find(levels.begin(), levels.end(), "class") != levels.end();
  const bool land = std::find(levels.begin(), levels.end(), "land") != levels.end();
  const auto& class_metrics = window_class_metrics();
  const auto& land_metrics = window_landscape_metrics();
  for (const std::string& typed : split_list(v.text("metrics"))) {
    const std::string m = upper(typed);
    const bool at_class = cls && std::find(class_metrics.begin(), class_metrics.end(), m) != class_metrics.end();
    const bool at_land = land && std::find(land_metrics.begin(), land_metrics.end(), m) != land_metrics.end();
    if (at_class) job.class_metrics.push_back(m);
    if (at_land) job.landscape_metrics.push_back(m);
    // (check_metric_list() has refused what windows do not compute at all.)
    if (!at_class && !at_land)
      v.fail("metrics", m + " is not a " + (cls ? "class" : "landscape") + " metric, and --level is " + v.text("level"));
  }
}

// Each metric of the list must be one a window computes at some level; the
// job's own message says why one is not (unknown, or not in windows yet).
void check_metric_list(const std::string& text) {
  const std::vector<std::string> all = window_metrics();
  const std::vector<std::string> items = split_list(text);
  if (items.empty()) throw Error(ErrorKind::BadInput, "lists no metric");
  for (const std::string& typed : items) {
    const std::string m = upper(typed);
    if (std::find(all.begin(), all.end(), m) != all.end()) continue;
    const MetricInfo* info = find_metric(m);
    check_window_metric(m, info && !(info->levels & kLandscapeLevel) ? kClassLevel : kLandscapeLevel);
  }
}

void check_levels(const std::string& text) {
  const std::vector<std::string> levels = split_list(text);
  if (levels.empty()) throw Error(ErrorKind::BadInput, "lists no level (class, land)");
  for (const std::string& l : levels)
    if (l != "class" && l != "land") throw Error(ErrorKind::BadInput, "'" + l + "' is not a level (class, land)");
}

OperationSpec window_spec() {
  OperationSpec s;
  s.name = "window";
  s.summary = "moving-window metric rasters: FRAGSTATS class and landscape metrics of the window around every cell";
  s.title = "Moving-window metrics";
  s.category = "Landscape metrics";
  s.manual = "WINDOW.md";
  s.passes = 2;
  s.usage = "usage: lsm window INPUT OUTPUT.tif --metrics SHDI,PLAND (--window-size METRES | --window-cells N) [options]";
  // The driver runs it when the dataset opens (its bands depend on the
  // raster's classes, known after a read) and serves the result's blocks.
  const std::vector<std::string> metrics = window_metrics();
  const auto [metric_labels, metric_details] = window_metric_labels(metrics);
  const std::vector<ParameterSpec> patch = patch_parameters();  // band, nodata and the neighbour rule, as declared there
  auto from_patch = [&patch](const std::string& name) {
    for (const ParameterSpec& p : patch)
      if (p.name == name) return p;
    throw Error(ErrorKind::Internal, "no patch parameter " + name);
  };
  s.parameters = joined(joined(joined(
      {
          input_raster("input", "input raster (any format GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputRaster, "output",
                 "output GeoTIFF: one Float32 band per metric (per class for class metrics), NaN where undefined")
              .drawn_as(RasterStyle::Continuous)
              .titled("Window metrics")
              .needed()
              .at_position(2)
              .only(kCommandLine | kService),
          text("metrics", "FRAGSTATS acronyms, comma-separated: class and landscape metrics (--list-metrics lists "
                          "those a window computes)")
              .subset_of(metrics)
              .labelled(metric_labels)
              .detailed(metric_details)
              .checked_by(check_metric_list)
              .needed(),
          text("level", "levels: any of class,land; each metric at every one where it exists")
              .with_default("class,land")
              .checked_by(check_levels),
          number("window-size", "side of a square window or radius of a round one, in map units")
              .at_least(1e-9)
              .at_most(1e12)
              .in("m"),
          integer("window-cells", "the same in cells: a square's side (odd) or a circle's radius")
              .at_least(1)
              .at_most(1 << 20)
              .in("cells"),
          text("window-shape", "window shape")
              .one_of_labelled({{"square", "a square of cells"}, {"circle", "the cells whose centres lie within the radius"}})
              .with_default("square"),
          text("window-edge", "focal cells whose window leaves the raster")
              .one_of_labelled({{"clip", "the window's part inside the raster is the landscape"},
                                {"skip", "no value (NaN): only whole windows are measured"}})
              .with_default("clip"),
          text("class-codes", "class codes of the class bands, comma-separated (default: every class but background)")
              .checked_by([](const std::string& text) {
                for (const std::string& c : split_list(text)) {
                  char* end = nullptr;
                  const long long code = std::strtoll(c.c_str(), &end, 10);
                  if (*end || code < -2147483647LL || code > 2147483647LL)
                    throw Error(ErrorKind::BadInput, "'" + c + "' is not a class code");
                }
              }),
      },
      landscape_definition_parameters()), {
          edge_depth_parameter(),
          edge_distance_parameter(),
          core_areas_parameter(),
          edge_depth_table_parameter(),
          contrast_table_parameter(),
          threshold_distance_parameter(),
          search_radius_parameter(),
          similarity_table_parameter(),
          from_patch("band"),
          from_patch("nodata"),
          from_patch("neighbors"),
          memory_limit_parameter("the band of rows a window covers and one row of values"),
          backend_parameter(),
          quiet_parameter(),
      }),
      raster_output_parameters());
  s.rules = {one_of_the_two("window-size", "window-cells")};
  return s;
}

// The job's rows into the output, as Float32 (NaN where undefined).
class WindowRaster final : public WindowRowSink {
 public:
  WindowRaster(GeoTiffOutput& out, int64_t width) : out_(out), width_(width) {}
  void begin(const WindowPlan& plan) override {
    bands_ = plan.bands.size();
    for (size_t b = 0; b < bands_; ++b) out_.describe_band(static_cast<int>(b + 1), plan.bands[b].description());
  }
  void write_row(int64_t y, const double* values) override {
    row_.resize(static_cast<size_t>(width_) * bands_);
    for (size_t i = 0; i < row_.size(); ++i) row_[i] = static_cast<float>(values[i]);
    out_.write_interleaved(Window{0, y, width_, 1}, row_.data());
  }

 private:
  GeoTiffOutput& out_;
  int64_t width_;
  size_t bands_ = 0;
  std::vector<float> row_;
};

// The job's options from the values, the window's shape in the source's
// cells (`info`).
WindowJobOptions window_job_options(const ParameterValues& v, const RunContext& context, const RasterInfo& info) {
  WindowJobOptions job;
  split_by_level(v, job);
  set_landscape_definition(v, job);
  for (const std::string& c : split_list(v.text("class-codes"))) job.classes.push_back(static_cast<int32_t>(std::stoll(c)));
  job.edge = v.text("window-edge") == "skip" ? WindowEdge::Skip : WindowEdge::Clip;
  job.rule = v.integer("neighbors") == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
  job.memory_limit = run_budget(v, context).memory_bytes;
  job.backend = parse_backend(v.text("backend"));
  // The edge depth, the tables and the distances as the landscape job takes
  // them (the window job checks each against the metrics asked for).
  LandscapeJobOptions landscape;
  set_edge_depth(v, landscape);
  job.edge_depth = edge_depth_cells(info, landscape);
  set_auxiliary_inputs(v, landscape);
  job.edge_depth_table = landscape.edge_depth_table;
  job.contrast = landscape.contrast;
  job.threshold_distance = landscape.threshold_distance;
  job.search_radius = landscape.search_radius;
  job.similarity = landscape.similarity;
  job.core_areas = parse_core_area_rule(v.text("core-areas"));
  const bool circle = v.text("window-shape") == "circle";
  if (v.given("window-cells")) {
    const int64_t n = v.integer("window-cells");
    if (!circle && n % 2 == 0) v.fail("window-cells", "must be odd for a square window (the focal cell in its middle)");
    job.shape = circle ? circular_window(static_cast<double>(n), 1, 1) : square_window(n / 2);
  } else {
    const double size = v.number("window-size");
    if (circle) {
      job.shape = circular_window(size, info.cell_width, info.cell_height);
    } else {
      // The odd number of cells nearest the side asked for (FRAGSTATS' square of that side).
      const int64_t half = static_cast<int64_t>(std::llround(size / info.cell_width / 2 - 0.5));
      // FRAGSTATS takes cells whose width and height differ by under 0.1 % as square.
      if (std::fabs(info.cell_width - info.cell_height) > 1e-3 * info.cell_width)
        v.fail("window-size", "needs square cells for a square window (the cells are " + std::to_string(info.cell_width) +
                                  " x " + std::to_string(info.cell_height) + "; give the window in cells, or a circle)");
      job.shape = square_window(std::max<int64_t>(0, half));
    }
  }
  return job;
}

// The GDAL driver's LSM:window: the classes are read when the dataset opens
// (they decide the bands), then each strip of rows is computed when a block
// of it is first read, from its rows and the window's reach above and below
// (run_window_rows), every band at once; the last strip is kept.
class WindowStream final : public StreamedRaster {
 public:
  explicit WindowStream(const ParameterValues& v) : source_(v.text("input"), static_cast<int>(v.integer("band"))) {
    use_given_nodata(source_, v);
    source_.require_measurable_cells();
    const RasterInfo info = source_.info();
    job_ = window_job_options(v, RunContext{}, info);
    plan_ = plan_window_job(source_, job_);
    shape.width = info.width;
    shape.height = info.height;
    shape.bands = static_cast<int>(plan_.bands.size());
    shape.type = CellType::Float32;
    shape.nodata = std::numeric_limits<double>::quiet_NaN();
    shape.georef = georeference_of(source_.dataset());
    for (const WindowBand& b : plan_.bands) shape.band_names.push_back(b.description());
    // A strip holds every band's values of its rows (4 bytes each): at most
    // a quarter of the memory limit, and at most 256 rows.
    const double row_bytes = 4.0 * static_cast<double>(info.width) * static_cast<double>(plan_.bands.size());
    shape.block_height = static_cast<int>(std::clamp(static_cast<double>(job_.memory_limit) / 4 / row_bytes, 1.0, 256.0));
    shape.block_width = static_cast<int>(std::min<int64_t>(info.width, 256));
  }

  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    const int64_t width = shape.width, bw = shape.block_width, bh = shape.block_height;
    const int64_t y0 = by * bh, rows = std::min<int64_t>(bh, shape.height - y0);
    if (by != strip_) {
      StripSink sink(planes_, width, rows, y0, plan_.bands.size());
      run_window_rows(source_, job_, plan_, y0, rows, sink);
      strip_ = by;
    }
    const float* plane = planes_.data() + static_cast<size_t>(band - 1) * static_cast<size_t>(rows * width);
    const int64_t x0 = bx * bw, w = std::min<int64_t>(bw, width - x0);
    for (int64_t r = 0; r < rows; ++r)
      std::copy(plane + r * width + x0, plane + r * width + x0 + w, static_cast<float*>(out) + r * bw);
  }

 private:
  // The strip's rows into one plane per band.
  class StripSink final : public WindowRowSink {
   public:
    StripSink(std::vector<float>& planes, int64_t width, int64_t rows, int64_t first_row, size_t bands)
        : planes_(planes), width_(width), rows_(rows), first_row_(first_row), bands_(bands) {
      planes_.assign(bands * static_cast<size_t>(width * rows), std::numeric_limits<float>::quiet_NaN());
    }
    void begin(const WindowPlan&) override {}
    void write_row(int64_t y, const double* values) override {
      const int64_t r = y - first_row_;
      for (size_t b = 0; b < bands_; ++b) {
        float* row = planes_.data() + b * static_cast<size_t>(rows_ * width_) + static_cast<size_t>(r * width_);
        for (int64_t x = 0; x < width_; ++x) row[x] = static_cast<float>(values[static_cast<size_t>(x) * bands_ + b]);
      }
    }

   private:
    std::vector<float>& planes_;
    int64_t width_, rows_, first_row_;
    size_t bands_;
  };

  GdalClassRaster source_;
  WindowJobOptions job_;
  WindowPlan plan_;
  std::vector<float> planes_;
  int64_t strip_ = -1;
};

void run_window(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  GdalClassRaster source(v.text("input"), static_cast<int>(v.integer("band")));
  use_given_nodata(source, v);
  source.require_measurable_cells();
  const RasterInfo info = source.info();
  const WindowJobOptions job = window_job_options(v, context, info);
  const bool circle = v.text("window-shape") == "circle";
  const std::string window_note = "the window holds " + std::to_string(job.shape.cells()) + " cells (" +
                                  std::to_string(2 * job.shape.half_width() + 1) + " x " +
                                  std::to_string(2 * job.shape.reach() + 1) + (circle ? ", round" : "") + ")";
  // The band count is known once the classes are read: the output is made then.
  class OutputOnceBandsKnown final : public WindowRowSink {
   public:
    OutputOnceBandsKnown(const ParameterValues& v, const RasterFormat& format, GdalClassRaster& source,
                         const RunContext& context, std::string note)
        : v_(v), format_(format), source_(source), context_(context), note_(std::move(note)) {}
    void begin(const WindowPlan& plan) override {
      context_.notify(note_ + "; " + std::to_string(plan.bands.size()) + (plan.bands.size() == 1 ? " band" : " bands"));
      const RasterInfo info = source_.info();
      file_.emplace(v_.text("output"), format_, info.width, info.height, GDT_Float32, georeference_of(source_.dataset()),
                    std::numeric_limits<double>::quiet_NaN(), static_cast<int>(plan.bands.size()));
      rows_.emplace(*file_, info.width);
      rows_->begin(plan);
    }
    void write_row(int64_t y, const double* values) override { rows_->write_row(y, values); }
    void commit() { file_->commit(); }

   private:
    const ParameterValues& v_;
    const RasterFormat& format_;
    GdalClassRaster& source_;
    const RunContext& context_;
    std::string note_;
    std::optional<GeoTiffOutput> file_;
    std::optional<WindowRaster> rows_;
  } sink(v, format, source, context, window_note);
  run_window_job(source, job, sink, context.checked_progress());
  sink.commit();
}

}  // namespace

Operation window_operation() {
  Operation op{window_spec(), run_window};
  // The driver serves it strip by strip (declared here, below the stream's class).
  op.spec.serving.streamed = [](const ParameterValues& v) -> std::unique_ptr<StreamedRaster> {
    return std::make_unique<WindowStream>(v);
  };
  return op;
}

}  // namespace lsm::ops
