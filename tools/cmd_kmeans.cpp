// lsm kmeans INPUT OUTPUT.tif --k K: K-means classes of a photo or a
// multiband raster (Byte/UInt16, 0 = nodata, classes 1..K), or with
// --select greenest the cleaned vegetation mask of Huo et al. (2014).
#include <fstream>
#include <sstream>

#include "atomic_output.h"
#include "cli_common.h"
#include "commands.h"
#include "error.h"
#include "gdal_feature_raster.h"
#include "geotiff_output.h"
#include "kmeans.h"
#include "vegetation_mask.h"

namespace lsm::cli {

namespace {

std::vector<int> parse_band_list(const std::string& text) {
  std::vector<int> bands;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      bands.push_back(std::stoi(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw Error(ErrorKind::BadInput, "--bands: '" + item + "' is not a band number (expected e.g. 1,2,3)");
    }
  }
  return bands;
}

void write_text_atomically(const std::string& path, const std::string& text) {
  AtomicOutput file(path);
  {
    std::ofstream out(file.temp_path());
    out << text;
    if (!out.flush()) throw Error(ErrorKind::Io, "cannot write '" + path + "'");
  }
  file.commit();
}

}  // namespace

int run_kmeans(const std::vector<std::string>& args) {
  std::string input, output, bands_text, colour_space = "none", init_path, stats_path, select, backend = "auto";
  KMeansOptions o;
  int open_radius = 0, close_radius = 0;
  int64_t memory_mb = 4096;
  bool quiet = false;
  po::options_description desc("lsm kmeans options");
  desc.add_options()
      ("input", po::value(&input)->required(), "input raster or photo (any format GDAL reads)")
      ("output", po::value(&output)->required(), "output GeoTIFF: classes 1..K (0 = nodata), or the --select mask")
      ("k", po::value(&o.k)->required(), "number of clusters, 1..65534")
      ("bands", po::value(&bands_text), "bands to cluster, e.g. 1,2,3 (default: all but alpha)")
      ("color-space", po::value(&colour_space)->default_value("none"),
       "none, or lab: 3-band 8-bit sRGB converted to CIE L*a*b* (D65)")
      ("init", po::value(&init_path), "initial centres: a text file of K lines of one value per band")
      ("seed", po::value(&o.seed)->default_value(0), "seed of the sample and of k-means++")
      ("n-init", po::value(&o.n_init)->default_value(1), "k-means++ runs; the lowest inertia wins")
      ("max-iter", po::value(&o.max_iter)->default_value(300), "Lloyd iterations per run")
      ("tol", po::value(&o.tol)->default_value(0.0),
       "stop when no centre moves more than this (feature units); 0 = until no assignment changes")
      ("stats", po::value(&stats_path), "write centres, counts and inertia as JSON to this file")
      ("select", po::value(&select), "greenest: output the mask of the cluster with the lowest a* (needs lab)")
      ("open", po::value(&open_radius)->default_value(0), "opening radius of the --select mask (cells)")
      ("close", po::value(&close_radius)->default_value(0), "closing radius of the --select mask (cells)")
      ("backend", po::value(&backend)->default_value("auto"), "auto, cpu or cuda")
      ("tile-size", po::value(&o.strip_rows)->default_value(256), "rows per streamed strip")
      ("memory", po::value(&memory_mb)->default_value(4096),
       "keep the features in memory (and on the GPU) when they take at most this many MB")
      ("quiet,q", po::bool_switch(&quiet), "no progress output");
  add_raster_output_options(desc);
  po::positional_options_description pos;
  pos.add("input", 1).add("output", 1);
  if (!parse(args, desc, pos, "usage: lsm kmeans INPUT OUTPUT.tif --k K [options]")) return 0;

  if (o.k < 1 || o.k > 65534)
    throw Error(ErrorKind::BadInput, "--k must be in 1..65534 (got " + std::to_string(o.k) + ")");
  if (colour_space != "none" && colour_space != "lab")
    throw Error(ErrorKind::BadInput, "--color-space must be none or lab, not '" + colour_space + "'");
  if (!select.empty() && select != "greenest")
    throw Error(ErrorKind::BadInput, "--select must be greenest, not '" + select + "'");
  if (!select.empty() && colour_space != "lab")
    throw Error(ErrorKind::BadInput, "--select greenest needs --color-space lab");
  if (select.empty() && (open_radius || close_radius))
    throw Error(ErrorKind::BadInput, "--open and --close clean the --select mask; add --select greenest");
  if (open_radius < 0 || close_radius < 0) throw Error(ErrorKind::BadInput, "--open and --close must be >= 0");
  if (o.strip_rows < 1) throw Error(ErrorKind::BadInput, "--tile-size must be positive");
  if (memory_mb < 0) throw Error(ErrorKind::BadInput, "--memory must be >= 0");
  o.resident_bytes = memory_mb << 20;

  GdalFeatureRaster raster(input, bands_text.empty() ? std::vector<int>{} : parse_band_list(bands_text));
  std::unique_ptr<LabFeatureRaster> lab;
  if (colour_space == "lab") {
    if (raster.info().bands != 3)
      throw Error(ErrorKind::BadInput, "--color-space lab needs 3 bands (R,G,B); " + std::to_string(raster.info().bands) +
                                           " selected from '" + input + "'");
    if (!raster.all_bands_byte())
      throw Error(ErrorKind::BadInput, "--color-space lab needs 8-bit (Byte) R,G,B bands");
    lab = std::make_unique<LabFeatureRaster>(raster);
  }
  FeatureRasterSource& features = lab ? static_cast<FeatureRasterSource&>(*lab) : raster;
  const FeatureRasterInfo info = features.info();
  if (!init_path.empty()) o.init = read_centres_file(init_path, o.k, info.bands);
  auto pass = make_kmeans_pass(parse_backend(backend));

  const bool mask_output = !select.empty();
  const GDALDataType type = mask_output || o.k <= 254 ? GDT_Byte : GDT_UInt16;
  GeoTiffOutput out(output, info.width, info.height, type, georeference_of(raster.dataset()),
                    mask_output ? double(kMaskNodata) : 0.0);
  const ProgressFn progress = terminal_progress(quiet);
  std::vector<uint16_t> labels;  // the whole class raster, for the mask
  if (mask_output) labels.resize(static_cast<size_t>(info.width * info.height));
  const KMeansResult result = run_kmeans(
      features, o, *pass,
      [&](const Window& w, const uint16_t* l) {
        if (mask_output) std::copy(l, l + w.width * w.height, labels.begin() + w.y0 * info.width);
        else out.write(w, l, GDT_UInt16);
      },
      progress);
  int selected_class = 0;
  if (mask_output) {
    const int cluster = greenest_cluster(result);
    const std::vector<uint8_t> mask = cluster_mask(labels, info.width, info.height, cluster, open_radius, close_radius);
    out.write(Window{0, 0, info.width, info.height}, mask.data(), GDT_Byte);
    selected_class = cluster + 1;
  }
  out.commit();
  if (!stats_path.empty()) write_text_atomically(stats_path, kmeans_result_json(result, selected_class));
  return 0;
}

}  // namespace lsm::cli
