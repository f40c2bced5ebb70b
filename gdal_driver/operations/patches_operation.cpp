// patches: one polygon per patch, with PID, TYPE, NAME and the patch metrics
// as attributes (lsm patches INPUT OUTPUT.gpkg). The patch IDs are labeled
// as `lsm label` does, polygonised by GDAL's own polygoniser (GDALPolygonize,
// which streams the raster line by line; 8-connected regions for the 8-cell
// rule, so each patch is one polygon), and joined with the patch table of
// `lsm metrics --level patch` by PID. Limits: docs/QGIS.md, "Patches on the map".
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogrsf_frmts.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "atomic_output.h"
#include "common_parameters.h"
#include "csv_fields.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "gdal_errors.h"
#include "gdal_open.h"
#include "operations.h"
#include "protected_inputs.h"

namespace lsm::ops {

namespace {

OperationSpec patches_spec() {
  OperationSpec s;
  s.name = "patches";
  s.summary = "one polygon per patch with PID, TYPE, NAME and the patch metrics (GeoPackage)";
  s.title = "Patch polygons";
  s.category = "Landscape metrics";
  s.passes = 4;
  s.usage = "usage: lsm patches INPUT OUTPUT.gpkg [options]";
  s.front_ends = kCommandLine | kService;  // vectors are not the driver's rasters
  s.parameters = joined(
      {
          input_raster("input", "input raster (any format GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputVector, "output",
                 "polygons of the patches: GeoPackage (.gpkg), FlatGeobuf (.fgb) or GeoJSON (.geojson)")
              .titled("Patch polygons")
              .needed()
              .at_position(2)
              .only(kCommandLine | kService),
          integer("edge-depth", "edge depth for core metrics").with_default("1").at_least(1).at_most(1000).in("cells"),
          text("class-descriptors", "FRAGSTATS class descriptor file (ID, Name, Enabled, IsBackground) for the NAME field")
              .titled("Class descriptors")
              .with_metavar("FILE")
              .only(kCommandLine),
      },
      patch_parameters());
  return s;
}

// The vector format of an output name; single-file formats only, so that
// the output can be written under a temporary name and renamed.
const char* vector_driver(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".gpkg") return "GPKG";
  if (ext == ".fgb") return "FlatGeobuf";
  if (ext == ".geojson" || ext == ".json") return "GeoJSON";
  throw Error(ErrorKind::BadInput, "output '" + path + "' must end in .gpkg, .fgb or .geojson");
}

// A scratch folder for the patch IDs and the patch table, removed on every
// exit path.
class ScratchFolder {
 public:
  ScratchFolder() {
    path_ = std::filesystem::temp_directory_path() / ("lsm-patches-" + std::to_string(::getpid()) + "-" +
                                                      std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The patch table: header and rows in PID order (PID = row + 1).
struct PatchTable {
  std::vector<std::string> columns;          // after PID and TYPE (and NAME)
  std::vector<int32_t> types;                // [pid - 1]
  std::vector<std::string> names;            // [pid - 1], when the table has NAME
  std::vector<std::vector<double>> values;   // [pid - 1][column]
};

PatchTable read_patch_table(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) throw Error(ErrorKind::Internal, "empty patch table " + path);
  PatchTable t;
  const std::vector<std::string> header = split_csv_line(line);
  const bool named = header.size() > 2 && header[2] == "NAME";
  const size_t first = named ? 3 : 2;
  t.columns.assign(header.begin() + static_cast<std::ptrdiff_t>(first), header.end());
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split_csv_line(line);
    if (f.size() != header.size()) throw Error(ErrorKind::Internal, "a patch table row of the wrong width");
    t.types.push_back(static_cast<int32_t>(std::stol(f[1])));
    if (named) t.names.push_back(f[2]);
    std::vector<double> v(t.columns.size());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = f[first + i].empty() ? std::nan("") : std::strtod(f[first + i].c_str(), nullptr);
    t.values.push_back(std::move(v));
  }
  return t;
}

void run_patches(const ParameterValues& v, const RunContext& context) {
  const std::string input = v.text("input"), output_path = v.text("output");
  const char* driver_name = vector_driver(output_path);
  GDALDriver* driver = GetGDALDriverManager()->GetDriverByName(driver_name);
  if (!driver) throw Error(ErrorKind::Backend, std::string("this GDAL has no ") + driver_name + " driver");
  AtomicOutput file(output_path);  // fails now if the output is not writable, or is an input
  const ProgressFn progress = context.checked_progress();
  ScratchFolder scratch;
  RunContext quiet_context = context;
  quiet_context.quiet = true;

  // 1. The patch IDs and the patch table, as `lsm label` and `lsm metrics --level patch` make them.
  const std::string ids = scratch.file("ids.tif"), prefix = scratch.file("m");
  {
    const Operation& label = *find_operation("label");
    ParameterValues lv(label.spec, kCommandLine);
    for (const char* name : {"band", "neighbors", "backend", "tile-size"})
      if (v.given(name)) lv.set(name, v.text(name));
    lv.set("input", input);
    lv.set("output", ids);
    quiet_context.progress = scaled_progress(progress, 0.0, 0.3);
    label.run(lv, quiet_context);
    const Operation& metrics = *find_operation("metrics");
    ParameterValues mv(metrics.spec, kCommandLine);
    for (const char* name : {"band", "neighbors", "backend", "tile-size", "edge-depth", "class-descriptors"})
      if (v.given(name)) mv.set(name, v.text(name));
    mv.set("input", input);
    mv.set("out", prefix);
    mv.set("level", "patch");
    quiet_context.progress = scaled_progress(progress, 0.3, 0.6);
    metrics.run(mv, quiet_context);
  }
  const PatchTable table = read_patch_table(prefix + ".patch.csv");

  // 2. GDAL's polygoniser on the patch IDs, into a scratch GeoPackage.
  HeldGdalMessages held;
  GDALDatasetUniquePtr id_raster(open_input_raster(ids));
  GDALRasterBand* id_band = id_raster->GetRasterBand(1);
  GDALDatasetUniquePtr polygons(GetGDALDriverManager()->GetDriverByName("GPKG")->Create(scratch.file("polygons.gpkg").c_str(), 0,
                                                                              0, 0, GDT_Unknown, nullptr));
  if (!polygons) throw Error(ErrorKind::Io, "cannot create a scratch GeoPackage: " + gdal_failure_reason());
  OGRSpatialReference* srs = id_raster->GetSpatialRef() ? id_raster->GetSpatialRef()->Clone() : nullptr;
  struct SrsRelease {
    OGRSpatialReference* s;
    ~SrsRelease() { if (s) s->Release(); }
  } srs_release{srs};
  OGRLayer* raw = polygons->CreateLayer("polygons", srs, wkbPolygon, nullptr);
  OGRFieldDefn pid_field("PID", OFTInteger64);
  if (!raw || raw->CreateField(&pid_field) != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot create the scratch polygon layer: " + gdal_failure_reason());
  const bool eight = v.integer("neighbors") != 4;
  const char* options[] = {eight ? "8CONNECTED=8" : nullptr, nullptr};
  struct ProgressArg {
    const ProgressFn* fn;
  } arg{&progress};
  auto gdal_progress = [](double f, const char*, void* p) -> int {
    const ProgressFn& fn = *static_cast<ProgressArg*>(p)->fn;
    return !fn || fn(0.6 + 0.3 * f) ? TRUE : FALSE;
  };
  if (GDALPolygonize(id_band, id_band->GetMaskBand(), raw, 0, const_cast<char**>(options), gdal_progress, &arg) !=
      CE_None) {
    if (progress && !progress(0.9)) throw Error(ErrorKind::Io, "interrupted");
    throw Error(ErrorKind::Io, "polygonising the patch IDs failed: " + gdal_failure_reason());
  }

  // 3. The output: the polygons in PID order with the patch table's attributes.
  std::remove(file.temp_path().c_str());  // the driver creates its own file
  GDALDatasetUniquePtr out(driver->Create(file.temp_path().c_str(), 0, 0, 0, GDT_Unknown, nullptr));
  if (!out) throw Error(ErrorKind::Io, "cannot create '" + output_path + "': " + gdal_failure_reason());
  const char* layer_options[] = {std::string(driver_name) == "GPKG" ? "FID=fid" : nullptr, nullptr};
  OGRLayer* layer = out->CreateLayer(std::filesystem::path(output_path).stem().string().c_str(),
                                     srs, wkbPolygon, const_cast<char**>(layer_options));
  if (!layer) throw Error(ErrorKind::Io, "cannot create a layer in '" + output_path + "': " + gdal_failure_reason());
  OGRFieldDefn pid("PID", OFTInteger64), type("TYPE", OFTInteger), name("NAME", OFTString);
  layer->CreateField(&pid);
  layer->CreateField(&type);
  if (!table.names.empty()) layer->CreateField(&name);
  for (const std::string& c : table.columns) {
    OGRFieldDefn field(c.c_str(), OFTReal);
    layer->CreateField(&field);
  }
  const int first_metric = table.names.empty() ? 2 : 3;
  OGRLayer* sorted = polygons->ExecuteSQL("SELECT * FROM polygons ORDER BY PID", nullptr, "SQLITE");
  if (!sorted) throw Error(ErrorKind::Io, "cannot read the scratch polygons: " + gdal_failure_reason());
  if (layer->StartTransaction() != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot write '" + output_path + "': " + gdal_failure_reason());
  int64_t written = 0;
  const int64_t total = static_cast<int64_t>(table.types.size());
  for (auto& feature : *sorted) {
    const int64_t p = feature->GetFieldAsInteger64(0);
    if (p < 1 || p > total) throw Error(ErrorKind::Internal, "a polygon of PID " + std::to_string(p) + " outside the table");
    const size_t row = static_cast<size_t>(p - 1);
    OGRFeature f(layer->GetLayerDefn());
    f.SetGeometry(feature->GetGeometryRef());
    f.SetField(0, static_cast<GIntBig>(p));
    f.SetField(1, table.types[row]);
    if (!table.names.empty()) f.SetField(2, table.names[row].c_str());
    for (size_t i = 0; i < table.columns.size(); ++i)
      if (!std::isnan(table.values[row][i])) f.SetField(first_metric + static_cast<int>(i), table.values[row][i]);
    if (layer->CreateFeature(&f) != OGRERR_NONE)
      throw Error(ErrorKind::Io, "cannot write '" + output_path + "': " + gdal_failure_reason());
    if (++written % 65536 == 0 && progress && !progress(0.9 + 0.1 * double(written) / double(total)))
      throw Error(ErrorKind::Io, "interrupted");
  }
  polygons->ReleaseResultSet(sorted);
  if (layer->CommitTransaction() != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot write '" + output_path + "': " + gdal_failure_reason());
  if (written != total)
    throw Error(ErrorKind::Internal, std::to_string(written) + " polygons for " + std::to_string(total) + " patches");
  out.reset();
  file.commit();
  if (progress) progress(1.0);
}

}  // namespace

Operation patches_operation() { return {patches_spec(), run_patches}; }

}  // namespace lsm::ops
