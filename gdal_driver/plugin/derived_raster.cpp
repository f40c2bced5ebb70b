#include "derived_raster.h"

#include <gdal_priv.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>

#include "error.h"
#include "cpl_conv.h"
#include "fuzzy_connectedness.h"
#include "gdal_class_raster.h"
#include "gdal_feature_raster.h"
#include "gdal_volume.h"
#include "gradient.h"
#include "kmeans.h"
#include "kmeans_pass.h"
#include "grey.h"
#include "hog.h"
#include "fragstats_metrics.h"
#include "patch_row_metrics.h"
#include "patch_scan.h"
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

// LSM:label and LSM:patchmetric: the operation's own run (the one `lsm
// label` and `lsm patchmetric` make) writes a temporary GeoTIFF on the first
// read, streamed strip by strip through the engine; blocks are served from
// it, and it is deleted with the dataset.
class OperationRaster final : public DerivedRaster {
 public:
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
  ~OperationRaster() override {
    if (result_) GDALClose(result_);
    if (!result_path_.empty()) VSIUnlink(result_path_.c_str());
  }
  void read_block(int, int64_t bx, int64_t by, void* out) override {
    if (!result_) compute();
    const int64_t x0 = bx * block_width, y0 = by * block_height;
    const int w = static_cast<int>(std::min<int64_t>(block_width, width - x0));
    const int h = static_cast<int>(std::min<int64_t>(block_height, height - y0));
    const int size = GDALGetDataTypeSizeBytes(type);
    if (GDALRasterIO(GDALGetRasterBand(result_, 1), GF_Read, static_cast<int>(x0), static_cast<int>(y0), w, h, out, w, h,
                     type, size, size * block_width) != CE_None)
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

// LSM:kmeans: the classes of `lsm kmeans` (UInt16 cluster + 1, 0 = nodata),
// fitted and assigned on the first read. Bands: all but alpha; color_space=lab
// clusters 8-bit RGB in CIE L*a*b* as the CLI does.
class KMeansRaster final : public DerivedRaster {
 public:
  explicit KMeansRaster(const Connection& c)
      : source_(c.path, {}), pass_(make_kmeans_pass(parse_backend(c.values.text("backend")))) {
    options_.k = static_cast<int>(c.values.integer("k"));
    options_.seed = static_cast<uint64_t>(c.values.integer("seed"));
    options_.n_init = static_cast<int>(c.values.integer("n-init"));
    options_.max_iter = static_cast<int>(c.values.integer("max-iter"));
    const std::string space = c.values.text("color-space");
    if (space == "lab") {
      if (source_.info().bands != 3 || !source_.all_bands_byte())
        throw Error(ErrorKind::BadInput, "color_space=lab needs 3 Byte bands (R, G, B)");
      lab_ = std::make_unique<LabFeatureRaster>(source_);
    }
    const FeatureRasterInfo info = source_.info();
    width = info.width;
    height = info.height;
    type = GDT_UInt16;
    nodata = 0.0;
    block_width = info.block_width;
    block_height = info.block_height;
    georef = georeference_of(source_.dataset());
    band_names = {"class"};
  }
  void read_block(int, int64_t bx, int64_t by, void* out) override {
    if (classes_.empty()) {
      classes_.assign(static_cast<size_t>(width * height), 0);
      FeatureRasterSource& features = lab_ ? static_cast<FeatureRasterSource&>(*lab_) : source_;
      run_kmeans(features, options_, *pass_, [&](const Window& w, const uint16_t* l) {
        for (int64_t r = 0; r < w.height; ++r)
          std::copy_n(l + r * w.width, w.width, classes_.data() + (w.y0 + r) * width + w.x0);
      });
    }
    copy_block(classes_.data(), 0, width, height, block_width, block_height, bx, by, out);
  }

 private:
  GdalFeatureRaster source_;
  std::unique_ptr<LabFeatureRaster> lab_;
  std::unique_ptr<KMeansPass> pass_;
  KMeansOptions options_;
  std::vector<uint16_t> classes_;
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

// LSM:hog: `lsm hog`'s descriptor raster (one band per descriptor element,
// one cell per block position, Float32), computed on the first read.
class HogRaster final : public DerivedRaster {
 public:
  explicit HogRaster(const Connection& c)
      : source_(c.path, bands_of(c)), pass_(make_hog_pass(parse_backend(c.values.text("backend")))) {
    o_.cell = static_cast<int>(c.values.integer("cell"));
    o_.block = static_cast<int>(c.values.integer("block"));
    o_.bins = static_cast<int>(c.values.integer("bins"));
    o_.signed_orientation = c.values.flag("signed");
    o_.norm = parse_hog_norm(c.values.text("norm"));
    o_.variant = parse_hog_variant(c.values.text("variant"));
    o_.window_sigma = c.values.number("window-sigma");
    // As lsm hog: skimage on [0, 1] grey levels, Dalal-Triggs on the stored values.
    o_.value_divisor = o_.variant == HogVariant::Skimage ? source_.unit_range_divisor() : 1.0;
    const FeatureRasterInfo info = source_.info();
    geometry_ = hog_geometry(info.width, info.height, o_);  // refuses images smaller than a block
    width = geometry_.blocks_x;
    height = geometry_.blocks_y;
    bands = geometry_.descriptor_length;
    type = GDT_Float32;
    nodata = std::numeric_limits<double>::quiet_NaN();
    block_width = static_cast<int>(std::min<int64_t>(256, width));
    block_height = static_cast<int>(std::min<int64_t>(256, height));
    georef = scale_cells(georeference_of(source_.dataset()), o_.cell, o_.cell);
    for (int e = 0; e < bands; ++e) {
      const int cell = e / o_.bins, bin = e % o_.bins;
      band_names.push_back("cell " + std::to_string(cell / o_.block) + "," + std::to_string(cell % o_.block) + " bin " +
                           std::to_string(bin));
    }
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    if (planes_.empty()) {
      planes_.resize(static_cast<size_t>(width * height * bands));
      run_hog(source_, o_, *pass_, [&](int64_t first, int64_t rows, const double* d) {
        for (int64_t i = 0; i < rows * width; ++i)
          for (int e = 0; e < bands; ++e)
            planes_[static_cast<size_t>(e * width * height + first * width + i)] = static_cast<float>(d[i * bands + e]);
      });
    }
    copy_block(planes_.data() + (band - 1) * width * height, 0, width, height, block_width, block_height, bx, by, out);
  }

 private:
  // As lsm hog: band=N, else the grey levels of bands 1-3, or band 1 of a 1-band input.
  static std::vector<int> bands_of(const Connection& c) {
    if (c.values.given("band")) return {static_cast<int>(c.values.integer("band"))};
    GdalFeatureRaster probe(c.path, {});
    return probe.info().bands >= 3 ? std::vector<int>{1, 2, 3} : std::vector<int>{1};
  }
  GdalFeatureRaster source_;
  std::unique_ptr<HogPass> pass_;
  HogOptions o_;
  HogGeometry geometry_;
  std::vector<float> planes_;
};

// seeds=X,Y[,Z];X,Y[,Z]... (already split at ';').
std::vector<Voxel> parse_seeds(const std::vector<std::string>& texts, bool volume) {
  std::vector<Voxel> seeds;
  for (const std::string& item : texts) {
    std::istringstream in(item);
    Voxel v;
    char c1 = 0, c2 = 0;
    bool ok = static_cast<bool>(in >> v.x >> c1 >> v.y) && c1 == ',';
    if (ok && volume) ok = static_cast<bool>(in >> c2 >> v.z) && c2 == ',';
    if (!ok || !(in >> std::ws).eof())
      throw Error(ErrorKind::BadInput, "option seeds: bad seed '" + item + "' (expected " + (volume ? "X,Y,Z" : "X,Y") +
                                           ", seeds separated by ';')");
    seeds.push_back(v);
  }
  if (seeds.empty()) throw Error(ErrorKind::BadInput, "LSM:fuzzy needs the option seeds=X,Y[,Z][;X,Y[,Z]...]");
  return seeds;
}

// LSM:fuzzy: the connectivity scene of `lsm fuzzy` (Float32, band k = slice k
// with volume=YES), computed on the first read.
class FuzzyRaster final : public DerivedRaster {
 public:
  explicit FuzzyRaster(const Connection& c) : engine_(make_fuzzy_engine(parse_backend(c.values.text("backend")))) {
    const bool volume = c.values.flag("volume");
    image_ = read_volume(c.path, volume, static_cast<int>(c.values.given("band") ? c.values.integer("band") : 1));
    seeds_ = parse_seeds(c.values.texts("seed"), volume);
    check_seeds(image_.view(), seeds_);
    ObjectStatistics stats;
    if (!c.values.given("mean") || !c.values.given("sd") || !c.values.given("sd-diff"))
      stats = estimate_object_statistics(image_.view(), seeds_, c.values.integer("seed-radius"));
    stats.mean = c.values.optional_number("mean").value_or(stats.mean);
    stats.sd = c.values.optional_number("sd").value_or(stats.sd);
    stats.sd_diff = c.values.optional_number("sd-diff").value_or(stats.sd_diff);
    const long long adjacency = c.values.given("adjacency") ? c.values.integer("adjacency") : (volume ? 6 : 4);
    if (adjacency != (volume ? 6 : 4) && adjacency != (volume ? 26 : 8))
      throw Error(ErrorKind::BadInput, std::string("option adjacency must be ") + (volume ? "6 or 26" : "4 or 8"));
    affinity_ = affinity_parameters(stats, adjacency == (volume ? 6 : 4) ? Adjacency::Face : Adjacency::Full);
    width = image_.width;
    height = image_.height;
    bands = static_cast<int>(image_.depth);
    type = GDT_Float32;
    nodata = std::numeric_limits<double>::quiet_NaN();
    georef = image_.georef;
    metadata["FUZZY_OBJECT_MEAN"] = std::to_string(stats.mean);
    metadata["FUZZY_OBJECT_SD"] = std::to_string(stats.sd);
    metadata["FUZZY_OBJECT_SD_DIFF"] = std::to_string(stats.sd_diff);
  }
  void read_block(int band, int64_t bx, int64_t by, void* out) override {
    if (scene_.empty()) {
      scene_.resize(image_.values.size());
      engine_->run(image_.view(), affinity_, seeds_, scene_.data());
      for (size_t i = 0; i < scene_.size(); ++i)
        if (std::isnan(image_.values[i])) scene_[i] = std::numeric_limits<float>::quiet_NaN();
    }
    copy_block(scene_.data() + (band - 1) * width * height, 0, width, height, block_width, block_height, bx, by, out);
  }

 private:
  std::unique_ptr<FuzzyEngine> engine_;
  LoadedVolume image_;
  std::vector<Voxel> seeds_;
  AffinityParameters affinity_;
  std::vector<float> scene_;
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
  if (op == "fuzzy") return std::make_unique<FuzzyRaster>(c);
  if (op == "kmeans") return std::make_unique<KMeansRaster>(c);
  if (op == "pyramid") return std::make_unique<PyramidRaster>(c);
  if (op == "hog") return std::make_unique<HogRaster>(c);
  throw Error(ErrorKind::BadInput, "unknown LSM operation '" + op + "'");
}

}  // namespace lsm::gdal_plugin
