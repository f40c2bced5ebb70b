#include "gdal_zones.h"

#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "error.h"
#include "gdal_class_raster.h"
#include "gdal_errors.h"
#include "same_grid.h"

namespace lsm {

namespace {

std::string quoted(const std::string& path) {
  return "'" + (path.size() <= 200 ? path : path.substr(0, 200) + "...") + "'";
}

struct DatasetCloser {
  void operator()(GDALDataset* d) const { GDALClose(d); }
};
using DatasetPtr = std::unique_ptr<GDALDataset, DatasetCloser>;

DatasetPtr open_vector(const std::string& path) {
  forget_gdal_failures();
  GDALDataset* d = GDALDataset::Open(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY);
  if (!d) throw Error(ErrorKind::BadInput, "cannot open " + quoted(path) + " as a vector dataset (zones)");
  return DatasetPtr(d);
}

// The raster's north-up geotransform; else one error line.
void north_up_geotransform(const GdalClassRaster& raster, double gt[6]) {
  if (raster.dataset()->GetGeoTransform(gt) != CE_None)
    throw Error(ErrorKind::BadInput, quoted(raster.path()) + " has no georeferencing: zones from a vector layer need "
                                     "one to find their cells");
  if (gt[2] != 0 || gt[4] != 0)
    throw Error(ErrorKind::BadInput, quoted(raster.path()) + " is rotated or sheared: zones from a vector layer need "
                                     "a north-up raster (gdalwarp it first)");
}

// The layer's features, each geometry in the raster's CRS, with its zone ID.
struct LayerFeatures {
  std::vector<std::string> ids;
  std::vector<std::unique_ptr<OGRGeometry>> geometries;  // null = no geometry
};

LayerFeatures read_layer(const std::string& path, const GdalClassRaster& raster, const ZoneLayerOptions& options,
                         std::vector<std::string>& notes) {
  DatasetPtr dataset = open_vector(path);
  OGRLayer* layer = options.layer.empty() ? dataset->GetLayer(0) : dataset->GetLayerByName(options.layer.c_str());
  if (!layer)
    throw Error(ErrorKind::BadInput, quoted(path) + (options.layer.empty() ? " has no layer"
                                                                           : " has no layer '" + options.layer + "'"));
  int field = -1;
  if (!options.field.empty()) {
    field = layer->GetLayerDefn()->GetFieldIndex(options.field.c_str());
    if (field < 0) {
      std::string names;
      for (int i = 0; i < layer->GetLayerDefn()->GetFieldCount(); ++i)
        names += std::string(i ? ", " : "") + layer->GetLayerDefn()->GetFieldDefn(i)->GetNameRef();
      throw Error(ErrorKind::BadInput, "the zone layer " + quoted(path) + " has no field '" + options.field + "'" +
                                           (names.empty() ? " (it has no field)" : " (its fields: " + names + ")"));
    }
  }
  // Reprojection to the raster's CRS, where both have one and they differ.
  std::unique_ptr<OGRCoordinateTransformation> transform;
  std::string layer_crs;
  const OGRSpatialReference* raster_srs = raster.dataset()->GetSpatialRef();
  const OGRSpatialReference* layer_srs = layer->GetSpatialRef();
  // Equivalent CRSs (the same one written by two programs) need no transformation.
  const char* equivalent[] = {"CRITERION=EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS", "IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES",
                              nullptr};
  if (raster_srs && layer_srs && !layer_srs->IsSame(raster_srs, equivalent)) {
    OGRSpatialReference from(*layer_srs), to(*raster_srs);
    from.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    to.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    transform.reset(OGRCreateCoordinateTransformation(&from, &to));
    if (!transform)
      throw Error(ErrorKind::BadInput, "the zones of " + quoted(path) + " cannot be transformed to the raster's CRS");
    const char* name = layer_srs->GetName();
    layer_crs = name ? name : "their CRS";
    notes.push_back("note: the zones are reprojected from " + layer_crs + " to the raster's CRS");
  } else if (raster_srs && !layer_srs) {
    notes.push_back("note: the zone layer has no CRS: its coordinates are taken in the raster's");
  }
  LayerFeatures features;
  std::map<std::string, GIntBig> seen;  // zone ID -> feature ID, to refuse duplicates
  int without_geometry = 0;
  layer->ResetReading();
  for (auto& feature : *layer) {
    std::string id = field >= 0 ? std::string(feature->GetFieldAsString(field)) : std::to_string(feature->GetFID());
    if (const auto [it, fresh] = seen.emplace(id, feature->GetFID()); !fresh)
      throw Error(ErrorKind::BadInput, "the zone field '" + options.field + "' has the value '" + id +
                                           "' on features " + std::to_string(it->second) + " and " +
                                           std::to_string(feature->GetFID()) +
                                           ": give a field with one value per feature, or none (feature IDs)");
    std::unique_ptr<OGRGeometry> geometry;
    if (const OGRGeometry* g = feature->GetGeometryRef(); g && !g->IsEmpty()) {
      geometry.reset(g->clone());
      if (transform && geometry->transform(transform.get()) != OGRERR_NONE)
        throw Error(ErrorKind::BadInput, "feature " + std::to_string(feature->GetFID()) + " of " + quoted(path) +
                                             " cannot be transformed from " + layer_crs +
                                             " to the raster's CRS (are its coordinates in " + layer_crs + "?)");
    } else {
      ++without_geometry;
    }
    features.ids.push_back(std::move(id));
    features.geometries.push_back(std::move(geometry));
  }
  if (features.ids.empty()) throw Error(ErrorKind::BadInput, "the zone layer " + quoted(path) + " has no feature");
  if (without_geometry)
    notes.push_back("note: " + std::to_string(without_geometry) + " zone(s) have no geometry: reported as zones "
                    "with no cell");
  return features;
}


}  // namespace

bool is_vector_dataset(const std::string& path) {
  CPLPushErrorHandler(CPLQuietErrorHandler);
  GDALDataset* d = GDALDataset::Open(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY);
  CPLPopErrorHandler();
  const bool vector = d && d->GetLayerCount() > 0;
  if (d) GDALClose(d);
  return vector;
}

VectorZones::VectorZones(const std::string& path, const GdalClassRaster& raster, const ZoneLayerOptions& options) {
  north_up_geotransform(raster, geotransform_);
  LayerFeatures features = read_layer(path, raster, options, notes_);
  const RasterInfo info = raster.info();
  const double* gt = geotransform_;
  for (size_t i = 0; i < features.ids.size(); ++i) {
    Window w;
    if (const OGRGeometry* g = features.geometries[i].get()) {
      const OGRwkbGeometryType type = wkbFlatten(g->getGeometryType());
      if (type != wkbPolygon && type != wkbMultiPolygon && type != wkbCurvePolygon && type != wkbMultiSurface)
        throw Error(ErrorKind::BadInput, "zone '" + features.ids[i] + "' of " + quoted(path) + " is a " +
                                             OGRGeometryTypeToName(g->getGeometryType()) +
                                             ", not a polygon (for plots around points give --buffer)");
      OGREnvelope e;
      g->getEnvelope(&e);
      // Envelope in cell units; gt[5] < 0 for north-up rasters flips y.
      const double cx0 = (e.MinX - gt[0]) / gt[1], cx1 = (e.MaxX - gt[0]) / gt[1];
      const double cy0 = (e.MaxY - gt[3]) / gt[5], cy1 = (e.MinY - gt[3]) / gt[5];
      const auto [x0, x1] = cells_with_centres_within(std::min(cx0, cx1), std::max(cx0, cx1), info.width);
      const auto [y0, y1] = cells_with_centres_within(std::min(cy0, cy1), std::max(cy0, cy1), info.height);
      if (x1 > x0 && y1 > y0) w = {x0, y0, x1 - x0, y1 - y0};
    }
    zones_.push_back({features.ids[i], w});
  }
  geometries_ = std::move(features.geometries);
}

VectorZones::~VectorZones() = default;

void VectorZones::mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) {
  const Window& w = zones_.at(index).window;
  std::fill(inside, inside + rows * w.width, uint8_t{0});
  // GDAL's rasteriser on an in-memory strip of the zone's window (cell-centre rule).
  GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
  DatasetPtr strip(mem->Create("", static_cast<int>(w.width), static_cast<int>(rows), 1, GDT_Byte, nullptr));
  if (!strip) throw Error(ErrorKind::Io, "cannot make an in-memory strip to rasterise zone '" + zones_[index].id + "'");
  const double* gt = geotransform_;
  double strip_gt[6] = {gt[0] + double(w.x0) * gt[1], gt[1], 0, gt[3] + double(w.y0 + row0) * gt[5], 0, gt[5]};
  strip->SetGeoTransform(strip_gt);
  int band = 1;
  double burn = 1;
  OGRGeometryH geometry = OGRGeometry::ToHandle(geometries_.at(index).get());
  forget_gdal_failures();
  if (GDALRasterizeGeometries(strip.get(), 1, &band, 1, &geometry, nullptr, nullptr, &burn, nullptr, nullptr,
                              nullptr) != CE_None)
    throw Error(ErrorKind::Io, "cannot rasterise zone '" + zones_[index].id + "': " + gdal_failure_reason());
  if (strip->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, static_cast<int>(w.width), static_cast<int>(rows), inside,
                                        static_cast<int>(w.width), static_cast<int>(rows), GDT_Byte, 0, 0) != CE_None)
    throw Error(ErrorKind::Io, "cannot read the rasterised zone '" + zones_[index].id + "'");
}

