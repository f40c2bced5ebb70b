#include "zonal_job.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "patch_records.h"

namespace lsm {

namespace {

// The cells [first, last) whose centres c + 0.5 lie in [low, high], along one
// axis of `size` cells, cut by the raster.
std::pair<int64_t, int64_t> centres_within(double low, double high, int64_t size) {
  const double first = std::ceil(low - 0.5), last = std::floor(high - 0.5) + 1;
  const auto clamp = [size](double v) { return static_cast<int64_t>(std::clamp(v, 0.0, double(size))); };
  if (!(first < last)) return {0, 0};
  return {clamp(first), std::max(clamp(first), clamp(last))};
}

}  // namespace

GridZones::GridZones(const RasterInfo& raster, int64_t tile_width, int64_t tile_height) {
  if (tile_width < 1 || tile_height < 1)
    throw Error(ErrorKind::BadInput, "a grid tile must be at least 1 x 1 cells (got " + std::to_string(tile_width) +
                                         " x " + std::to_string(tile_height) + ")");
  for (int64_t row = 0, y0 = 0; y0 < raster.height; ++row, y0 += tile_height)
    for (int64_t col = 0, x0 = 0; x0 < raster.width; ++col, x0 += tile_width)
      zones_.push_back({std::to_string(row) + "_" + std::to_string(col),
                        {x0, y0, std::min(tile_width, raster.width - x0), std::min(tile_height, raster.height - y0)}});
}

void GridZones::mask(size_t index, int64_t, int64_t rows, uint8_t* inside) {
  std::fill(inside, inside + rows * zones_.at(index).window.width, uint8_t{1});
}

BufferZones::BufferZones(const RasterInfo& raster, std::vector<CellPoint> points, double radius_m, BufferShape shape)
    : points_(std::move(points)), radius_(radius_m), cell_width_(raster.cell_width),
      cell_height_(raster.cell_height), shape_(shape) {
  if (raster.geodesic)
    throw Error(ErrorKind::BadInput, "buffers in metres need a projected raster; this one is in degrees (reproject it, "
                                     "e.g. gdalwarp -t_srs with a local projected CRS)");
  if (!(radius_m > 0) || !std::isfinite(radius_m))
    throw Error(ErrorKind::BadInput, "the buffer radius must be a positive number of metres");
  for (const CellPoint& p : points_) {
    // Radius in cells along each axis; the box of cells whose centres may be inside.
    const double rx = radius_ / cell_width_, ry = radius_ / cell_height_;
    const auto [x0, x1] = centres_within(p.x - rx, p.x + rx, raster.width);
    const auto [y0, y1] = centres_within(p.y - ry, p.y + ry, raster.height);
    Window w{x0, y0, x1 - x0, y1 - y0};
    if (w.width <= 0 || w.height <= 0) w = {};
    zones_.push_back({p.id, w});
  }
}

void BufferZones::mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) {
  const Window& w = zones_.at(index).window;
  const CellPoint& p = points_.at(index);
  for (int64_t r = 0; r < rows; ++r) {
    const double dy = (double(w.y0 + row0 + r) + 0.5 - p.y) * cell_height_;
    for (int64_t c = 0; c < w.width; ++c) {
      const double dx = (double(w.x0 + c) + 0.5 - p.x) * cell_width_;
      const bool in = shape_ == BufferShape::Circle ? dx * dx + dy * dy <= radius_ * radius_
                                                    : std::abs(dx) <= radius_ && std::abs(dy) <= radius_;
      inside[r * w.width + c] = in ? 1 : 0;
    }
  }
}

ZoneWindow::ZoneWindow(ClassRasterSource& raster, ZoneSource& zones, size_t index)
    : raster_(raster), zones_(zones), index_(index), window_(zones.zone(index).window) {
  if (window_.width <= 0 || window_.height <= 0)
    throw Error(ErrorKind::Internal, "zone '" + zones.zone(index).id + "' has no cell to read");
  info_ = raster.info();
  if (info_.geodesic) {  // the window's rows of the ellipsoid's cell sizes
    const GeodesicRows& all = *info_.geodesic;
    auto rows = std::make_shared<GeodesicRows>();
    const auto slice = [&](const std::vector<double>& v, int64_t n) {
      return std::vector<double>(v.begin() + window_.y0, v.begin() + window_.y0 + n);
    };
    rows->cell_area_m2 = slice(all.cell_area_m2, window_.height);
    rows->side_h_m = slice(all.side_h_m, window_.height + 1);
    rows->side_v_m = slice(all.side_v_m, window_.height);
    info_.geodesic = rows;
  }
  info_.width = window_.width;
  info_.height = window_.height;
}

void ZoneWindow::read(const Window& window, int32_t* out, int64_t line_stride) {
  raster_.read({window_.x0 + window.x0, window_.y0 + window.y0, window.width, window.height}, out, line_stride);
  inside_.resize(static_cast<size_t>(window_.width * window.height));
  zones_.mask(index_, window.y0, window.height, inside_.data());
  for (int64_t r = 0; r < window.height; ++r) {
    const uint8_t* in = inside_.data() + r * window_.width + window.x0;
    int32_t* row = out + r * line_stride;
    for (int64_t c = 0; c < window.width; ++c)
      if (!in[c]) row[c] = kNoClass;
  }
}

void run_zonal_job(ClassRasterSource& raster, ZoneSource& zones, const LandscapeJobOptions& options,
                   const ZoneResultSink& sink, const ZonePatchSink& patch_rows, const ProgressFn& progress) {
  // One labeler for every zone: a GPU's streams and pool are set up once.
  std::unique_ptr<TileLabeler> own_labeler;
  LandscapeJobOptions job = options;
  if (!job.labeler) {
    own_labeler = make_labeler(options.backend);
    job.labeler = own_labeler.get();
  }
  double total = 0, done = 0;
  for (size_t i = 0; i < zones.count(); ++i)
    total += double(zones.zone(i).window.width) * double(zones.zone(i).window.height);
  for (size_t i = 0; i < zones.count(); ++i) {
    const Zone& zone = zones.zone(i);
    const double cells = double(zone.window.width) * double(zone.window.height);
    ZoneResults results;
    results.index = i;
    results.zone = &zone;
    if (cells > 0) {
      ZoneWindow window(raster, zones, i);
      // A zone with no class cell has no landscape to measure: the scan tells,
      // and the rest of the job is skipped.
      struct NothingToMeasure {};
      LandscapeJobOptions zone_job = job;
      zone_job.after_scan = [&](const PatchTable& records) {
        for_each_patch_block(records, 65536, [&](size_t, const PatchStats* block, size_t count) {
          for (size_t p = 0; p < count; ++p) {
            results.cells += static_cast<int64_t>(block[p].cells);
            if (!job.background.count(block[p].class_code)) results.measured = true;
          }
        });
        if (!results.measured) throw NothingToMeasure{};
        if (job.after_scan) job.after_scan(records);
      };
      LandscapeSinks sinks;
      if (patch_rows) sinks.patch_rows = [&](const MetricTable& rows) { patch_rows(zone, rows); };
      const double begin = total > 0 ? done / total : 0, end = total > 0 ? (done + cells) / total : 1;
      try {
        results.landscape = run_landscape_job(window, zone_job, sinks, scaled_progress(progress, begin, end));
      } catch (const NothingToMeasure&) {
        results.landscape = {};
      }
    }
    done += cells;
    if (progress && !progress(total > 0 ? done / total : 1)) throw Error(ErrorKind::Io, "interrupted");
    sink(results);
  }
}

}  // namespace lsm
