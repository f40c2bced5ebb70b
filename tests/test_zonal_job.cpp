// The zonal job (metrics/jobs/zonal_job.h): every zone's patch, class and
// landscape tables equal the landscape job on that zone cut out (its
// bounding box, cells outside the zone nodata), for grid tiles, overlapping
// circular and square buffers, a zone of the caller's with a hole, both
// neighbour rules, background and small tile grids; buffers and grid tiles
// counted by hand; zones with no cell; bad options.
#include <cmath>
#include <memory>
#include <sstream>

#include "error.h"
#include "fragstats_tables.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "test_helpers.h"
#include "zonal_job.h"

namespace lsm::test {
namespace {

// A ring: the cells of a box whose centre is farther than `hole` cells from
// the box's centre (a zone with a hole, as a polygon with an inner ring).
class RingZones final : public ZoneSource {
 public:
  RingZones(Window box, double hole) : zone_{"ring", box}, hole_(hole) {}
  size_t count() const override { return 1; }
  const Zone& zone(size_t) const override { return zone_; }
  void mask(size_t, int64_t row0, int64_t rows, uint8_t* inside) override {
    const Window& w = zone_.window;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < w.width; ++c) {
        const double dx = c + 0.5 - w.width / 2.0, dy = row0 + r + 0.5 - w.height / 2.0;
        inside[r * w.width + c] = dx * dx + dy * dy > hole_ * hole_;
      }
  }

