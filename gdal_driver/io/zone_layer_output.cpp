#include "zone_layer_output.h"

#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include <cmath>
#include <filesystem>

#include "error.h"
#include "gdal_errors.h"

namespace lsm {

struct ZoneLayerOutput::Entry {
  std::string zone;
  std::unique_ptr<OGRGeometry> geometry;
  std::vector<double> values;  // empty: no metrics
};

const char* vector_output_driver(const std::string& path, const std::string& option) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".gpkg") return "GPKG";
  if (ext == ".fgb") return "FlatGeobuf";
  if (ext == ".geojson" || ext == ".json") return "GeoJSON";
  throw Error(ErrorKind::BadInput, option + " '" + path + "' must end in .gpkg, .fgb or .geojson");
}

ZoneLayerOutput::ZoneLayerOutput(const std::string& path, const std::string& option, const OGRSpatialReference* srs)
    : path_(path), driver_(vector_output_driver(path, option)), srs_(srs ? srs->Clone() : nullptr), file_(path) {}

ZoneLayerOutput::~ZoneLayerOutput() = default;

void ZoneLayerOutput::add(const std::string& zone, std::unique_ptr<OGRGeometry> geometry, const MetricTable* land) {
  Entry e{zone, std::move(geometry), {}};
  if (land && !land->rows.empty()) {
    if (columns_.empty()) columns_ = land->columns;
    if (land->columns != columns_) throw Error(ErrorKind::Internal, "zones with different landscape columns");
    e.values = land->rows.front().values;
  }
  entries_.push_back(std::move(e));
}

void ZoneLayerOutput::commit() {
  struct Closer {
    void operator()(GDALDataset* d) const { GDALClose(d); }
  };
  GDALDriver* driver = GetGDALDriverManager()->GetDriverByName(driver_);
  if (!driver) throw Error(ErrorKind::Io, std::string("GDAL has no ") + driver_ + " driver for '" + path_ + "'");
  std::filesystem::remove(file_.temp_path());  // the driver makes the file itself
  std::unique_ptr<GDALDataset, Closer> out(driver->Create(file_.temp_path().c_str(), 0, 0, 0, GDT_Unknown, nullptr));
  if (!out) throw Error(ErrorKind::Io, "cannot create '" + path_ + "': " + gdal_failure_reason());
  const std::string name = driver_;
  // GeoJSON is longitude/latitude (RFC 7946): GDAL reprojects the zones.
  const char* options[] = {name == "GPKG" ? "FID=fid" : name == "GeoJSON" ? "RFC7946=YES" : nullptr, nullptr};
  OGRwkbGeometryType type = wkbUnknown;
  for (const Entry& e : entries_)
    if (e.geometry) {
      const OGRwkbGeometryType t = wkbFlatten(e.geometry->getGeometryType());
      type = type == wkbUnknown ? t : (type == t ? type : wkbUnknown);
    }
  // Polygons and multipolygons together: a multipolygon layer (promoted below).
  bool promote = false;
  for (const Entry& e : entries_)
    if (e.geometry && wkbFlatten(e.geometry->getGeometryType()) == wkbMultiPolygon) promote = true;
  if (promote) type = wkbMultiPolygon;
  bool any_geometry = false;
  for (const Entry& e : entries_) any_geometry |= e.geometry != nullptr;
  if (!any_geometry) type = wkbNone;  // a zone raster's zones: a table
  OGRLayer* layer = out->CreateLayer(std::filesystem::path(path_).stem().string().c_str(), srs_.get(), type,
                                     const_cast<char**>(options));
  if (!layer) throw Error(ErrorKind::Io, "cannot create a layer in '" + path_ + "': " + gdal_failure_reason());
  OGRFieldDefn zone_field("ZONE", OFTString);
  layer->CreateField(&zone_field);
  for (const std::string& c : columns_) {
    OGRFieldDefn field(c.c_str(), OFTReal);
    layer->CreateField(&field);
  }
  if (layer->StartTransaction() != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot write '" + path_ + "': " + gdal_failure_reason());
  for (Entry& e : entries_) {
    OGRFeature f(layer->GetLayerDefn());
    if (e.geometry) {
      if (promote && wkbFlatten(e.geometry->getGeometryType()) == wkbPolygon)
        e.geometry.reset(OGRGeometryFactory::forceToMultiPolygon(e.geometry.release()));
      f.SetGeometry(e.geometry.get());
    }
    f.SetField(0, e.zone.c_str());
    for (size_t i = 0; i < e.values.size(); ++i)
      if (!std::isnan(e.values[i])) f.SetField(1 + static_cast<int>(i), e.values[i]);
    if (layer->CreateFeature(&f) != OGRERR_NONE)
      throw Error(ErrorKind::Io, "cannot write '" + path_ + "': " + gdal_failure_reason());
  }
  if (layer->CommitTransaction() != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot write '" + path_ + "': " + gdal_failure_reason());
  out.reset();
  file_.commit();
}

}  // namespace lsm
