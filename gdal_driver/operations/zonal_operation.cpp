// zonal: FRAGSTATS' tables of many landscapes inside one raster (lsm zonal
// INPUT --zones ZONES --output PREFIX): each polygon of a layer, each buffer
// around a point, each zone of a zone raster or each tile of a grid is a
// landscape of its own (the zonal job, metrics/jobs/zonal_job.h), reported
// in the tables of lsm metrics with a ZONE column first.
#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>
#include <optional>

#include "common_parameters.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "gdal_zones.h"
#include "geodesic_distances.h"
#include "landscape_parameters.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "operations.h"
#include "zonal_job.h"
#include "keyed_tables.h"
#include "zone_layer_output.h"

namespace lsm::ops {

namespace {

OperationSpec zonal_spec() {
  OperationSpec s;
  s.name = "zonal";
  s.summary = "FRAGSTATS tables of every zone, buffer or grid tile as a landscape of its own (CSV)";
  s.title = "Landscape metrics by zone (FRAGSTATS)";
  s.category = "Landscape metrics";
  s.manual = "ZONAL.md";
  s.passes = 2;
  s.usage = "usage: lsm zonal INPUT (--zones ZONES | --grid CELLS) --output PREFIX [options]";
  s.front_ends = kCommandLine | kService;  // tables, not a raster the driver could serve
  s.parameters = joined(joined(
      {
          input_raster("input", "input raster (any format GDAL reads)").needed().at_position(1),
          input_vector("zones", "zones: a polygon layer (any format OGR reads; each feature a landscape, overlaps "
                                "allowed), a point layer with --buffer, or a raster of zone codes on the input's grid")
              .titled("Zones")
              .also_spelled("points"),  // --points FILE --buffer R, as sample-plot tools say it
          text("zone-field", "attribute whose values name the zones in the tables (one value per feature); "
                             "default: the feature ID")
              .titled("Zone name field")
              .with_metavar("FIELD")
              .field_of_input("zones"),
          text("zones-layer", "layer of the zone dataset; default: its first layer").with_metavar("LAYER").technical(),
          number("buffer", "plots of this radius around the points of --zones (cell-centre rule)")
              .in("m")
              .at_least(1e-9)
              .at_most(1e9)
              .titled("Buffer radius"),
          text("buffer-shape", "shape of the plots around points")
              .one_of_labelled({{"circle", "cells whose centre is within the radius"},
                                {"square", "cells whose centre is within the radius along x and y"}})
              .with_default("circle"),
          integer("grid", "tiles of this many cells a side from the top-left corner instead of zones (FRAGSTATS' "
                          "uniform tiles; those at the right and bottom edges are partial)")
              .in("cells")
              .at_least(1)
              .at_most(1e9)
              .titled("Grid tile size"),
          output(ParameterRole::OutputTablePrefix, "output",
                 "output prefix: PREFIX.patch.csv, PREFIX.class.csv and PREFIX.land.csv (or PREFIX.tidy.csv), "
                 "lsm metrics' tables with a ZONE column first")
              .needed()
              .short_option('o')
              .titled("Output tables (prefix)")
              .with_metavar("PREFIX")
              .also_spelled("out")
              .making({{"patch", ".patch.csv", "text/csv", "patch table (ZONE, then one row per patch of the zone)"},
                       {"class", ".class.csv", "text/csv", "class table (ZONE, then one row per class of the zone)"},
                       {"land", ".land.csv", "text/csv", "landscape table (one row per zone)"},
                       {"tidy", ".tidy.csv", "text/csv", "tidy table (with format=tidy: zone, level, class, id, metric, value)"}}),
          output(ParameterRole::OutputVector, "zones-out",
                 "also the zones as a vector dataset (.gpkg, .fgb or .geojson) with their landscape metrics as "
                 "attributes (polygons, points or grid tiles; a zone raster's zones without geometry)")
              .titled("Zones with their metrics")
              .with_metavar("FILE"),
          text("level", "levels to report: any of patch,class,land").subset_of({"patch", "class", "land"})
              .with_default("class,land")
              .titled("Levels")
              .checked_by([](const std::string& v) { MetricLevels::parse(v); }),
          metrics_parameter(),
          edge_depth_parameter(),
          edge_distance_parameter(),
          text("format", "table layout")
              .one_of_labelled({{"fragstats", "one column per metric"}, {"tidy", "one row per value"}})
              .with_default("fragstats"),
      },
      joined(landscape_definition_parameters(), auxiliary_input_parameters())),
      patch_parameters());
  s.rules = {one_of_the_two("zones", "grid"), requires_also("buffer", "zones"), excludes("zone-field", "grid")};
  return s;
}

void run_zonal(const ParameterValues& v, const RunContext& context) {
  const std::string input = v.text("input"), prefix = v.text("output");
  require_table_prefix(v);
  MetricLevels levels = MetricLevels::parse(v.text("level"));
  const TableFormat format = parse_table_format(v.text("format"));
  LandscapeJobOptions job = landscape_job_options(v, context);
  if (v.given("metrics")) job.selection = MetricSelection(v.text("metrics"));
  set_landscape_definition(v, job);
  set_auxiliary_inputs(v, job);
  if (levels.patch && !job.selection.selects_at(kPatchLevel)) levels.patch = false;
  if (levels.cls && !job.selection.selects_at(kClassLevel)) levels.cls = false;
  if (levels.land && !job.selection.selects_at(kLandscapeLevel)) levels.land = false;
  if (!levels.patch && !levels.cls && !levels.land)
    v.fail("metrics", "'" + v.text("metrics") + "' selects no metric of the levels asked for");

  GdalClassRaster source(input, static_cast<int>(v.integer("band")));
  use_given_nodata(source, v);
  source.require_measurable_cells();
  note_measurement(source, input, context);
  const RasterInfo info = source.info();

  std::unique_ptr<GeodesicDistances> ellipsoid;  // plots on a raster in degrees (before the zones: they use it)
  std::unique_ptr<ZoneSource> zones;
  std::vector<std::string> notes;
  // Each zone's geometry in the raster's CRS, for --zones-out (null = none).
  double gt[6] = {0, 1, 0, 0, 0, -1};
  const bool georeferenced = source.dataset()->GetGeoTransform(gt) == CE_None;
  const auto map_point = [&](double col, double row) {
    return std::make_pair(gt[0] + col * gt[1] + row * gt[2], gt[3] + col * gt[4] + row * gt[5]);
  };
  std::function<std::unique_ptr<OGRGeometry>(size_t)> geometry_of = [](size_t) { return nullptr; };
  if (v.given("grid")) {
    auto grid = std::make_unique<GridZones>(info, v.integer("grid"), v.integer("grid"));
    geometry_of = [&, grid = grid.get()](size_t i) -> std::unique_ptr<OGRGeometry> {
      const Window& w = grid->zone(i).window;
      OGRLinearRing ring;
      for (const auto& [c, r] : std::vector<std::pair<int64_t, int64_t>>{
               {w.x0, w.y0}, {w.x0 + w.width, w.y0}, {w.x0 + w.width, w.y0 + w.height}, {w.x0, w.y0 + w.height}, {w.x0, w.y0}}) {
        const auto [x, y] = map_point(double(c), double(r));
        ring.addPoint(x, y);
      }
      auto tile = std::make_unique<OGRPolygon>();
      tile->addRing(&ring);
      return tile;
    };
    zones = std::move(grid);
  } else {
    const std::string path = v.text("zones");
    const ZoneLayerOptions layer{v.text("zone-field"), v.text("zones-layer")};
    if (v.given("buffer")) {
      const BufferShape shape = v.text("buffer-shape") == "square" ? BufferShape::Square : BufferShape::Circle;
      auto points = std::make_shared<std::vector<CellPoint>>(read_zone_points(path, source, layer, &notes));
      geometry_of = [&, points](size_t i) -> std::unique_ptr<OGRGeometry> {
        const CellPoint& p = points->at(i);
        if (p.x < -1e17) return nullptr;  // a feature without geometry
        const auto [x, y] = map_point(p.x, p.y);
        return std::make_unique<OGRPoint>(x, y);
      };
      if (source.geographic()) ellipsoid = std::make_unique<GeodesicDistances>(source);
      zones = std::make_unique<BufferZones>(info, *points, v.number("buffer"), shape, ellipsoid.get());
    } else if (is_vector_dataset(path)) {
      auto vector = std::make_unique<VectorZones>(path, source, layer);
      notes = vector->notes();
      geometry_of = [vector = vector.get()](size_t i) {
        return std::unique_ptr<OGRGeometry>(vector->geometry(i) ? vector->geometry(i)->clone() : nullptr);
      };
      zones = std::move(vector);
    } else {
      if (v.given("zone-field") || v.given("zones-layer"))
        v.fail(v.given("zone-field") ? "zone-field" : "zones-layer", "is for a vector layer of zones; '" + path +
                                                                        "' is read as a zone raster");
      zones = std::make_unique<RasterZones>(path, source);
    }
  }
  for (const std::string& line : notes) context.notify(line);

  KeyedTableFiles files(prefix, levels, format, "ZONE");  // fails now if PREFIX is not writable
  // Class names as lsm metrics gives them: the raster's attribute table or category names.
  if (std::map<int32_t, std::string> names = source.class_names(); !names.empty()) {
    files.add_name_column();
    files.set_class_names(std::move(names));
  }
  std::optional<ZoneLayerOutput> zones_out;
  if (v.given("zones-out")) {
    if (!georeferenced) v.fail("zones-out", "needs a georeferenced input (the zones' geometries are in its CRS)");
    zones_out.emplace(v.text("zones-out"), "--zones-out", source.dataset()->GetSpatialRef());
  }
  size_t measured = 0;
  std::vector<std::string> empty;
  bool patch_rows_added = false;
  const ZonePatchSink patch_rows = [&](const Zone& zone, const MetricTable& rows) {
    patch_rows_added = true;
    files.add_patch_rows(zone.id, rows);
  };
  // Zones side by side on the CPU threads, sharing the input's handle (and GDAL's cache of its blocks).
  ZonalWorkers workers;
  workers.count = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
  run_zonal_job(
      source, *zones, job,
      [&](const ZoneResults& z) {
        if (zones_out) zones_out->add(z.zone->id, geometry_of(z.index), z.measured ? &z.landscape.metrics.land : nullptr);
        if (!z.measured) {
          empty.push_back(z.zone->id);
          return;
        }
        ++measured;
        files.add_landscape(z.zone->id, z.landscape.metrics, patch_rows_added);
        patch_rows_added = false;
      },
      levels.patch ? patch_rows : ZonePatchSink{}, context.checked_progress(), workers);
  if (!measured)
    throw Error(ErrorKind::BadInput, (zones->count() == 1 ? std::string("the zone holds no cell")
                                                          : "none of the " + std::to_string(zones->count()) +
                                                                " zones holds a cell") +
                                         " with a class of '" + input + "' (do the zones lie on the raster, in its CRS?)");
  if (!empty.empty()) {
    std::string list;
    for (size_t i = 0; i < empty.size() && i < 5; ++i) list += (i ? ", " : "") + empty[i];
    context.notify("note: " + std::to_string(empty.size()) + " of " + std::to_string(zones->count()) +
                   " zones hold no cell with a class and have no rows (" + list + (empty.size() > 5 ? ", ..." : "") + ")");
  }
  files.commit();
  if (zones_out) zones_out->commit();
}

}  // namespace

Operation zonal_operation() { return {zonal_spec(), run_zonal}; }

}  // namespace lsm::ops
