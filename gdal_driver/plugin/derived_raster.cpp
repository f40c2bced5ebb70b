#include "derived_raster.h"

#include <gdal_priv.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "error.h"
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

// Collects the patch-ID raster in memory.
class MemoryLabelSink final : public LabelRasterSink {
 public:
  MemoryLabelSink(std::vector<uint32_t>& ids, int64_t width) : ids_(ids), width_(width) {}
  void write(const Window& w, const uint32_t* labels) override {
    for (int64_t r = 0; r < w.height; ++r)
      std::copy_n(labels + r * w.width, w.width, ids_.data() + (w.y0 + r) * width_ + w.x0);
  }

 private:
  std::vector<uint32_t>& ids_;
  int64_t width_;
};

// LSM:label: the patch IDs of `lsm label` (UInt32, 0 = nodata).
class LabelRaster final : public DerivedRaster {
 public:
  explicit LabelRaster(const Connection& c)
      : source_(c.path, static_cast<int>(c.get_integer("band", 1))), backend_(parse_backend(c.get("backend", "auto"))) {
    const long long neighbors = c.get_integer("neighbors", 8);
    if (neighbors != 4 && neighbors != 8) throw Error(ErrorKind::BadInput, "option neighbors must be 4 or 8");
    scan_.rule = neighbors == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
    scan_.keep_patch_ids = true;
    const RasterInfo info = source_.info();
    width = info.width;
    height = info.height;
    type = GDT_UInt32;
    nodata = 0.0;
    georef = georeference_of(source_.dataset());
    source_.dataset()->GetRasterBand(static_cast<int>(c.get_integer("band", 1)))->GetBlockSize(&block_width, &block_height);
    band_names = {"patch_id"};
  }
  void read_block(int, int64_t bx, int64_t by, void* out) override {
    if (ids_.empty()) {
      auto labeler = make_labeler(backend_);
      const PatchTable table = scan_patches(source_, *labeler, scan_);
      ids_.assign(static_cast<size_t>(width * height), 0);
      MemoryLabelSink sink(ids_, width);
      write_patch_ids(source_, *labeler, table, sink);
    }
    copy_block(ids_.data(), 0, width, height, block_width, block_height, bx, by, out);
  }

 private:
  GdalClassRaster source_;
  Backend backend_;
  ScanOptions scan_;
  std::vector<uint32_t> ids_;
};

// LSM:patchmetric: each cell holds a FRAGSTATS patch metric of its patch
// (Float64; NaN on nodata and background), computed on the first read from
// the same scan and second pass as `lsm metrics` (its patch table's values).
class PatchMetricRaster final : public DerivedRaster {
 public:
  explicit PatchMetricRaster(const Connection& c)
      : source_(c.path, static_cast<int>(c.get_integer("band", 1))), backend_(parse_backend(c.get("backend", "auto"))) {
    metric_ = c.get("metric");
    for (char& ch : metric_) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (metric_.empty()) throw Error(ErrorKind::BadInput, "LSM:patchmetric needs the option metric=<patch metric acronym>, e.g. metric=AREA");
    const long long neighbors = c.get_integer("neighbors", 8);
    if (neighbors != 4 && neighbors != 8) throw Error(ErrorKind::BadInput, "option neighbors must be 4 or 8");
    scan_.rule = neighbors == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
    scan_.keep_patch_ids = true;
    row_options_.edge_depth = static_cast<int>(c.get_integer("edge_depth", 1));
    if (row_options_.edge_depth < 1) throw Error(ErrorKind::BadInput, "option edge_depth must be at least 1 cell");
    row_options_.want_enn = metric_ == "ENN";
    // The patch table's columns, known without computing: those of an empty table.
    const FragstatsMetrics empty = compute_fragstats_metrics(PatchTable{}, PatchRowResults{}, MetricOptions{});
    const auto& columns = empty.patch.columns;
    const auto at = std::find(columns.begin(), columns.end(), metric_);
    if (at == columns.end()) {
      std::string known;
      for (const std::string& name : columns)
        if (name != "PID" && name != "TYPE") known += (known.empty() ? "" : ", ") + name;
      throw Error(ErrorKind::BadInput, "option metric=" + metric_ + " is not a patch metric (expected one of " + known + ")");
    }
    column_ = static_cast<size_t>(at - columns.begin());
    const RasterInfo info = source_.info();
    width = info.width;
    height = info.height;
    type = GDT_Float64;
    nodata = std::numeric_limits<double>::quiet_NaN();
    georef = georeference_of(source_.dataset());
    source_.dataset()->GetRasterBand(static_cast<int>(c.get_integer("band", 1)))->GetBlockSize(&block_width, &block_height);
    band_names = {metric_};
  }
  void read_block(int, int64_t bx, int64_t by, void* out) override {
    if (values_.empty()) compute();
    copy_block(values_.data(), 0, width, height, block_width, block_height, bx, by, out);
  }

 private:
  void compute() {
    auto labeler = make_labeler(backend_);
    const PatchTable table = scan_patches(source_, *labeler, scan_);
    std::vector<uint32_t> ids(static_cast<size_t>(width * height), 0);
    MemoryLabelSink sink(ids, width);
    const PatchRowResults rows = compute_patch_row_metrics(source_, *labeler, table, row_options_, &sink);
    const FragstatsMetrics m = compute_fragstats_metrics(table, rows, MetricOptions{});
    std::vector<double> by_pid(table.patches.size() + 1, std::numeric_limits<double>::quiet_NaN());
    for (const MetricTable::Row& r : m.patch.rows)
      if (r.pid < by_pid.size()) by_pid[r.pid] = r.values[column_];
    values_.resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) values_[i] = by_pid[ids[i] < by_pid.size() ? ids[i] : 0];
  }

  GdalClassRaster source_;
  Backend backend_;
  ScanOptions scan_;
  RowMetricOptions row_options_;
  std::string metric_;
  size_t column_ = 0;
  std::vector<double> values_;
};

