// patches: one polygon per patch, with PID, TYPE, NAME and the patch metrics
// as attributes (lsm patches INPUT OUTPUT.gpkg). One landscape job labels the
// raster, keeps the patch table in memory and writes the patch IDs (in
// memory when they fit the budget's kept-labels share, else on a scratch
// GeoTIFF in the scratch folder); GDAL's own polygoniser (GDALPolygonize,
// which streams the raster line by line; 8-connected regions for the 8-cell
// rule, so each patch is one polygon) turns them into polygons inside one
// transaction, and the polygons are written in PID order with their rows.
// Limits: docs/QGIS.md, "Patches on the map".
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogrsf_frmts.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include "atomic_dataset.h"
#include "atomic_output.h"
#include "class_descriptors.h"
#include "common_parameters.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "gdal_errors.h"
#include "geotiff_output.h"
#include "zone_layer_output.h"
#include "landscape_job.h"
#include "landscape_parameters.h"
#include "operations.h"
#include "paged_array.h"
#include "patch_records.h"
#include "spill_file.h"

namespace lsm::ops {

namespace {

OperationSpec patches_spec() {
  OperationSpec s;
  s.name = "patches";
  s.summary = "one polygon per patch with PID, TYPE, NAME and the patch metrics (GeoPackage)";
  s.title = "Patch polygons";
  s.category = "Landscape metrics";
  s.manual = "metrics.md";
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
          edge_depth_parameter(),
          edge_distance_parameter(),
          text("class-descriptors", "FRAGSTATS class descriptor file (ID, Name, Enabled, IsBackground) for the NAME field")
              .titled("Class descriptors")
              .with_metavar("FILE")
              .naming(PathKind::File)
              .trusted()
              .only(kCommandLine),
      },
      patch_parameters());
  return s;
}

// The patch table as the job hands it out, in PID order (background
// patches have no row): the rows' PIDs, classes and values in arrays of
// the budget's per-patch share each, on scratch files beyond it
// (paged_array.h), so that millions of patches do not stay resident.
class PatchRows {
 public:
  /// Room for `patches` rows, in arrays of at most `policy.memory_bytes` each in memory.
  void reserve(size_t patches, const PagedPolicy& policy) {
    capacity_ = patches;
    policy_ = policy;
    pids_.assign(patches, policy);
    types_.assign(patches, policy);
  }
  void add(const MetricTable& block) {
    if (columns_.empty()) {  // the columns are known with the first block
      columns_ = block.columns;
      values_.assign(capacity_ * columns_.size(), policy_);
    }
    for (const MetricTable::Row& r : block.rows) {
      if (rows_ == capacity_) throw Error(ErrorKind::Internal, "more patch rows than patches");
      pids_[rows_] = r.pid;
      types_[rows_] = r.type;
      std::copy(r.values.begin(), r.values.end(), &values_[rows_ * columns_.size()]);
      ++rows_;
    }
    release_paged_memory();
  }
  const std::vector<std::string>& columns() const { return columns_; }
  size_t rows() const { return rows_; }
  uint32_t pid(size_t row) const { return pids_[row]; }
  int32_t type(size_t row) const { return types_[row]; }
  double value(size_t row, size_t column) const { return values_[row * columns_.size() + column]; }

 private:
  std::vector<std::string> columns_;
  size_t capacity_ = 0, rows_ = 0;
  PagedPolicy policy_;
  PagedArray<uint32_t> pids_;
  PagedArray<int32_t> types_;
  PagedArray<double> values_;
};

// A folder of scratch datasets (the patch IDs and polygons beyond the
// budget) in the run's scratch folder, removed on every exit path, a signal
// included (atomic_output.h's registry).
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& temp_dir) {
    static std::atomic<unsigned> counter{0};
    path_ = temp_folder(temp_dir) + "/lsm-patches-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    std::error_code ec;
    if (!std::filesystem::create_directory(path_, ec) || ec)
      throw Error(ErrorKind::Io, "cannot create a scratch folder in '" + temp_folder(temp_dir) +
                                     "' (--temp-dir): " + (ec ? ec.message() : "it exists"));
    slot_ = register_temporary_folder(path_);
  }
  ~ScratchFolder() {
    unregister_temporary_folder(slot_);
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  int slot_ = -1;
};

struct GdalDatasetCloser {
  void operator()(GDALDataset* d) const { GDALClose(d); }
};
using OwnedDataset = std::unique_ptr<GDALDataset, GdalDatasetCloser>;

// The patch IDs written strip by strip into band 1 of a dataset.
class DatasetLabelSink final : public LabelRasterSink {
 public:
  explicit DatasetLabelSink(GDALRasterBand* band) : band_(band) {}
  void write(const Window& w, const uint32_t* ids) override {
    if (band_->RasterIO(GF_Write, static_cast<int>(w.x0), static_cast<int>(w.y0), static_cast<int>(w.width),
                        static_cast<int>(w.height), const_cast<uint32_t*>(ids), static_cast<int>(w.width),
                        static_cast<int>(w.height), GDT_UInt32, 0, 0, nullptr) != CE_None)
      throw Error(ErrorKind::Io, "cannot write the scratch patch IDs: " + gdal_failure_reason());
  }