std::vector<CellPoint> read_zone_points(const std::string& path, const GdalClassRaster& raster,
                                        const ZoneLayerOptions& options, std::vector<std::string>* notes) {
  double gt[6];
  north_up_geotransform(raster, gt);
  std::vector<std::string> own_notes;
  LayerFeatures features = read_layer(path, raster, options, notes ? *notes : own_notes);
  std::vector<CellPoint> points;
  for (size_t i = 0; i < features.ids.size(); ++i) {
    const OGRGeometry* g = features.geometries[i].get();
    if (!g) {  // no geometry: a buffer nowhere, a zone with no cell
      points.push_back({features.ids[i], -1e18, -1e18});
      continue;
    }
    if (wkbFlatten(g->getGeometryType()) != wkbPoint)
      throw Error(ErrorKind::BadInput, "zone '" + features.ids[i] + "' of " + quoted(path) + " is a " +
                                           OGRGeometryTypeToName(g->getGeometryType()) +
                                           ", not a point (buffers are drawn around points)");
    const OGRPoint* p = g->toPoint();
    points.push_back({features.ids[i], (p->getX() - gt[0]) / gt[1], (p->getY() - gt[3]) / gt[5]});
  }
  return points;
}

RasterZones::RasterZones(const std::string& path, const GdalClassRaster& raster)
    : zone_raster_(std::make_unique<GdalClassRaster>(path, 1)) {
  if (const std::string why = grid_mismatch(raster, *zone_raster_, "the input"); !why.empty())
    throw Error(ErrorKind::BadInput, "the zone raster " + quoted(path) + " " + why);
  const RasterInfo zinfo = zone_raster_->info();
  // One streamed read: every zone code's bounding box.
  struct Box {
    int64_t x0, y0, x1, y1;
  };
  std::map<int32_t, Box> boxes;
  const int64_t band_rows = std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(1, zinfo.width));
  std::vector<int32_t> rows;
  for (int64_t y0 = 0; y0 < zinfo.height; y0 += band_rows) {
    const int64_t n = std::min(band_rows, zinfo.height - y0);
    rows.resize(static_cast<size_t>(n * zinfo.width));
    zone_raster_->read({0, y0, zinfo.width, n}, rows.data());
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < zinfo.width; ++c) {
        const int32_t code = rows[static_cast<size_t>(r * zinfo.width + c)];
        if (code == kNoClass) continue;
        auto [it, fresh] = boxes.try_emplace(code, Box{c, y0 + r, c, y0 + r});
        if (!fresh) {
          Box& b2 = it->second;
          b2.x0 = std::min(b2.x0, c);
          b2.x1 = std::max(b2.x1, c);
          b2.y1 = y0 + r;
        }
      }
  }
  for (const auto& [code, b2] : boxes) {
    zones_.push_back({std::to_string(code), {b2.x0, b2.y0, b2.x1 - b2.x0 + 1, b2.y1 - b2.y0 + 1}});
    codes_.push_back(code);
  }
  if (zones_.empty()) throw Error(ErrorKind::BadInput, "the zone raster " + quoted(path) + " has no zone (nodata only)");
}

RasterZones::~RasterZones() = default;

void RasterZones::mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) {
  const Window& w = zones_.at(index).window;
  strip_.resize(static_cast<size_t>(w.width * rows));
  zone_raster_->read({w.x0, w.y0 + row0, w.width, rows}, strip_.data());
  const int32_t code = codes_[index];
  for (size_t i = 0; i < strip_.size(); ++i) inside[i] = strip_[i] == code;
}

}  // namespace lsm
