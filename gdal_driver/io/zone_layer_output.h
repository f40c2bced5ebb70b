#pragma once
// The zones written back as a vector dataset with their landscape metrics as
// attributes (lsm zonal --zones-out): what a GIS analyst joins, maps and
// styles. One feature per zone, in zone order: ZONE (the name in the
// tables), then one Real field per landscape-level column (null where a
// zone has no rows or a value is FRAGSTATS' N/A). Written under a temporary
// name and renamed into place by commit().
#include <memory>
#include <string>
#include <vector>

#include "atomic_output.h"
#include "fragstats_metrics.h"

class OGRGeometry;
class OGRSpatialReference;

namespace lsm {

/// The OGR driver of a vector output's name: GPKG (.gpkg), FlatGeobuf (.fgb)
/// or GeoJSON (.geojson, .json; written as RFC 7946, WGS 84). Single-file
/// formats only, so that the output can be written under a temporary name.
/// Throws lsm::Error(BadInput) naming `option` for another extension.
const char* vector_output_driver(const std::string& path, const std::string& option);

class ZoneLayerOutput {
 public:
  /// Checks the name and creates the temporary file at once (an unwritable
  /// destination fails before any work). `srs`: the zones' CRS (null = none).
  ZoneLayerOutput(const std::string& path, const std::string& option, const OGRSpatialReference* srs);
  ~ZoneLayerOutput();
  /// One zone: its geometry (null = none) and its landscape table (null or
  /// without rows = no metrics). Kept until commit(): a zone before the first
  /// measured one cannot know the fields yet.
  void add(const std::string& zone, std::unique_ptr<OGRGeometry> geometry, const MetricTable* land);
  /// Writes every zone and renames the file into place. Throws lsm::Error(Io).
  void commit();

 private:
  struct Entry;
  std::string path_;
  const char* driver_;
  std::unique_ptr<OGRSpatialReference> srs_;
  AtomicOutput file_;
  std::vector<std::string> columns_;
  std::vector<Entry> entries_;
};

}  // namespace lsm
