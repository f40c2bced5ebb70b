#pragma once
// Opening an input raster with GDAL, with one error line that names the
// problem (missing file, not a raster) shared by every reader of lsm.
#include <string>

class GDALDataset;

namespace lsm {

/// Opens `path` read-only as a raster (GDAL's streaming settings applied).
/// The caller owns the dataset (GDALClose). Throws lsm::Error(BadInput):
/// "cannot open 'PATH': no such file" or "... as a raster: WHY".
GDALDataset* open_input_raster(const std::string& path);

}  // namespace lsm
