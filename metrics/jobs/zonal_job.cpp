#include "zonal_job.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <map>
#include <thread>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "error.h"
#include "patch_records.h"

namespace lsm {

std::pair<int64_t, int64_t> cells_with_centres_within(double low, double high, int64_t size) {
  const double first = std::ceil(low - 0.5), last = std::floor(high - 0.5) + 1;
  const auto clamp = [size](double v) { return static_cast<int64_t>(std::clamp(v, 0.0, double(size))); };
  if (!(first < last)) return {0, 0};
  return {clamp(first), std::max(clamp(first), clamp(last))};
}

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

BufferZones::BufferZones(const RasterInfo& raster, std::vector<CellPoint> points, double radius_m, BufferShape shape,
                         const EllipsoidDistances* ellipsoid)
    : points_(std::move(points)), radius_(radius_m), cell_width_(raster.cell_width),
      cell_height_(raster.cell_height), shape_(shape), ellipsoid_(raster.geodesic ? ellipsoid : nullptr) {
  if (raster.geodesic && !ellipsoid)
    throw Error(ErrorKind::BadInput, "buffers in metres need a projected raster; this one is in degrees (reproject it, "
                                     "e.g. gdalwarp -t_srs with a local projected CRS)");
  if (ellipsoid_ && shape == BufferShape::Square)
    throw Error(ErrorKind::BadInput, "square plots need a projected raster (on the ellipsoid a square's sides are "
                                     "not along the cells); use circles, or reproject the raster");
  if (!(radius_m > 0) || !std::isfinite(radius_m))
    throw Error(ErrorKind::BadInput, "the buffer radius must be a positive number of metres");
  for (const CellPoint& p : points_) {
    // The box of cells whose centres may be inside.
    std::array<double, 4> box;
    if (ellipsoid_) {
      box = ellipsoid_->box_within(p.x, p.y, radius_);
    } else {
      const double rx = radius_ / cell_width_, ry = radius_ / cell_height_;  // radius in cells along each axis
      box = {p.x - rx, p.x + rx, p.y - ry, p.y + ry};
    }
    const auto [x0, x1] = cells_with_centres_within(box[0], box[1], raster.width);
    const auto [y0, y1] = cells_with_centres_within(box[2], box[3], raster.height);
    Window w{x0, y0, x1 - x0, y1 - y0};
    if (w.width <= 0 || w.height <= 0) w = {};
    zones_.push_back({p.id, w});
  }
}

void BufferZones::mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) {
  const Window& w = zones_.at(index).window;
  const CellPoint& p = points_.at(index);
  for (int64_t r = 0; r < rows; ++r) {
    const double y = double(w.y0 + row0 + r) + 0.5;
    const double dy = (y - p.y) * cell_height_;
    for (int64_t c = 0; c < w.width; ++c) {
      const double x = double(w.x0 + c) + 0.5;
      bool in;
      if (ellipsoid_) {
        in = ellipsoid_->metres(p.x, p.y, x, y) <= radius_;
      } else {
        const double dx = (x - p.x) * cell_width_;
        in = shape_ == BufferShape::Circle ? dx * dx + dy * dy <= radius_ * radius_
                                           : std::abs(dx) <= radius_ && std::abs(dy) <= radius_;
      }
      inside[r * w.width + c] = in ? 1 : 0;
    }
  }
}

ZoneWindow::ZoneWindow(ClassRasterSource& raster, ZoneSource& zones, size_t index, std::mutex* mask_lock)
    : raster_(raster), zones_(zones), index_(index), window_(zones.zone(index).window), mask_lock_(mask_lock) {
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
  if (mask_lock_) {
    std::lock_guard<std::mutex> g(*mask_lock_);
    zones_.mask(index_, window.y0, window.height, inside_.data());
  } else {
    zones_.mask(index_, window.y0, window.height, inside_.data());
  }
  for (int64_t r = 0; r < window.height; ++r) {
    const uint8_t* in = inside_.data() + r * window_.width + window.x0;
    int32_t* row = out + r * line_stride;
    for (int64_t c = 0; c < window.width; ++c)
      if (!in[c]) row[c] = kNoClass;
  }
}