 private:
  GDALRasterBand* band_;
};

// A dataset of `info`'s shape for the patch IDs (UInt32, nodata 0) with the
// source's georeferencing: in memory without a scratch folder, else a GeoTIFF there.
OwnedDataset patch_id_dataset(const RasterInfo& info, const GeoReference& georef, const ScratchFolder* scratch) {
  OwnedDataset d;
  if (!scratch) {
    d.reset(GetGDALDriverManager()->GetDriverByName("MEM")->Create("", static_cast<int>(info.width),
                                                                  static_cast<int>(info.height), 1, GDT_UInt32, nullptr));
  } else {
    const std::string path = scratch->file("patch-ids.tif");
    const char* options[] = {"TILED=YES", "COMPRESS=DEFLATE", "BIGTIFF=IF_SAFER", nullptr};
    d.reset(GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path.c_str(), static_cast<int>(info.width),
                                                                    static_cast<int>(info.height), 1, GDT_UInt32,
                                                                    const_cast<char**>(options)));
  }
  if (!d) throw Error(ErrorKind::Io, "cannot create the scratch patch IDs: " + gdal_failure_reason());
  d->GetRasterBand(1)->SetNoDataValue(0);
  if (georef.has_geotransform) d->SetGeoTransform(const_cast<double*>(georef.geotransform));
  if (!georef.wkt.empty()) d->SetProjection(georef.wkt.c_str());
  return d;
}

