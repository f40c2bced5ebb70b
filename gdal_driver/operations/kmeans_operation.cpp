// kmeans: K-means classes of a photo or a multiband raster (Byte/UInt16,
// 0 = nodata, classes 1..K), or with select=greenest the cleaned vegetation
// mask of Huo et al. (2014). lsm kmeans INPUT OUTPUT.tif --k K; LSM:kmeans.
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atomic_output.h"
#include "common_parameters.h"
#include "error.h"
#include "gdal_feature_raster.h"
#include "geotiff_output.h"
#include "kmeans.h"
#include "operations.h"
#include "vegetation_mask.h"

namespace lsm::ops {

namespace {

std::vector<int> band_list(const std::string& text) {
  std::vector<int> bands;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      bands.push_back(std::stoi(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw Error(ErrorKind::BadInput, "'" + item + "' is not a band number (expected e.g. 1,2,3)");
    }
  }
  return bands;
}

// The --stats document: centres, counts, inertia, iterations, runs, and
// "selected_class" when the mask's cluster (1..k) is set.
std::string result_json(const KMeansResult& r, int selected_class) {
  nlohmann::ordered_json j;
  j["k"] = r.k;
  j["bands"] = r.bands;
  j["valid_cells"] = r.valid_cells;
  j["inertia"] = r.inertia;
  j["iterations"] = r.iterations;
  j["converged"] = r.converged;
  j["best_run"] = r.best_run;
  j["run_inertia"] = r.run_inertia;
  j["seconds"] = {{"survey", r.survey_seconds}, {"lloyd", r.lloyd_seconds}, {"labels", r.labels_seconds}};
  if (selected_class > 0) j["selected_class"] = selected_class;
  j["clusters"] = nlohmann::ordered_json::array();
  for (int c = 0; c < r.k; ++c) {
    const auto first = r.centres.begin() + static_cast<std::ptrdiff_t>(c) * r.bands;
    j["clusters"].push_back({{"class", c + 1},
                             {"count", r.counts[static_cast<size_t>(c)]},
                             {"centre", std::vector<double>(first, first + r.bands)}});
  }
  return j.dump(2) + "\n";
}

// Writes `text` into `file`'s temporary file (committed by the caller).
void write_text(const AtomicOutput& file, const std::string& text) {
  std::ofstream out(file.temp_path());
  out << text;
  if (!out.flush()) throw Error(ErrorKind::Io, "cannot write '" + file.final_path() + "'");
}

OperationSpec kmeans_spec() {
  OperationSpec s;
  s.name = "kmeans";
  s.summary = "K-means classes of a photo or multiband raster";
  s.title = "K-means classes";
  s.category = "Segmentation";
  s.manual = "KMEANS.md";
  s.passes = 0;
  s.usage = "usage: lsm kmeans INPUT OUTPUT.tif --k K [options]";
  s.parameters = joined(
      {
          input_raster("input", "input raster or photo (any format GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputRaster, "output", "output GeoTIFF: classes 1..K (0 = nodata), or the --select mask").drawn_as(RasterStyle::Classes).titled("K-means classes")
              .needed()
              .at_position(2)
              .only(kCommandLine | kService),  // the service names it itself
          integer("k", "number of clusters (one cluster would make every cell one class)").titled("Clusters (K)").needed().at_least(2).at_most(65534),
          text("bands", "bands to cluster, e.g. 1,2,3 (default: all but alpha)")
              .only(kCommandLine | kDriver)
              .checked_by([](const std::string& v) { band_list(v); }),
          text("color-space", "none, or lab: 3-band 8-bit sRGB converted to CIE L*a*b* (D65)")
              .one_of({"none", "lab"})
              .with_default("none"),
          text("init", "initial centres: a text file of K lines of one value per band").titled("Initial centres").naming(PathKind::File).trusted().only(kCommandLine),
          integer("seed", "seed of the sample and of k-means++").with_default("0").at_least(0).at_most(9007199254740991),
          integer("n-init", "k-means++ runs; the lowest inertia wins").titled("k-means++ runs").with_default("1").at_least(1).at_most(100),
          integer("max-iter", "Lloyd iterations per run").titled("Iterations per run").with_default("300").at_least(1).at_most(100000),
          number("tol", "stop when no centre moves more than this (feature units); 0 = until no assignment changes")
              .with_default("0")
              .at_least(0)
              .at_most(1e30)
              .titled("Tolerance")
              .only(kCommandLine | kDriver),
          output(ParameterRole::OutputFile, "stats", "write centres, counts and inertia as JSON to this file")
              .making({{"stats", ".json", "application/json", "centres, counts and inertia (JSON)"}})
              .titled("Statistics (JSON)")
              .technical()
              .only(kCommandLine | kService),  // the service names it itself
          text("select", "greenest: output the mask of the cluster with the lowest a* (needs lab)")
              .one_of({"greenest"})
              .only(kCommandLine | kDriver),
          integer("open", "opening radius of the --select mask").with_default("0").at_least(0).at_most(1000).in("cells").only(kCommandLine | kDriver),
          integer("close", "closing radius of the --select mask").with_default("0").at_least(0).at_most(1000).in("cells").only(kCommandLine | kDriver),
          backend_parameter(),
          integer("strip-rows", "rows per streamed strip").with_default("256").at_least(1).at_most(1000000).in("rows").also_spelled("tile-size").technical().only(kCommandLine),
          memory_limit_parameter("strips of rows, the features kept between iterations when they fit three quarters of it, "
                                 "the class raster of --select"),
          staging_dir_parameter(),
          integer("memory", "the older spelling of --memory-limit, in MB (0: never keep the features between iterations)")
              .at_least(0)
              .at_most(1 << 20)
              .technical()
              .in("MB")
              .only(kCommandLine),
          quiet_parameter(),
      },
      raster_output_parameters());
  return s;
}

void run_kmeans_operation(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  KMeansOptions o;
  o.k = static_cast<int>(v.integer("k"));
  o.seed = static_cast<uint64_t>(v.integer("seed"));
  o.n_init = static_cast<int>(v.integer("n-init"));
  o.max_iter = static_cast<int>(v.integer("max-iter"));
  o.tol = v.number("tol");
  o.strip_rows = v.integer("strip-rows");
  // --memory MB is --memory-limit's older spelling; 0 kept its meaning: stream every iteration.
  if (v.given("memory") && v.given("memory-limit"))
    throw Error(ErrorKind::BadInput, v.spelled("memory") + " is the older spelling of " + v.spelled("memory-limit") + "; give one");
  uint64_t memory_bytes = run_budget(v, context).memory_bytes;
  if (v.given("memory") && v.integer("memory") > 0) memory_bytes = uint64_t(v.integer("memory")) << 20;
  o.resident_bytes = v.given("memory") && v.integer("memory") == 0 ? 0 : memory_bytes / 4 * 3;
  const std::string colour_space = v.text("color-space"), select = v.text("select");
  const int open_radius = static_cast<int>(v.integer("open")), close_radius = static_cast<int>(v.integer("close"));
  if (!select.empty() && colour_space != "lab") throw Error(ErrorKind::BadInput, v.spelled("select") + " greenest needs " + v.spelled("color-space") + " lab");
  if (select.empty() && (open_radius || close_radius))
    throw Error(ErrorKind::BadInput, v.spelled("open") + " and " + v.spelled("close") + " clean the " + v.spelled("select") +
                                         " mask; add " + v.spelled("select") + " greenest");

  const std::string input = v.text("input");
  GdalFeatureRaster raster(input, v.given("bands") ? band_list(v.text("bands")) : std::vector<int>{});
  std::unique_ptr<LabFeatureRaster> lab;
  if (colour_space == "lab") {
    if (raster.info().bands != 3)
      throw Error(ErrorKind::BadInput, v.spelled("color-space") + " lab needs 3 bands (R,G,B); " +
                                           std::to_string(raster.info().bands) + " selected from '" + input + "'");
    if (!raster.all_bands_byte())
      throw Error(ErrorKind::BadInput, v.spelled("color-space") + " lab needs 8-bit (Byte) R,G,B bands");
    lab = std::make_unique<LabFeatureRaster>(raster);
  }
  FeatureRasterSource& features = lab ? static_cast<FeatureRasterSource&>(*lab) : raster;
  const FeatureRasterInfo info = features.info();
  {  // strips of features read ahead and in use, their labels; the class raster and mask of --select
    const bool mask = !select.empty();
    const double strip = double(std::min<int64_t>(o.strip_rows, info.height)) * double(info.width);
    const double needed = strip * (12.0 * info.bands + 4) + (mask ? 3.0 * double(info.width) * double(info.height) : 0);
    require_memory(v, context, needed,
                   "strips of " + std::to_string(std::min<int64_t>(o.strip_rows, info.height)) + " rows of " +
                       std::to_string(info.width) + " cells" + (mask ? ", the class raster of --select" : ""),
                   memory_bytes, v.given("memory") ? "memory" : "memory-limit");
  }
  if (v.given("init")) o.init = read_centres_file(v.text("init"), o.k, info.bands);
  auto pass = make_kmeans_pass(parse_backend(v.text("backend")));

  const bool mask_output = !select.empty();
  const GDALDataType type = mask_output || o.k <= 254 ? GDT_Byte : GDT_UInt16;
  GeoTiffOutput out(v.text("output"), format, info.width, info.height, type, georeference_of(raster.dataset()),
                    mask_output ? double(kMaskNodata) : 0.0);
  // The two outputs appear together: an unwritable --stats fails here, before
  // any work, and both are complete before either is renamed into place.
  std::optional<AtomicOutput> stats;
  if (v.given("stats")) stats.emplace(v.text("stats"));
  std::vector<uint16_t> labels;  // the whole class raster, for the mask
  if (mask_output) labels.resize(static_cast<size_t>(info.width * info.height));
  const KMeansResult result = run_kmeans(
      features, o, *pass,
      [&](const Window& w, const uint16_t* l) {
        if (mask_output) std::copy(l, l + w.width * w.height, labels.begin() + w.y0 * info.width);
        else out.write(w, l, GDT_UInt16);
      },
      context.checked_progress());
  int selected_class = 0;
  if (mask_output) {
    const int cluster = greenest_cluster(result);
    const std::vector<uint8_t> mask = cluster_mask(labels, info.width, info.height, cluster, open_radius, close_radius);
    out.write(Window{0, 0, info.width, info.height}, mask.data(), GDT_Byte);
    selected_class = cluster + 1;
  }
  if (stats) write_text(*stats, result_json(result, selected_class));
  out.commit();
  if (stats) stats->commit();
}

}  // namespace

Operation kmeans_operation() { return {kmeans_spec(), run_kmeans_operation}; }

}  // namespace lsm::ops
