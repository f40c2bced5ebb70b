// _lsm: the C++ half of the Python module `lsm` (tools/python/lsm/). It
// renders the operation layer for Python as every front end does: the
// declarations as JSON (the Python half builds a function per operation and
// lsm.Landscape's keywords from them), a run of any operation by name with
// its values as text (checked by the declaration's validators, so messages
// match the command line's), and the in-memory landscape of
// landscape_tables.h on a numpy array read in place. Every run releases the
// GIL (released_run.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "landscape_tables.h"
#include "operation_json.h"
#include "operations.h"
#include "python_rasters.h"
#include "released_run.h"

namespace py = pybind11;

namespace lsm::python {

namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

ops::ParameterValues values_of(const ops::OperationSpec& spec, const Values& given) {
  ops::ParameterValues values(spec, ops::kCommandLine);
  for (const auto& [name, value] : given) values.set(name, value);
  return values;
}

// The array's cell type, read in place; the Python half converts others.
ArrayCellType cell_type_of(const py::array& a) {
  const char kind = a.dtype().kind();
  const auto size = a.itemsize();
  if (kind == 'u' && size == 1) return ArrayCellType::UInt8;
  if (kind == 'u' && size == 2) return ArrayCellType::UInt16;
  if (kind == 'i' && size == 2) return ArrayCellType::Int16;
  if (kind == 'i' && size == 4) return ArrayCellType::Int32;
  throw py::type_error("lsm reads arrays of uint8, uint16, int16 or int32 in place, not " +
                       std::string(py::str(a.dtype())));
}

py::array_t<double> values_array(const MetricTable& t) {
  py::array_t<double> out({static_cast<py::ssize_t>(t.rows.size()), static_cast<py::ssize_t>(t.columns.size())});
  double* cells = out.mutable_data();
  for (size_t r = 0; r < t.rows.size(); ++r)
    std::memcpy(cells + r * t.columns.size(), t.rows[r].values.data(), t.columns.size() * sizeof(double));
  return out;
}

py::dict table_dict(const MetricTable& t) {
  py::array_t<int32_t> types(static_cast<py::ssize_t>(t.rows.size()));
  py::array_t<uint32_t> pids(static_cast<py::ssize_t>(t.rows.size()));
  for (size_t r = 0; r < t.rows.size(); ++r) {
    types.mutable_data()[r] = t.rows[r].type;
    pids.mutable_data()[r] = t.rows[r].pid;
  }
  py::dict d;
  d["columns"] = t.columns;
  d["type"] = types;
  d["pid"] = pids;
  d["values"] = values_array(t);
  return d;
}

// A vector's cells handed to numpy without a copy: the array owns them.
template <class T>
py::array_t<T> owned_array(std::vector<T>&& cells, std::vector<py::ssize_t> shape) {
  auto* held = new std::vector<T>(std::move(cells));
  py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, held->data(), owner);
}

py::dict landscape(const Values& given, const py::object& array, std::pair<double, double> cell_size,
                   bool patch_ids, const py::object& progress) {
  const ops::ParameterValues values = values_of(ops::landscape_tables_spec(), given);
  std::optional<ops::ArrayRaster> raster;
  py::array held;  // keeps the array alive (and unmoved) while the job reads it
  if (!array.is_none()) {
    held = py::reinterpret_borrow<py::array>(array);
    if (held.ndim() != 2) throw py::value_error("a landscape is a 2-D array, not " + std::to_string(held.ndim()) + "-D");
    ops::ArrayRaster r;
    r.type = cell_type_of(held);
    if (held.strides(1) != held.itemsize() || held.strides(0) % held.itemsize() != 0)
      throw py::value_error("the array's rows must be contiguous (numpy.ascontiguousarray)");
    r.cells = held.data();
    r.height = held.shape(0);
    r.width = held.shape(1);
    r.row_stride = held.strides(0) / held.itemsize();
    r.cell_width = cell_size.first;
    r.cell_height = cell_size.second;
    raster = r;
  }
  std::vector<std::string> notes;
  ops::LandscapeTables tables = run_released<ops::LandscapeTables>(
      [&](const ops::RunContext& context) { return ops::landscape_tables(values, context, raster, patch_ids); },
      progress, notes);
  py::dict out;
  out["patch"] = table_dict(tables.metrics.patch);
  out["class"] = table_dict(tables.metrics.cls);
  out["land"] = table_dict(tables.metrics.land);
  out["class_names"] = tables.class_names;
  out["notes"] = notes;
  if (tables.has_adjacency) {
    const size_t k = tables.adjacency.class_codes.size();
    std::vector<uint64_t> sides(k * k);
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j < k; ++j) sides[i * k + j] = tables.adjacency.at(i, j);
    out["adjacency_classes"] = tables.adjacency.class_codes;
    out["adjacency"] = owned_array(std::move(sides), {static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(k)});
  } else {
    out["adjacency"] = py::none();
  }
  if (patch_ids)
    out["patch_ids"] = owned_array(std::move(tables.patch_ids), {static_cast<py::ssize_t>(tables.height),
                                                                 static_cast<py::ssize_t>(tables.width)});
  return out;
}