void run_patches(const ParameterValues& v, const RunContext& context) {
  const std::string input = v.text("input"), output_path = v.text("output");
  const char* driver_name = vector_output_driver(output_path, "output");
  GDALDriver* driver = GetGDALDriverManager()->GetDriverByName(driver_name);
  if (!driver) throw Error(ErrorKind::Backend, std::string("this GDAL has no ") + driver_name + " driver");
  AtomicDatasetOutput file(output_path);  // fails now if the output is not writable, or is an input
  const ProgressFn progress = context.checked_progress();
  const ClassDescriptors descriptors =
      v.given("class-descriptors") ? read_class_descriptors(v.text("class-descriptors")) : ClassDescriptors{};

  // 1. The patch table and the patch IDs, in one landscape job.
  LandscapeJobOptions job = landscape_job_options(v, context);
  job.background = descriptors.background;  // as `lsm metrics --class-descriptors`
  GdalClassRaster source(input, static_cast<int>(v.integer("band")));
  use_given_nodata(source, v);
  source.require_measurable_cells();
  note_measurement(source, input, context);
  const RasterInfo info = source.info();
  const bool ids_in_memory = job.budget.holds_labels(double(info.width) * double(info.height));
  std::optional<ScratchFolder> scratch;  // beyond the budget only
  if (!ids_in_memory) scratch.emplace(job.budget.temp_dir);
  OwnedDataset id_raster = patch_id_dataset(info, georeference_of(source.dataset()), scratch ? &*scratch : nullptr);
  const std::map<int32_t, std::string> names = descriptors.names.empty() ? source.class_names() : descriptors.names;
  PatchRows table;
  const PagedPolicy per_patch{job.budget.share(BudgetShare::PatchArray), job.budget.temp_dir};
  job.after_scan = [&](const PatchTable& records) { table.reserve(patch_count(records), per_patch); };
  DatasetLabelSink id_sink(id_raster->GetRasterBand(1));
  LandscapeSinks sinks;
  sinks.patch_rows = [&table](const MetricTable& block) { table.add(block); };
  sinks.patch_ids = &id_sink;
  run_landscape_job(source, job, sinks, scaled_progress(progress, 0.0, 0.6));

  // 2. GDAL's polygoniser on the patch IDs, into a layer in memory or, beyond
  // the budget, a scratch GeoPackage, inside one transaction.
  HeldGdalMessages held;
  GDALRasterBand* id_band = id_raster->GetRasterBand(1);
  OwnedDataset polygons;
  if (!scratch) {
    polygons.reset(GetGDALDriverManager()->GetDriverByName("Memory")->Create("", 0, 0, 0, GDT_Unknown, nullptr));
  } else {
    polygons.reset(GetGDALDriverManager()->GetDriverByName("GPKG")->Create(scratch->file("polygons.gpkg").c_str(), 0,
                                                                          0, 0, GDT_Unknown, nullptr));
  }
  if (!polygons) throw Error(ErrorKind::Io, "cannot create the scratch polygons: " + gdal_failure_reason());
  // GDAL 3.6 takes a mutable SRS; a clone, released with the run.
  OGRSpatialReference* srs = source.dataset()->GetSpatialRef() ? source.dataset()->GetSpatialRef()->Clone() : nullptr;
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
  // One transaction: a GeoPackage commits once instead of once per polygon.
  const bool transaction = polygons->StartTransaction() == OGRERR_NONE;
  if (GDALPolygonize(id_band, id_band->GetMaskBand(), raw, 0, const_cast<char**>(options), gdal_progress, &arg) !=
      CE_None) {
    if (progress && !progress(0.9)) throw Error(ErrorKind::Io, "interrupted");
    throw Error(ErrorKind::Io, "polygonising the patch IDs failed: " + gdal_failure_reason());
  }
  if (transaction && polygons->CommitTransaction() != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot write the scratch polygons: " + gdal_failure_reason());
  id_raster.reset();

  // Each PID's polygon (its feature ID; 8 bytes a patch, paged beyond the budget).
  const uint32_t max_pid = table.rows() ? table.pid(table.rows() - 1) : 0;
  PagedArray<int64_t> fid_of_pid(size_t(max_pid) + 1, per_patch);
  raw->ResetReading();
  for (auto& feature : *raw) {
    const int64_t p = feature->GetFieldAsInteger64(0);
    if (p < 1) throw Error(ErrorKind::Internal, "a polygon of PID " + std::to_string(p));
    if (p <= int64_t(max_pid)) fid_of_pid[size_t(p)] = feature->GetFID() + 1;  // 0: no polygon
  }

  // 3. The output: the polygons in PID order with the patch table's attributes.
  OwnedDataset out(driver->Create(file.temp_path().c_str(), 0, 0, 0, GDT_Unknown, nullptr));
  if (!out) throw Error(ErrorKind::Io, "cannot create '" + output_path + "': " + gdal_failure_reason());
  // GeoJSON is WGS 84 longitude/latitude (RFC 7946): GDAL reprojects the
  // polygons, where a projected CRS would otherwise be written without one
  // (no EPSG code) and read as degrees.
  const std::string driver_text = driver_name;
  const char* layer_options[] = {driver_text == "GPKG"      ? "FID=fid"
                                 : driver_text == "GeoJSON" ? "RFC7946=YES"
                                                            : nullptr,
                                 nullptr};
  OGRLayer* layer = out->CreateLayer(std::filesystem::path(output_path).stem().string().c_str(),
                                     srs, wkbPolygon, const_cast<char**>(layer_options));
  if (!layer) throw Error(ErrorKind::Io, "cannot create a layer in '" + output_path + "': " + gdal_failure_reason());
  OGRFieldDefn pid("PID", OFTInteger64), type("TYPE", OFTInteger), name("NAME", OFTString);
  layer->CreateField(&pid);
  layer->CreateField(&type);
  if (!names.empty()) layer->CreateField(&name);
  for (const std::string& c : table.columns()) {
    OGRFieldDefn field(c.c_str(), OFTReal);
    layer->CreateField(&field);
  }
  const int first_metric = names.empty() ? 2 : 3;
  if (layer->StartTransaction() != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot write '" + output_path + "': " + gdal_failure_reason());
  const size_t total = table.rows();
  for (size_t row = 0; row < total; ++row) {
    const uint32_t p = table.pid(row);
    const int64_t fid = fid_of_pid[p] - 1;
    std::unique_ptr<OGRFeature> polygon(fid >= 0 ? raw->GetFeature(fid) : nullptr);
    if (!polygon) throw Error(ErrorKind::Internal, "patch " + std::to_string(p) + " has no polygon");
    OGRFeature f(layer->GetLayerDefn());
    f.SetGeometry(polygon->GetGeometryRef());
    f.SetField(0, static_cast<GIntBig>(p));
    f.SetField(1, table.type(row));
    if (!names.empty()) {
      const auto n = names.find(table.type(row));
      if (n != names.end()) f.SetField(2, n->second.c_str());
    }
    for (size_t i = 0; i < table.columns().size(); ++i)
      if (const double x = table.value(row, i); !std::isnan(x)) f.SetField(first_metric + static_cast<int>(i), x);
    if (layer->CreateFeature(&f) != OGRERR_NONE)
      throw Error(ErrorKind::Io, "cannot write '" + output_path + "': " + gdal_failure_reason());
    if ((row + 1) % 65536 == 0) {
      release_paged_memory();  // the rows and polygon IDs done stay in their files
      if (progress && !progress(0.9 + 0.1 * double(row + 1) / double(total))) throw Error(ErrorKind::Io, "interrupted");
    }
  }
  if (layer->CommitTransaction() != OGRERR_NONE)
    throw Error(ErrorKind::Io, "cannot write '" + output_path + "': " + gdal_failure_reason());
  out.reset();
  file.commit();
  if (progress) progress(1.0);
}

}  // namespace

Operation patches_operation() { return {patches_spec(), run_patches}; }

}  // namespace lsm::ops