// LSM:gradient: the four bands of `lsm gradient`, computed a strip of rows
// (one block row, full width, with its halo) at a time.
class GradientRaster final : public DerivedRaster {
 public:
  explicit GradientRaster(const Connection& c)
      : grey_(c.get_flag("grey")),
        source_(c.path, grey_ ? std::vector<int>{1, 2, 3} : std::vector<int>{static_cast<int>(c.get_integer("band", 1))}),
        grey_levels_(source_, 1.0),
        kernels_(gradient_kernels(c.get_real("sigma", 1.0), static_cast<int>(c.get_integer("radius", 3)))),
        pass_(make_gradient_pass(parse_backend(c.get("backend", "auto")))) {
    if (grey_ && c.has("band")) throw Error(ErrorKind::BadInput, "options grey and band exclude each other");
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
      : source_(c.path, {}), pass_(make_kmeans_pass(parse_backend(c.get("backend", "auto")))) {
    options_.k = static_cast<int>(c.get_integer("k", 0));
    if (options_.k < 1 || options_.k > 65534) throw Error(ErrorKind::BadInput, "LSM:kmeans needs the option k=K, 1..65534");
    options_.seed = static_cast<uint64_t>(c.get_integer("seed", 0));
    options_.n_init = static_cast<int>(c.get_integer("n_init", 1));
    options_.max_iter = static_cast<int>(c.get_integer("max_iter", 300));
    const std::string space = c.get("color_space", "none");
    if (space != "none" && space != "lab") throw Error(ErrorKind::BadInput, "option color_space must be none or lab");
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
      : source_(c.path, {}), pass_(make_pyramid_pass(parse_backend(c.get("backend", "auto")))) {
    PyramidOptions o;
    o.scale = c.get_real("scale", 1.05);
    o.resampling = parse_resampling(c.get("resampling", "bilinear"));
    const long long level = c.get_integer("level", -1);
    if (level < 0) throw Error(ErrorKind::BadInput, "LSM:pyramid needs the option level=L (0 = the base)");
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
      : source_(c.path, bands_of(c)), pass_(make_hog_pass(parse_backend(c.get("backend", "auto")))) {
    o_.cell = static_cast<int>(c.get_integer("cell", 8));
    o_.block = static_cast<int>(c.get_integer("block", 3));
    o_.bins = static_cast<int>(c.get_integer("bins", 9));
    o_.signed_orientation = c.get_flag("signed");
    o_.norm = parse_hog_norm(c.get("norm", "L2-Hys"));
    o_.variant = parse_hog_variant(c.get("variant", "skimage"));
    o_.window_sigma = c.get_real("window_sigma", 0);
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
    if (c.has("band")) return {static_cast<int>(c.get_integer("band", 1))};
    GdalFeatureRaster probe(c.path, {});
    return probe.info().bands >= 3 ? std::vector<int>{1, 2, 3} : std::vector<int>{1};
  }
  GdalFeatureRaster source_;
  std::unique_ptr<HogPass> pass_;
  HogOptions o_;
  HogGeometry geometry_;
  std::vector<float> planes_;
};

// seeds=X,Y[,Z];X,Y[,Z]...
std::vector<Voxel> parse_seeds(const std::string& text, bool volume) {
  std::vector<Voxel> seeds;
  std::istringstream items(text);
  std::string item;
  while (std::getline(items, item, ';')) {
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
  explicit FuzzyRaster(const Connection& c) : engine_(make_fuzzy_engine(parse_backend(c.get("backend", "auto")))) {
    const bool volume = c.get_flag("volume");
    image_ = read_volume(c.path, volume, static_cast<int>(c.get_integer("band", 1)));
    seeds_ = parse_seeds(c.get("seeds"), volume);
    check_seeds(image_.view(), seeds_);
    ObjectStatistics stats;
    if (!c.has("mean") || !c.has("sd") || !c.has("sd_diff"))
      stats = estimate_object_statistics(image_.view(), seeds_, c.get_integer("seed_radius", 2));
    stats.mean = c.get_real("mean", stats.mean);
    stats.sd = c.get_real("sd", stats.sd);
    stats.sd_diff = c.get_real("sd_diff", stats.sd_diff);
    const long long adjacency = c.get_integer("adjacency", volume ? 6 : 4);
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
  if (c.operation == "label") return std::make_unique<LabelRaster>(c);
  if (c.operation == "patchmetric") return std::make_unique<PatchMetricRaster>(c);
  if (c.operation == "gradient") return std::make_unique<GradientRaster>(c);
  if (c.operation == "fuzzy") return std::make_unique<FuzzyRaster>(c);
  if (c.operation == "kmeans") return std::make_unique<KMeansRaster>(c);
  if (c.operation == "pyramid") return std::make_unique<PyramidRaster>(c);
  if (c.operation == "hog") return std::make_unique<HogRaster>(c);
  throw Error(ErrorKind::BadInput, "unknown LSM operation '" + c.operation + "'");
}

}  // namespace lsm::gdal_plugin