 private:
  Zone zone_;
  double hole_;
};

// The zone cut out of `raster` as its own raster, from the zone source's
// mask of the whole window in one call.
MemoryClassRaster cut_out(const MemoryClassRaster& raster, ZoneSource& zones, size_t index) {
  const Window w = zones.zone(index).window;
  std::vector<uint8_t> inside(static_cast<size_t>(w.width * w.height));
  zones.mask(index, 0, w.height, inside.data());
  std::vector<int32_t> cells(inside.size());
  const int64_t width = raster.info().width;
  for (int64_t r = 0; r < w.height; ++r)
    for (int64_t c = 0; c < w.width; ++c) {
      const size_t i = static_cast<size_t>(r * w.width + c);
      cells[i] = inside[i] ? raster.cells()[static_cast<size_t>((w.y0 + r) * width + w.x0 + c)] : kNoClass;
    }
  return MemoryClassRaster(w.width, w.height, cells, raster.info().cell_width, raster.info().cell_height);
}

bool same_table(const MetricTable& a, const MetricTable& b) {
  if (a.columns != b.columns || a.rows.size() != b.rows.size()) return false;
  for (size_t i = 0; i < a.rows.size(); ++i) {
    if (a.rows[i].type != b.rows[i].type || a.rows[i].pid != b.rows[i].pid) return false;
    for (size_t c = 0; c < a.columns.size(); ++c) {
      const double x = a.rows[i].values[c], y = b.rows[i].values[c];
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
  }
  return true;
}

// Runs the zonal job and checks every zone against its cut-out; returns how
// many zones were measured.
int expect_zones_equal_cut_outs(const MemoryClassRaster& raster, ZoneSource& zones, const LandscapeJobOptions& o,
                                const std::string& what) {
  MemoryClassRaster source = raster;
  int measured = 0;
  size_t seen = 0;
  run_zonal_job(source, zones, o, [&](const ZoneResults& z) {
    EXPECT_EQ(z.index, seen++) << what;
    const Window& w = z.zone->window;
    if (w.width <= 0 || w.height <= 0) {
      EXPECT_FALSE(z.measured) << what << " zone " << z.zone->id;
      return;
    }
    MemoryClassRaster alone = cut_out(raster, zones, z.index);
    bool has_class = false;
    for (int32_t v : alone.cells()) has_class |= v != kNoClass && !o.background.count(v);
    EXPECT_EQ(z.measured, has_class) << what << " zone " << z.zone->id;
    if (!has_class) return;
    ++measured;
    LandscapeJobOptions plain = o;
    plain.tile_width = plain.tile_height = 0;
    const LandscapeResults ref = run_landscape_job(alone, plain);
    EXPECT_TRUE(same_table(z.landscape.metrics.land, ref.metrics.land)) << what << " zone " << z.zone->id << " land";
    EXPECT_TRUE(same_table(z.landscape.metrics.cls, ref.metrics.cls)) << what << " zone " << z.zone->id << " class";
    EXPECT_TRUE(same_table(z.landscape.metrics.patch, ref.metrics.patch)) << what << " zone " << z.zone->id << " patch";
  });
  EXPECT_EQ(seen, zones.count()) << what;
  return measured;
}

TEST(ZonalJob, GridTilesEqualTheirCutOuts) {
  const MemoryClassRaster raster = random_landscape(61, 47, 4, 11, 0.05);
  for (NeighbourRule rule : {NeighbourRule::Four, NeighbourRule::Eight}) {
    GridZones zones(raster.info(), 17, 13);
    ASSERT_EQ(zones.count(), 4u * 4u);  // 61 = 3 x 17 + 10, 47 = 3 x 13 + 8
    EXPECT_EQ(zones.zone(3).id, "0_3");
    EXPECT_EQ(zones.zone(3).window.width, 10);
    EXPECT_EQ(zones.zone(15).window.height, 8);
    LandscapeJobOptions o;
    o.rule = rule;
    o.tile_width = 7;  // several tiles and strips in every zone
    o.tile_height = 5;
    EXPECT_EQ(expect_zones_equal_cut_outs(raster, zones, o, "grid"), 16);
  }
}

TEST(ZonalJob, OverlappingBuffersEqualTheirCutOuts) {
  const MemoryClassRaster random = random_landscape(80, 60, 5, 23, 0.03);
  const MemoryClassRaster raster(80, 60, random.cells(), 30.0, 30.0);  // cells of 30 m
  const std::vector<CellPoint> points = {{"a", 20.3, 15.8}, {"b", 24.0, 18.0},  {"edge", 1.0, 59.5},
                                         {"c", 70.5, 30.5}, {"outside", -40, 10}, {"corner", 79.9, 0.1}};
  for (BufferShape shape : {BufferShape::Circle, BufferShape::Square}) {
    BufferZones zones(raster.info(), points, 240.0, shape);  // 8 cells
    LandscapeJobOptions o;
    o.tile_width = 6;
    o.tile_height = 4;
    EXPECT_EQ(expect_zones_equal_cut_outs(raster, zones, o, "buffers"), 5);
    EXPECT_EQ(zones.zone(4).window.width, 0) << "a buffer wholly outside the raster has no cell";
  }
}

TEST(ZonalJob, ZoneWithAHoleBackgroundAndNodata) {
  const MemoryClassRaster raster = random_landscape(50, 40, 4, 5, 0.1);
  RingZones zones({5, 3, 30, 28}, 7.5);
  LandscapeJobOptions o;
  o.background = {2};
  o.boundary_edge = 0.5;
  o.tile_width = 9;
  o.tile_height = 6;
  EXPECT_EQ(expect_zones_equal_cut_outs(raster, zones, o, "ring"), 1);
}

TEST(ZonalJob, ResultsDoNotDependOnTheTileGrid) {
  const MemoryClassRaster raster = random_landscape(64, 64, 3, 9, 0.0);
  std::vector<std::string> lands;
  for (int tile : {0, 5, 16}) {
    GridZones zones(raster.info(), 32, 32);
    LandscapeJobOptions o;
    o.tile_width = o.tile_height = tile;
    MemoryClassRaster source = raster;
    std::string all;
    run_zonal_job(source, zones, o, [&](const ZoneResults& z) {
      for (double v : z.landscape.metrics.land.rows.at(0).values) all += std::to_string(v) + ",";
    });
    lands.push_back(all);
  }
  EXPECT_EQ(lands[0], lands[1]);
  EXPECT_EQ(lands[0], lands[2]);
}

// Every zone's patch, class and landscape rows, in the order handed out.
std::vector<std::string> zone_tables(const MemoryClassRaster& raster, ZoneSource& zones, const LandscapeJobOptions& o,
                                     int workers) {
  MemoryClassRaster source = raster;
  ZonalWorkers w;
  w.count = workers;
  w.open_raster = [&]() -> std::unique_ptr<ClassRasterSource> { return std::make_unique<MemoryClassRaster>(raster); };
  std::vector<std::string> out;
  std::string patch_rows;
  run_zonal_job(
      source, zones, o,
      [&](const ZoneResults& z) {
        std::ostringstream text;
        write_table_csv(text, z.landscape.metrics.cls, MetricLevel::Class);
        write_table_csv(text, z.landscape.metrics.land, MetricLevel::Landscape);
        out.push_back(std::to_string(z.index) + " " + z.zone->id + "\n" + patch_rows + text.str());
        patch_rows.clear();
      },
      [&](const Zone& zone, const MetricTable& rows) {
        std::ostringstream text;
        write_table_csv(text, rows, MetricLevel::Patch);
        patch_rows += zone.id + ":" + text.str();
      },
      {}, w);
  return out;
}

TEST(ZonalJob, WorkersGiveTheSameRowsInZoneOrder) {
  const MemoryClassRaster random = random_landscape(120, 90, 5, 41, 0.03);
  const MemoryClassRaster raster(120, 90, random.cells(), 30.0, 30.0);
  GridZones grid(raster.info(), 13, 11);  // 10 x 9 tiles of uneven sizes
  BufferZones buffers(raster.info(), {{"a", 20, 20}, {"b", 25, 22}, {"far", -100, 0}, {"c", 100.5, 80.5}}, 300.0,
                      BufferShape::Square);
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  o.background = {3};
  for (ZoneSource* zones : std::vector<ZoneSource*>{&grid, &buffers}) {
    const std::vector<std::string> one = zone_tables(raster, *zones, o, 1);
    ASSERT_EQ(one.size(), zones->count());
    for (int workers : {2, 3, 7}) EXPECT_EQ(zone_tables(raster, *zones, o, workers), one) << workers << " workers";
  }
}

TEST(ZonalJob, CancellingStopsEveryWorker) {
  const MemoryClassRaster raster = random_landscape(200, 200, 4, 3, 0.0);
  GridZones zones(raster.info(), 10, 10);  // 400 zones
  MemoryClassRaster source = raster;
  ZonalWorkers w;
  w.count = 3;
  w.open_raster = [&]() -> std::unique_ptr<ClassRasterSource> { return std::make_unique<MemoryClassRaster>(raster); };
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  size_t handed_out = 0;
  int calls = 0;
  EXPECT_THROW(run_zonal_job(
                   source, zones, o, [&](const ZoneResults&) { ++handed_out; }, {},
                   [&](double) { return ++calls < 5; }, w),
               Error);
  EXPECT_LT(handed_out, 10u) << "zones went on after the progress said stop";
}

TEST(ZonalJob, CudaGivesTheCpuTables) {
  LSM_REQUIRE_CUDA();
  const MemoryClassRaster random = random_landscape(300, 200, 5, 31, 0.02);
  const MemoryClassRaster raster(300, 200, random.cells(), 30.0, 30.0);
  const std::vector<CellPoint> points = {{"a", 40.5, 50.5}, {"b", 48.0, 55.0}, {"c", 250.2, 120.7}, {"edge", 0.5, 199.5}};
  // The CPU; every zone on the GPU; the whole 64 x 64 tiles on the GPU and
  // the partial tiles and the buffers (at most 41 x 41 cells) on two CPU
  // workers beside it.
  std::vector<std::string> tables[3];
  for (int run = 0; run < 3; ++run) {
    LandscapeJobOptions o;
    o.backend = run ? Backend::Cuda : Backend::Cpu;
    o.background = {4};
    ZonalWorkers workers;
    if (run == 2) {
      workers.count = 2;
      workers.gpu_min_cells = 64 * 64;
    }
    MemoryClassRaster source = raster;
    GridZones grid(raster.info(), 64, 64);
    BufferZones buffers(raster.info(), points, 600.0, BufferShape::Circle);
    for (ZoneSource* zones : std::vector<ZoneSource*>{&grid, &buffers})
      run_zonal_job(source, *zones, o, [&](const ZoneResults& z) {
        std::ostringstream text;
        write_table_csv(text, z.landscape.metrics.patch, MetricLevel::Patch);
        write_table_csv(text, z.landscape.metrics.cls, MetricLevel::Class);
        write_table_csv(text, z.landscape.metrics.land, MetricLevel::Landscape);
        tables[run].push_back(z.zone->id + "\n" + text.str());
      }, {}, {}, workers);
  }
  ASSERT_EQ(tables[0].size(), 20u + 4u);  // 5 x 4 tiles, 4 buffers
  for (int run = 1; run < 3; ++run)
    for (size_t i = 0; i < tables[0].size(); ++i)
      EXPECT_EQ(tables[run].at(i), tables[0][i]) << (run == 1 ? "GPU" : "GPU beside CPU workers") << ", zone " << i;
}

TEST(ZonalJob, BuffersCountedByHand) {
  // Cells of 1 m; a point at the centre of cell (5, 5).
  const RasterInfo info = MemoryClassRaster(11, 11, std::vector<int32_t>(121, 1)).info();
  const auto cells_of = [&](double radius, BufferShape shape) {
    BufferZones zones(info, {{"p", 5.5, 5.5}}, radius, shape);
    const Window w = zones.zone(0).window;
    std::vector<uint8_t> inside(static_cast<size_t>(w.width * w.height));
    zones.mask(0, 0, w.height, inside.data());
    int n = 0;
    for (uint8_t v : inside) n += v;
    return n;
  };
  EXPECT_EQ(cells_of(1.5, BufferShape::Circle), 9);    // the 3 x 3 block: diagonals at 1.41 cells
  EXPECT_EQ(cells_of(2.0, BufferShape::Circle), 13);   // and the four cells 2 away along the axes
  EXPECT_EQ(cells_of(1.0, BufferShape::Square), 9);    // side 2 cells around the centre: 3 x 3 centres
  EXPECT_EQ(cells_of(0.4, BufferShape::Circle), 1);    // the point's own cell
  EXPECT_EQ(cells_of(100.0, BufferShape::Square), 121);  // cut by the raster
}

// Distances of a made-up "ellipsoid": 3 m a column, 1 m a row, so a circle
// of radius r holds the cells within r/3 columns and r rows (an ellipse in
// cells); its box is that ellipse's, exactly.
class StretchedDistances final : public EllipsoidDistances {
 public:
  double metres(double x0, double y0, double x1, double y1) const override {
    return std::hypot(3 * (x1 - x0), y1 - y0);
  }
  std::array<double, 4> box_within(double x, double y, double radius) const override {
    return {x - radius / 3, x + radius / 3, y - radius, y + radius};
  }
};

TEST(ZonalJob, PlotsOnARasterInDegreesTakeTheEllipsoidsDistances) {
  RasterInfo info = MemoryClassRaster(21, 21, std::vector<int32_t>(441, 1)).info();
  info.geodesic = std::make_shared<GeodesicRows>();  // a raster in degrees
  const StretchedDistances stretched;
  BufferZones zones(info, {{"p", 10.5, 10.5}, {"edge", 0.5, 10.5}}, 3.0, BufferShape::Circle, &stretched);
  const auto cells_in = [&](size_t zone) {
    const Window w = zones.zone(zone).window;
    std::vector<uint8_t> inside(static_cast<size_t>(w.width * w.height));
    zones.mask(zone, 0, w.height, inside.data());
    int n = 0;
    for (uint8_t v : inside) n += v;
    return n;
  };
  // Radius 3 m: one column either side (3 m), three rows up and down: the
  // column of 7 cells and, one column off, the rows with 9 + dy^2 <= 9 (dy = 0).
  EXPECT_EQ(zones.zone(0).window.width, 3);
  EXPECT_EQ(zones.zone(0).window.height, 7);
  EXPECT_EQ(cells_in(0), 7 + 2);
  EXPECT_EQ(cells_in(1), 7 + 1);  // cut at the raster's left edge
  // Without distances on the ellipsoid, or with squares, plots are refused.
  EXPECT_THROW(BufferZones(info, {{"p", 10.5, 10.5}}, 3.0, BufferShape::Circle), Error);
  EXPECT_THROW(BufferZones(info, {{"p", 10.5, 10.5}}, 3.0, BufferShape::Square, &stretched), Error);
}

TEST(ZonalJob, ZonesWithoutClassCellsAreNotMeasured) {
  MemoryClassRaster raster = grid({"11..", "12..", "....", "..33"});
  GridZones zones(raster.info(), 2, 2);
  LandscapeJobOptions o;
  o.background = {3};
  std::vector<bool> measured;
  std::vector<int64_t> cells;
  run_zonal_job(raster, zones, o, [&](const ZoneResults& z) {
    measured.push_back(z.measured);
    cells.push_back(z.cells);
  });
  EXPECT_EQ(measured, (std::vector<bool>{true, false, false, false}));  // nodata only; background only
  EXPECT_EQ(cells[0], 4);
  EXPECT_EQ(cells[3], 2);
}

TEST(ZonalJob, BadOptionsAreRefused) {
  const RasterInfo info = random_landscape(8, 8, 2, 1, 0).info();
  EXPECT_THROW(GridZones(info, 0, 5), Error);
  EXPECT_THROW(BufferZones(info, {{"p", 1, 1}}, 0.0, BufferShape::Circle), Error);
  EXPECT_THROW(BufferZones(info, {{"p", 1, 1}}, std::nan(""), BufferShape::Circle), Error);
}

}  // namespace
}  // namespace lsm::test