namespace {

// One zone's landscape job: its window with the cells outside it as nodata.
// A zone with no class cell has no landscape to measure: the scan tells, and
// the rest of the job is skipped.
ZoneResults measure_zone(ClassRasterSource& raster, ZoneSource& zones, size_t index, const LandscapeJobOptions& job,
                         const std::function<void(const MetricTable&)>& patch_rows, const ProgressFn& progress,
                         std::mutex* mask_lock) {
  ZoneResults results;
  results.index = index;
  results.zone = &zones.zone(index);
  const Window& w = results.zone->window;
  if (w.width <= 0 || w.height <= 0) return results;
  ZoneWindow window(raster, zones, index, mask_lock);
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
  sinks.patch_rows = patch_rows;
  try {
    results.landscape = run_landscape_job(window, zone_job, sinks, progress);
  } catch (const NothingToMeasure&) {
    results.landscape = {};
  }
  return results;
}

// One raster read by several workers, one read at a time: they share its
// handle and so GDAL's cache of its decoded blocks (a handle each decodes
// every block once per worker, which cost more than the workers gained).
class SharedRaster final : public ClassRasterSource {
 public:
  SharedRaster(ClassRasterSource& raster, std::mutex& lock) : raster_(raster), lock_(lock), info_(raster.info()) {}
  RasterInfo info() const override { return info_; }
  using ClassRasterSource::read;
  void read(const Window& window, int32_t* out, int64_t line_stride) override {
    std::lock_guard<std::mutex> g(lock_);
    raster_.read(window, out, line_stride);
  }

 private:
  ClassRasterSource& raster_;
  std::mutex& lock_;
  RasterInfo info_;
};

double window_cells(const Zone& zone) { return double(zone.window.width) * double(zone.window.height); }

// Zones on several workers, each with its own raster handle and labeler;
// results handed out in zone order by whichever worker completes the next
// one, at most 2 x workers zones ahead of the last handed out (their patch
// rows are held until then). With a GPU labeler, one more worker measures
// the large zones on it, one at a time, and the CPU workers the rest: each
// kind takes its own zones in zone order, so the zone next to hand out is
// always in progress or the next one its kind takes (no deadlock).
void run_zones_in_parallel(ClassRasterSource& shared, ZoneSource& zones, const LandscapeJobOptions& options,
                           const ZoneResultSink& sink,
                           const ZonePatchSink& patch_rows, const ProgressFn& progress, const ZonalWorkers& workers,
                           double total, TileLabeler* gpu) {
  struct Completed {
    ZoneResults results;
    std::vector<MetricTable> patch_blocks;
  };
  std::mutex lock, mask_lock;
  std::condition_variable changed;
  enum Kind { kCpuZones = 0, kGpuZones = 1 };
  std::vector<size_t> queue[2];  // the zones of each kind of worker, in zone order
  for (size_t i = 0; i < zones.count(); ++i)
    queue[gpu && window_cells(zones.zone(i)) >= double(workers.gpu_min_cells) ? kGpuZones : kCpuZones].push_back(i);
  size_t taken[2] = {0, 0}, next_out = 0;
  double done = 0;
  std::map<size_t, Completed> completed;
  std::exception_ptr failure;
  std::atomic<bool> failed{false};  // failure is set (read without the lock)
  const size_t ahead = 2 * static_cast<size_t>(workers.count);
  const auto work = [&](ClassRasterSource* raster, Kind kind) {
    std::unique_ptr<TileLabeler> cpu_labeler;
    LandscapeJobOptions job = options;
    if (kind == kGpuZones) {
      job.labeler = gpu;
    } else {
#ifdef _OPENMP
      // The workers are the parallelism: each zone's job on one thread (its
      // OpenMP loops would otherwise start a team per worker, which spin
      // against each other for the cores).
      omp_set_num_threads(1);
#endif
      cpu_labeler = make_labeler(Backend::Cpu);
      job.labeler = cpu_labeler.get();
    }
    const std::vector<size_t>& mine = queue[kind];
    // A zone's own progress only says whether to go on (cancelled or failed elsewhere).
    // Asked many times a zone: an atomic, not the lock the workers share.
    const ProgressFn go_on = [&](double) { return !failed.load(std::memory_order_relaxed); };
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> g(lock);
        changed.wait(g, [&] {
          return failure || taken[kind] >= mine.size() || mine[taken[kind]] < next_out + ahead;
        });
        if (failure || taken[kind] >= mine.size()) return;
        i = mine[taken[kind]++];
      }
      Completed c;
      try {
        const auto keep_rows = [&](const MetricTable& rows) { c.patch_blocks.push_back(rows); };
        c.results = measure_zone(*raster, zones, i, job, patch_rows ? keep_rows : std::function<void(const MetricTable&)>{},
                                 go_on, &mask_lock);
      } catch (...) {
        std::lock_guard<std::mutex> g(lock);
        if (!failure) failure = std::current_exception();
        failed = true;
        changed.notify_all();
        return;
      }
      std::lock_guard<std::mutex> g(lock);
      completed.emplace(i, std::move(c));
      try {  // hand out every zone that is next in order
        for (auto it = completed.find(next_out); !failure && it != completed.end(); it = completed.find(next_out)) {
          const Zone& zone = zones.zone(next_out);
          for (const MetricTable& rows : it->second.patch_blocks) patch_rows(zone, rows);
          sink(it->second.results);
          done += window_cells(zone);
          completed.erase(it);
          ++next_out;
          if (progress && !progress(total > 0 ? done / total : 1)) throw Error(ErrorKind::Io, "interrupted");
        }
      } catch (...) {
        if (!failure) failure = std::current_exception();
        failed = true;
      }
      changed.notify_all();
    }
  };
  std::vector<std::unique_ptr<ClassRasterSource>> rasters;
  std::mutex read_lock;
  for (int k = 0; k < workers.count; ++k)
    rasters.push_back(workers.open_raster ? workers.open_raster() : std::make_unique<SharedRaster>(shared, read_lock));
  if (gpu) rasters.push_back(std::make_unique<SharedRaster>(shared, read_lock));
  std::vector<std::thread> threads;
  for (int k = 0; k < workers.count; ++k) threads.emplace_back(work, rasters[size_t(k)].get(), kCpuZones);
  if (gpu) threads.emplace_back(work, rasters.back().get(), kGpuZones);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

