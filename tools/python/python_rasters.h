#pragma once
// Rasters between numpy and files, through GDAL: what the Python module
// needs to hand an operation an array (a temporary GeoTIFF) and to return
// the raster an operation wrote (an array).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <utility>

namespace lsm::python {

namespace py = pybind11;

/// Registers GDAL's drivers (the module may be imported before osgeo or
/// rasterio, or without them).
void prepare_gdal();

/// Every band of the raster at `path` as an array of its data type: 2-D for
/// one band, (bands, rows, columns) for several; with band 1's nodata value
/// or None. Throws OSError naming the file and GDAL's reason.
py::tuple read_raster(const std::string& path);

/// Writes a 2-D array (uint8, uint16, int16, int32, float32 or float64) as a
/// GeoTIFF at `path`, north up with cells of `cell_size` (x, y) metres and
/// no CRS, `nodata` (None = none) as its nodata value. Throws TypeError for
/// another dtype, OSError when GDAL cannot write.
void write_raster(const std::string& path, const py::array& array, std::pair<double, double> cell_size,
                  const py::object& nodata);

}  // namespace lsm::python