std::vector<std::string> run_operation(const std::string& name, const Values& given, const py::object& progress) {
  const ops::Operation* operation = ops::find_operation(name);
  if (!operation || !(operation->spec.front_ends & ops::kCommandLine))
    throw py::value_error("lsm has no operation '" + name + "'");
  const ops::ParameterValues values = values_of(operation->spec, given);
  values.check_required();
  std::vector<std::string> notes;
  run_released<bool>(
      [&](const ops::RunContext& context) {
        operation->run(values, context);
        return true;
      },
      progress, notes);
  return notes;
}

// Checks values as a run would take them, without running: lsm.Landscape
// refuses a bad keyword when it is made, not at its first table.
void check_values(const std::string& name, const Values& given) {
  if (name.empty()) {
    values_of(ops::landscape_tables_spec(), given);
    return;
  }
  const ops::Operation* operation = ops::find_operation(name);
  if (!operation) throw py::value_error("lsm has no operation '" + name + "'");
  values_of(operation->spec, given);
}

std::string landscape_declaration() {
  ops::OperationSpec spec = ops::landscape_tables_spec();
  spec.front_ends = ops::kCommandLine;  // describe_json lists what the command line shows
  return ops::describe_json({ops::Operation{spec, {}}}, LSM_VERSION);
}

}  // namespace

}  // namespace lsm::python

PYBIND11_MODULE(_lsm, m) {
  using namespace lsm::python;
  m.doc() = "lsm's engine for Python; use the package `lsm`, which wraps it";
  lsm::python::prepare_gdal();
  // lsm's errors as Python's: a bad value is a ValueError, a file an OSError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const lsm::Error& e) {
      switch (e.kind()) {
        case lsm::ErrorKind::BadInput: PyErr_SetString(PyExc_ValueError, e.what()); return;
        case lsm::ErrorKind::Io: PyErr_SetString(PyExc_OSError, e.what()); return;
        default: PyErr_SetString(PyExc_RuntimeError, e.what()); return;
      }
    }
  });
  m.attr("__version__") = LSM_VERSION;
  m.def("describe", [] { return lsm::ops::describe_json(lsm::ops::operations(), LSM_VERSION); },
        "every operation's declaration as JSON (lsm --describe)");
  m.def("landscape_declaration", &landscape_declaration, "lsm.Landscape's parameters as JSON (--describe's layout)");
  m.def("landscape", &landscape, py::arg("values"), py::arg("array"), py::arg("cell_size"), py::arg("patch_ids"),
        py::arg("progress"), "the tables of one landscape (landscape_tables.h)");
  m.def("run_operation", &run_operation, py::arg("name"), py::arg("values"), py::arg("progress"),
        "runs an operation with its values as text; returns its notes");
  m.def("check_values", &check_values, py::arg("name"), py::arg("values"),
        "checks an operation's values (name \"\" = lsm.Landscape's) as a run would");
  m.def("read_raster", &read_raster, py::arg("path"), "a raster's bands as an array, with its nodata value");
  m.def("write_raster", &write_raster, py::arg("path"), py::arg("array"), py::arg("cell_size"), py::arg("nodata"),
        "writes a 2-D array as a GeoTIFF with square cells of the given size");
}
