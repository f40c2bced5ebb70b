#include "derived_raster.h"

#include <gdal_priv.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <limits>

#include <cpl_conv.h>

#include "error.h"
#include "gdal_class_raster.h"
#include "gdal_feature_raster.h"
#include "gradient.h"
#include "grey.h"
#include "pyramid.h"

namespace lsm::gdal_plugin {

namespace {

// Copies block (bx, by) of a width x height raster of `T` from `rows`, which
// holds its rows from `first_row` on (full width) in memory.
template <class T>
void copy_block(const T* rows, int64_t first_row, int64_t width, int64_t height, int bw, int bh, int64_t bx,
                int64_t by, void* out) {
  const int64_t x0 = bx * bw, y0 = by * bh;
  const int64_t w = std::min<int64_t>(bw, width - x0), h = std::min<int64_t>(bh, height - y0);
  for (int64_t r = 0; r < h; ++r)
    std::memcpy(static_cast<T*>(out) + r * bw, rows + (y0 + r - first_row) * width + x0,
                sizeof(T) * static_cast<size_t>(w));
}

// LSM:label, patchmetric, kmeans, hog and fuzzy: the operation's own run
// (the one `lsm <operation>` makes) writes a temporary GeoTIFF, streamed
// through the engine, from which blocks are read; it is deleted with the
// dataset. label and patchmetric know their raster's shape from the source
// and run on the first read; kmeans, hog and fuzzy run when opened, their
// shape (bands, type, size) being the result's.
class OperationRaster final : public DerivedRaster {
 public:
  /// Runs on the first read, the shape given (label, patchmetric).
  OperationRaster(const Connection& c, GDALDataType cell_type, double nodata_value, std::string band_name)
      : operation_(c.operation), values_(c.values) {
    GdalClassRaster source(c.path, static_cast<int>(c.values.integer("band")));  // checks the source now
    const RasterInfo info = source.info();
    width = info.width;
    height = info.height;
    type = cell_type;
    nodata = nodata_value;
    georef = georeference_of(source.dataset());
    source.dataset()->GetRasterBand(static_cast<int>(c.values.integer("band")))->GetBlockSize(&block_width, &block_height);
    band_names = {std::move(band_name)};
  }
  /// Runs now; the shape is the result's (kmeans, hog, fuzzy).
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
    operation_.run(values_, context);
    result_ = GDALOpen(result_path_.c_str(), GA_ReadOnly);
    if (!result_) throw Error(ErrorKind::Io, "cannot open the temporary result '" + result_path_ + "'");
  }

  const ops::Operation& operation_;
  ops::ParameterValues values_;
  std::string result_path_;
  GDALDatasetH result_ = nullptr;
};

// LSM:gradient: the four bands of `lsm gradient`, computed a strip of rows
// (one block row, full width, with its halo) at a time.
class GradientRaster final : public DerivedRaster {
 public:
  explicit GradientRaster(const Connection& c)
      : grey_(c.values.flag("grey")),
        source_(c.path, grey_ ? std::vector<int>{1, 2, 3} : std::vector<int>{static_cast<int>(c.values.given("band") ? c.values.integer("band") : 1)}),
        grey_levels_(source_, 1.0),
        kernels_(gradient_kernels(c.values.number("sigma"), static_cast<int>(c.values.integer("radius")))),
        pass_(make_gradient_pass(parse_backend(c.values.text("backend")))) {
    if (grey_ && c.values.given("band")) throw Error(ErrorKind::BadInput, "options grey and band exclude each other");
    const FeatureRasterInfo info = source_.info();
    width = info.width;
    height = info.height;
    bands = kGradientPlanes;
    type = GDT_Float32;
    nodata = std::numeric_limits<double>::quiet_NaN();
    block_width = info.block_width;
    block_height = info.block_height;
    georef = georeference_of(source_.dataset());
    band_names = {"gx", "gy", "magnitude", "orientation"};
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    if (by != strip_) {
      const int64_t y0 = by * block_height, rows = std::min<int64_t>(block_height, height - y0);
      FeatureRasterSource& source = grey_ ? static_cast<FeatureRasterSource&>(grey_levels_) : source_;
      read_padded_rows(source, y0, rows, kernels_.radius, padded_);
      planes_.resize(static_cast<size_t>(kGradientPlanes * rows * width));
      pass_->run(kernels_, padded_.data(), width, rows, planes_.data());
      strip_ = by;
    }
    const int64_t rows = std::min<int64_t>(block_height, height - by * block_height);
    copy_block(planes_.data() + (band - 1) * rows * width, by * block_height, width, height, block_width,
               block_height, bx, by, out);
  }

