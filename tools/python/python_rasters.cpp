#include "python_rasters.h"

#include <cpl_error.h>
#include <gdal.h>

#include <memory>
#include <vector>

#include "gdal_errors.h"

namespace lsm::python {

namespace {

struct DatasetCloser {
  void operator()(void* dataset) const { GDALClose(dataset); }
};
using Dataset = std::unique_ptr<void, DatasetCloser>;

// numpy's dtype of a GDAL data type (the types GDAL writes for lsm's outputs and reads from its inputs).
py::dtype dtype_of(GDALDataType type) {
  switch (type) {
    case GDT_Byte: return py::dtype::of<uint8_t>();
    case GDT_UInt16: return py::dtype::of<uint16_t>();
    case GDT_Int16: return py::dtype::of<int16_t>();
    case GDT_UInt32: return py::dtype::of<uint32_t>();
    case GDT_Int32: return py::dtype::of<int32_t>();
    case GDT_Float32: return py::dtype::of<float>();
    default: return py::dtype::of<double>();
  }
}

GDALDataType gdal_type_of(const py::array& a) {
  const char kind = a.dtype().kind();
  const auto size = a.itemsize();
  if (kind == 'u' && size == 1) return GDT_Byte;
  if (kind == 'u' && size == 2) return GDT_UInt16;
  if (kind == 'i' && size == 2) return GDT_Int16;
  if (kind == 'i' && size == 4) return GDT_Int32;
  if (kind == 'f' && size == 4) return GDT_Float32;
  if (kind == 'f' && size == 8) return GDT_Float64;
  throw py::type_error("cannot write an array of " + std::string(py::str(a.dtype())) + " as a raster");
}

[[noreturn]] void fail(const std::string& what) {
  PyErr_SetString(PyExc_OSError, (what + ": " + gdal_failure_reason()).c_str());
  throw py::error_already_set();
}

}  // namespace

void prepare_gdal() { GDALAllRegister(); }

py::tuple read_raster(const std::string& path) {
  forget_gdal_failures();
  Dataset ds;
  {
    HeldGdalMessages held;
    ds.reset(GDALOpen(path.c_str(), GA_ReadOnly));
  }
  if (!ds) fail("cannot open '" + path + "'");
  const int bands = GDALGetRasterCount(ds.get());
  const int width = GDALGetRasterXSize(ds.get()), height = GDALGetRasterYSize(ds.get());
  if (bands < 1) fail("'" + path + "' has no raster band");
  GDALRasterBandH first = GDALGetRasterBand(ds.get(), 1);
  const GDALDataType type = GDALGetRasterDataType(first);
  const py::dtype dtype = dtype_of(type);
  std::vector<py::ssize_t> shape{height, width};
  if (bands > 1) shape.insert(shape.begin(), bands);
  py::array out(dtype, shape);
  const GDALDataType read_as = type == GDT_Byte || type == GDT_UInt16 || type == GDT_Int16 || type == GDT_UInt32 ||
                                       type == GDT_Int32 || type == GDT_Float32
                                   ? type
                                   : GDT_Float64;
  CPLErr status;
  {
    py::gil_scoped_release released;
    HeldGdalMessages held;
    status = GDALDatasetRasterIO(ds.get(), GF_Read, 0, 0, width, height, out.mutable_data(), width, height, read_as,
                                 bands, nullptr, 0, 0, 0);
  }
  if (status != CE_None) fail("cannot read '" + path + "'");
  int has_nodata = 0;
  const double nodata = GDALGetRasterNoDataValue(first, &has_nodata);
  return py::make_tuple(out, has_nodata ? py::object(py::float_(nodata)) : py::object(py::none()));
}

void write_raster(const std::string& path, const py::array& array, std::pair<double, double> cell_size,
                  const py::object& nodata) {
  const GDALDataType type = gdal_type_of(array);
  if (array.ndim() != 2) throw py::value_error("a raster to write is a 2-D array");
  const py::array cells = py::array::ensure(array, py::array::c_style);
  const int height = static_cast<int>(cells.shape(0)), width = static_cast<int>(cells.shape(1));
  forget_gdal_failures();
  HeldGdalMessages held;
  GDALDriverH gtiff = GDALGetDriverByName("GTiff");
  const char* options[] = {"TILED=YES", "COMPRESS=DEFLATE", nullptr};
  Dataset ds(GDALCreate(gtiff, path.c_str(), width, height, 1, type, const_cast<char**>(options)));
  if (!ds) fail("cannot create '" + path + "'");
  double transform[6] = {0, cell_size.first, 0, height * cell_size.second, 0, -cell_size.second};
  GDALSetGeoTransform(ds.get(), transform);
  GDALRasterBandH band = GDALGetRasterBand(ds.get(), 1);
  if (!nodata.is_none()) GDALSetRasterNoDataValue(band, nodata.cast<double>());
  if (GDALRasterIO(band, GF_Write, 0, 0, width, height, const_cast<void*>(cells.data()), width, height, type, 0, 0) !=
      CE_None)
    fail("cannot write '" + path + "'");
  GDALClose(ds.release());
  if (CPLGetLastErrorType() == CE_Failure) fail("cannot write '" + path + "'");
}

}  // namespace lsm::python