void run_zonal_job(ClassRasterSource& raster, ZoneSource& zones, const LandscapeJobOptions& options,
                   const ZoneResultSink& sink, const ZonePatchSink& patch_rows, const ProgressFn& progress,
                   const ZonalWorkers& workers) {
  double total = 0;
  for (size_t i = 0; i < zones.count(); ++i) total += window_cells(zones.zone(i));
  // One labeler for every zone: a GPU's streams and pool are set up once.
  std::unique_ptr<TileLabeler> own_labeler;
  LandscapeJobOptions job = options;
  if (!job.labeler) {
    own_labeler = make_labeler(options.backend);
    job.labeler = own_labeler.get();
  }
  // Several workers: on the CPU each with a labeler of its own; beside a GPU
  // (which runs one zone's job at a time) for the zones too small for it.
  if (workers.count > 1 && job.labeler->backend() == Backend::Cpu && !options.labeler)
    return run_zones_in_parallel(raster, zones, options, sink, patch_rows, progress, workers, total, nullptr);
  if (workers.count > 1 && job.labeler->backend() != Backend::Cpu)
    return run_zones_in_parallel(raster, zones, options, sink, patch_rows, progress, workers, total, job.labeler);
  double done = 0;
  for (size_t i = 0; i < zones.count(); ++i) {
    const Zone& zone = zones.zone(i);
    const double cells = window_cells(zone);
    const double begin = total > 0 ? done / total : 0, end = total > 0 ? (done + cells) / total : 1;
    std::function<void(const MetricTable&)> rows;
    if (patch_rows) rows = [&](const MetricTable& block) { patch_rows(zone, block); };
    const ZoneResults results = measure_zone(raster, zones, i, job, rows, scaled_progress(progress, begin, end), nullptr);
    done += cells;
    if (progress && !progress(total > 0 ? done / total : 1)) throw Error(ErrorKind::Io, "interrupted");
    sink(results);
  }
}

}  // namespace lsm
