#pragma once
// Zones for the zonal job (metrics/jobs/zonal_job.h) from files GDAL reads:
// the polygons of a vector layer (any OGR format), the points of one (for
// buffers), or a zone raster on the input's grid. Polygons are rasterised at
// the input's grid by GDAL's rasteriser (GDALRasterizeGeometries) with its
// default cell-centre rule: a cell is in a zone when its centre is inside the
// polygon (holes excluded), strip by strip, so a zone of any size needs
// memory of one strip of its bounding box.
#include <memory>
#include <string>
#include <vector>

#include "zonal_job.h"

class GDALDataset;
class OGRGeometry;

namespace lsm {

class GdalClassRaster;

/// True when GDAL opens `path` as a vector dataset (else it may be a zone raster).
bool is_vector_dataset(const std::string& path);

/// What a zone layer is read with.
struct ZoneLayerOptions {
  std::string field;  ///< attribute whose value names each zone; "" = the feature ID
  std::string layer;  ///< layer name; "" = the dataset's first layer
};

/// The features of a vector layer as zones (each feature its own zone,
/// overlaps allowed), reprojected to the input raster's CRS when theirs
/// differs. Zone IDs are the field's values (or feature IDs). Throws
/// lsm::Error(BadInput) with one line: the file is not a vector dataset, the
/// layer or field does not exist, the layer has no feature, two features
/// share a zone ID, a geometry is not a polygon, the raster is not north-up,
/// or the CRSs cannot be transformed.
class VectorZones final : public ZoneSource {
 public:
  VectorZones(const std::string& path, const GdalClassRaster& raster, const ZoneLayerOptions& options);
  ~VectorZones() override;
  size_t count() const override { return zones_.size(); }
  const Zone& zone(size_t index) const override { return zones_.at(index); }
  void mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) override;
  /// Zone `index`'s geometry in the raster's CRS; null when it has none.
  const OGRGeometry* geometry(size_t index) const { return geometries_.at(index).get(); }
  /// Notes for the user (the zones were reprojected; features without geometry).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::vector<Zone> zones_;
  std::vector<std::unique_ptr<OGRGeometry>> geometries_;  // in the raster's CRS, by zone
  double geotransform_[6] = {0, 1, 0, 0, 0, 1};
  std::vector<std::string> notes_;
};

/// The points of a vector layer in the raster's cell coordinates
/// (CellPoint), reprojected as VectorZones does, for BufferZones. Throws
/// lsm::Error(BadInput) as VectorZones does, and for a geometry that is not
/// a point.
std::vector<CellPoint> read_zone_points(const std::string& path, const GdalClassRaster& raster,
                                        const ZoneLayerOptions& options, std::vector<std::string>* notes);

/// A raster of integer zone codes on the input's grid (same size and
/// geotransform): each code is a zone (ID = the code), nodata cells are in
/// none. Found by one streamed read of the zone raster; each zone's mask is
/// read from it again. Throws lsm::Error(BadInput) for another grid or a
/// zone raster GDAL cannot read as integer codes.
class RasterZones final : public ZoneSource {
 public:
  RasterZones(const std::string& path, const GdalClassRaster& raster);
  ~RasterZones() override;
  size_t count() const override { return zones_.size(); }
  const Zone& zone(size_t index) const override { return zones_.at(index); }
  void mask(size_t index, int64_t row0, int64_t rows, uint8_t* inside) override;

 private:
  std::unique_ptr<GdalClassRaster> zone_raster_;
  std::vector<Zone> zones_;
  std::vector<int32_t> codes_;  // by zone
  std::vector<int32_t> strip_;
};

}  // namespace lsm