 private:
  bool grey_;
  GdalFeatureRaster source_;
  GreyFeatureRaster grey_levels_;
  GradientKernels kernels_;
  std::unique_ptr<GradientPass> pass_;
  int64_t strip_ = -1;
  std::vector<float> padded_, planes_;
};

// LSM:pyramid: one level of `lsm pyramid` (resampled from the base, every
// band, Float32, cells scaled), served window by window: a level streams.
class PyramidRaster final : public DerivedRaster {
 public:
  explicit PyramidRaster(const Connection& c)
      : source_(c.path, {}), pass_(make_pyramid_pass(parse_backend(c.values.text("backend")))) {
    PyramidOptions o;
    o.scale = c.values.number("scale");
    o.resampling = parse_resampling(c.values.text("resampling"));
    const long long level = c.values.integer("level");
    o.levels = static_cast<int>(level) + 1;
    const FeatureRasterInfo info = source_.info();
    const auto sizes = pyramid_sizes(info.width, info.height, o);  // refuses levels below one cell
    width = sizes.back().first;
    height = sizes.back().second;
    level_ = std::make_unique<PyramidLevelRaster>(source_, width, height, o.resampling, *pass_);
    bands = info.bands;
    type = GDT_Float32;
    nodata = std::numeric_limits<double>::quiet_NaN();
    block_width = static_cast<int>(std::min<int64_t>(256, width));
    block_height = static_cast<int>(std::min<int64_t>(256, height));
    georef = scale_cells(georeference_of(source_.dataset()), double(info.width) / width, double(info.height) / height);
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    const Window w{bx * block_width, by * block_height, std::min<int64_t>(block_width, width - bx * block_width),
                   std::min<int64_t>(block_height, height - by * block_height)};
    if (bx != cached_x_ || by != cached_y_) {  // all bands of the window at once
      cells_.resize(static_cast<size_t>(w.width * w.height * bands));
      level_->read(w, cells_.data());
      cached_x_ = bx;
      cached_y_ = by;
    }
    for (int64_t r = 0; r < w.height; ++r)
      for (int64_t x = 0; x < w.width; ++x)
        static_cast<float*>(out)[r * block_width + x] = cells_[static_cast<size_t>((r * w.width + x) * bands + band - 1)];
  }

 private:
  GdalFeatureRaster source_;
  std::unique_ptr<PyramidPass> pass_;
  std::unique_ptr<PyramidLevelRaster> level_;
  int64_t cached_x_ = -1, cached_y_ = -1;
  std::vector<float> cells_;
};

}  // namespace

std::unique_ptr<DerivedRaster> open_derived_raster(const Connection& c) {
  const std::string& op = c.operation.spec.name;
  if (op == "label") return std::make_unique<OperationRaster>(c, GDT_UInt32, 0.0, "patch_id");
  if (op == "patchmetric") {
    std::string metric = c.values.text("metric");
    for (char& ch : metric) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return std::make_unique<OperationRaster>(c, GDT_Float64, std::numeric_limits<double>::quiet_NaN(), metric);
  }
  if (op == "gradient") return std::make_unique<GradientRaster>(c);
  if (op == "fuzzy" || op == "kmeans" || op == "hog") return std::make_unique<OperationRaster>(c);
  if (op == "pyramid") return std::make_unique<PyramidRaster>(c);
  throw Error(ErrorKind::BadInput, "unknown LSM operation '" + op + "'");
}

}  // namespace lsm::gdal_plugin
