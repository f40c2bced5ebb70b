#include "derived_raster.h"

#include <gdal_priv.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <mutex>

#include <cpl_conv.h>

#include "atomic_output.h"  // remove_temporary_outputs_now
#include "error.h"
#include "geotiff_output.h"  // georeference_of

namespace lsm::gdal_plugin {

namespace {

// A GDAL tool (gdal_translate LSM:label:...) leaves SIGINT, SIGTERM and SIGHUP
// at their default: the process ends at once, and an operation running for
// a read would leave its temporary outputs in the temporary folder. While
// runs are under way, where the host left a signal at its default, the
// handler removes them (the registry of atomic_output.h, which holds the
// finished result until it is opened) and then lets the signal end the
// process as it would have. A host with handlers of its own (QGIS, Python)
// keeps them: it ends the run its own way.
constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporaries_then_end(int signal_number) {
  remove_temporary_outputs_now();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

class TemporariesRemovedOnSignal {
 public:
  TemporariesRemovedOnSignal() {
    const std::lock_guard<std::mutex> lock(state().mutex);
    if (state().runs++ > 0) return;  // the first run installs, the last restores
    for (size_t i = 0; i < std::size(kEndingSignals); ++i) {
      struct sigaction current {};
      state().installed[i] = false;
      if (::sigaction(kEndingSignals[i], nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction ours {};
      ours.sa_handler = remove_temporaries_then_end;
      sigemptyset(&ours.sa_mask);
      state().installed[i] = ::sigaction(kEndingSignals[i], &ours, nullptr) == 0;
    }
  }
  ~TemporariesRemovedOnSignal() {
    const std::lock_guard<std::mutex> lock(state().mutex);
    if (--state().runs > 0) return;
    for (size_t i = 0; i < std::size(kEndingSignals); ++i)
      if (state().installed[i]) ::signal(kEndingSignals[i], SIG_DFL);
  }
  TemporariesRemovedOnSignal(const TemporariesRemovedOnSignal&) = delete;
  TemporariesRemovedOnSignal& operator=(const TemporariesRemovedOnSignal&) = delete;

 private:
  struct State {
    std::mutex mutex;
    int runs = 0;
    bool installed[std::size(kEndingSignals)] = {};
  };
  static State& state() {
    static State s;
    return s;
  }
};

GDALDataType gdal_type(ops::CellType type) {
  switch (type) {
    case ops::CellType::Byte: return GDT_Byte;
    case ops::CellType::UInt16: return GDT_UInt16;
    case ops::CellType::UInt32: return GDT_UInt32;
    case ops::CellType::Float32: return GDT_Float32;
    case ops::CellType::Float64: return GDT_Float64;
  }
  return GDT_Unknown;
}

// Takes a declared shape.
void take_shape(DerivedRaster& r, const ops::RasterShape& s) {
  r.width = s.width;
  r.height = s.height;
  r.bands = s.bands;
  r.type = gdal_type(s.type);
  r.block_width = s.block_width;
  r.block_height = s.block_height;
  r.nodata = s.nodata;
  r.georef = s.georef;
  r.band_names = s.band_names;
  r.metadata = s.metadata;
}

// An operation that streams (its declaration's serving.streamed): blocks as
// the operation computes them.
class StreamedOperationRaster final : public DerivedRaster {
 public:
  explicit StreamedOperationRaster(std::unique_ptr<ops::StreamedRaster> raster) : raster_(std::move(raster)) {
    take_shape(*this, raster_->shape);
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override { raster_->read_block(band, bx, by, out); }

 private:
  std::unique_ptr<ops::StreamedRaster> raster_;
};

// An operation that does not stream: its own run (the one `lsm <operation>`
// makes) writes a temporary GeoTIFF, streamed through the engine, from which
// blocks are read; it is deleted with the dataset. With a shape declared
// before the run (serving.shape_before_run: label, patchmetric) it runs on
// the first read; else when opened, the shape (bands, type, size) being the
// result's (kmeans, hog, fuzzy).
class OperationRaster final : public DerivedRaster {
 public:
  /// Runs on the first read, the shape given.
  OperationRaster(const Connection& c, const ops::RasterShape& shape) : operation_(c.operation), values_(c.values) {
    take_shape(*this, shape);
  }
  /// Runs now; the shape is the result's.
  explicit OperationRaster(const Connection& c) : operation_(c.operation), values_(c.values) {
    compute();
    GDALDataset* result = GDALDataset::FromHandle(result_);
    width = result->GetRasterXSize();
    height = result->GetRasterYSize();
    bands = result->GetRasterCount();
    GDALRasterBand* first = result->GetRasterBand(1);
    type = first->GetRasterDataType();
    int has_nodata = 0;
    const double value = first->GetNoDataValue(&has_nodata);
    if (has_nodata) nodata = value;
    first->GetBlockSize(&block_width, &block_height);
    georef = georeference_of(result);
    for (int b = 1; b <= bands; ++b) band_names.push_back(result->GetRasterBand(b)->GetDescription());
    for (char** item = result->GetMetadata(); item && *item; ++item) {
      const std::string text = *item;
      const size_t eq = text.find('=');
      if (eq != std::string::npos) metadata[text.substr(0, eq)] = text.substr(eq + 1);
    }
  }
  ~OperationRaster() override {
    if (result_) GDALClose(result_);
    if (!result_path_.empty()) VSIUnlink(result_path_.c_str());
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    if (!result_) compute();
    const int64_t x0 = bx * block_width, y0 = by * block_height;
    const int w = static_cast<int>(std::min<int64_t>(block_width, width - x0));
    const int h = static_cast<int>(std::min<int64_t>(block_height, height - y0));
    const int size = GDALGetDataTypeSizeBytes(type);
    if (GDALRasterIO(GDALGetRasterBand(result_, band), GF_Read, static_cast<int>(x0), static_cast<int>(y0), w, h, out,
                     w, h, type, size, size * block_width) != CE_None)
      throw Error(ErrorKind::Io, "cannot read the temporary result '" + result_path_ + "'");
  }

 private:
  void compute() {
    const char* folder = CPLGetConfigOption("CPL_TMPDIR", nullptr);
    const std::string dir = folder ? folder : std::filesystem::temp_directory_path().string();
    // GDAL's unique name (process ID and a counter), in CPL_TMPDIR or the system's folder.
    const std::string name = CPLGetFilename(CPLGenerateTempFilename(("lsm_" + operation_.spec.name).c_str()));
    result_path_ = CPLFormFilename(dir.c_str(), name.c_str(), "tif");
    values_.set("output", result_path_);
    ops::RunContext context;
    context.quiet = true;
    const TemporariesRemovedOnSignal cleanup;
    const int slot = register_temporary_file(result_path_);  // from its commit to its unlinking below
    try {
      operation_.run(values_, context);
      result_ = GDALOpen(result_path_.c_str(), GA_ReadOnly);
    } catch (...) {
      unregister_temporary_file(slot);
      throw;
    }
    // Open, the file needs no name any more: unlinked now, its blocks stay
    // readable through the open handle and nothing is left on disk however
    // the process ends.
    VSIUnlink(result_path_.c_str());
    unregister_temporary_file(slot);
    if (!result_) throw Error(ErrorKind::Io, "cannot open the temporary result '" + result_path_ + "'");
  }

  const ops::Operation& operation_;
  ops::ParameterValues values_;
  std::string result_path_;
  GDALDatasetH result_ = nullptr;
};

}  // namespace

std::unique_ptr<DerivedRaster> open_derived_raster(const Connection& c) {
  const ops::RasterServing& serving = c.operation.spec.serving;
  if (serving.streamed) return std::make_unique<StreamedOperationRaster>(serving.streamed(c.values));
  if (serving.shape_before_run) return std::make_unique<OperationRaster>(c, serving.shape_before_run(c.values));
  return std::make_unique<OperationRaster>(c);
}

}  // namespace lsm::gdal_plugin
