// fuzzy: the fuzzy connectedness scene of a 2-D image (one band) or a 3-D
// volume (volume: band k = slice k) as Float32 in [0, 1] (NaN on nodata), and
// with a threshold the object mask. lsm fuzzy INPUT OUTPUT.tif --seed-cell X,Y[,Z];
// LSM:fuzzy.
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include "common_parameters.h"
#include "error.h"
#include "fuzzy_connectedness.h"
#include "gdal_volume.h"
#include "geotiff_output.h"
#include "operations.h"

namespace lsm::ops {

namespace {

std::vector<double> numbers(const std::string& text, const std::string& option) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || !std::isfinite(value))
      throw Error(ErrorKind::BadInput, "bad " + option + " '" + text + "': expected comma-separated numbers");
    out.push_back(value);
  }
  return out;
}

// `name`: the parameter as the front end spells it, for the message.
Voxel parse_seed(const std::string& text, bool volume, const std::string& name) {
  const std::vector<double> n = numbers(text, "seed");
  if (n.size() != (volume ? 3u : 2u))
    throw Error(ErrorKind::BadInput, "bad " + name + " '" + text + "': expected " + (volume ? "X,Y,Z" : "X,Y") +
                                         " (0-based column, row" + (volume ? ", slice)" : ")"));
  for (double v : n)
    if (v != std::floor(v)) throw Error(ErrorKind::BadInput, "bad " + name + " '" + text + "': voxel indices are integers");
  return {static_cast<int64_t>(n[0]), static_cast<int64_t>(n[1]), volume ? static_cast<int64_t>(n[2]) : 0};
}

Adjacency parse_adjacency(int neighbours, bool volume, const std::string& name) {
  if (neighbours == (volume ? 6 : 4)) return Adjacency::Face;
  if (neighbours == (volume ? 26 : 8)) return Adjacency::Full;
  throw Error(ErrorKind::BadInput, name + " must be " + std::string(volume ? "6 or 26 for a volume" : "4 or 8 for an image"));
}

// Every non-zero voxel with data of the mask is a seed.
std::vector<Voxel> seeds_from_mask(const std::string& path, const LoadedVolume& image, bool volume, int band) {
  const LoadedVolume mask = read_volume(path, volume, band);
  if (mask.width != image.width || mask.height != image.height || mask.depth != image.depth)
    throw Error(ErrorKind::BadInput, "--seeds-from '" + path + "' is " + std::to_string(mask.width) + " x " +
                                         std::to_string(mask.height) + " x " + std::to_string(mask.depth) +
                                         ", the input " + std::to_string(image.width) + " x " +
                                         std::to_string(image.height) + " x " + std::to_string(image.depth));
  std::vector<Voxel> seeds;
  const int64_t plane = mask.width * mask.height;
  for (int64_t i = 0; i < static_cast<int64_t>(mask.values.size()); ++i)
    if (mask.values[i] != 0 && !std::isnan(mask.values[i]))
      seeds.push_back({i % mask.width, (i % plane) / mask.width, i / plane});
  if (seeds.empty()) throw Error(ErrorKind::BadInput, "--seeds-from '" + path + "' marks no seed (no non-zero voxel)");
  return seeds;
}

std::string mask_path_for(const std::string& output) {
  const size_t dot = output.rfind('.');
  const size_t slash = output.rfind('/');
  const std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? output.substr(0, dot) : output;
  return stem + "_mask.tif";
}

// A seed X,Y or X,Y,Z of the command line or the driver: checked as a list of
// integers when set (the image's dimension is known only at run time).
void check_seed_text(const std::string& text) {
  const std::vector<double> n = numbers(text, "seed");
  if (n.size() != 2 && n.size() != 3) throw Error(ErrorKind::BadInput, "'" + text + "' is not X,Y (image) or X,Y,Z (volume)");
}

OperationSpec fuzzy_spec() {
  OperationSpec s;
  s.name = "fuzzy";
  s.summary = "fuzzy connectedness from seeds (2-D image or 3-D volume)";
  s.title = "Fuzzy connectedness";
  s.category = "Segmentation";
  s.manual = "FUZZY.md";
  s.usage = "usage: lsm fuzzy INPUT OUTPUT.tif --seed-cell X,Y[,Z] [--seed-cell ...] [--volume] [options]";
  s.parameters = joined(
      {
          input_raster("input", "image or volume (any raster GDAL reads)").needed().at_position(1),
          output(ParameterRole::OutputRaster, "output", "connectivity scene: Float32 GeoTIFF in [0, 1], NaN = nodata").drawn_as(RasterStyle::Continuous).titled("Connectivity")
              .needed()
              .at_position(2)
              .only(kCommandLine | kService),  // the service names it itself
          text("seed-cell", "seed cell X,Y (image) or voxel X,Y,Z (volume), 0-based; repeatable")
              .several()
              .titled("Seed cells")
              .named_in_driver("seeds")
              .also_spelled("seed")  // a cell, unlike synth's and kmeans' --seed (a number)
              .checked_by(check_seed_text),
          input_raster("seeds-from", "raster of the input's size whose non-zero voxels are seeds").trusted().only(kCommandLine),
          flag("relative", "relative fuzzy connectedness: the object is where the object seeds' connectivity beats the "
                           "background seeds'")
              .only(kCommandLine | kDriver),
          text("background-cell", "background seed cell for --relative, as --seed-cell; repeatable")
              .several()
              .titled("Background seed cells")
              .also_spelled("background-seed")
              .only(kCommandLine | kDriver)
              .checked_by(check_seed_text),
          flag("volume", "read every band as a slice (band k = slice k) and segment in 3-D"),
          integer("band", "the band of a 2-D image").band_of_input().with_default("1").at_least(1).at_most(65535).technical(),
          integer("adjacency", "4 or 8 (image, default 4); 6 or 26 (volume, default 6)").one_of({"4", "8", "6", "26"}),
          integer("seed-radius", "object statistics from the (2R+1)-voxel boxes around the seeds")
              .with_default("2")
              .at_least(0)
              .at_most(1000)
              .in("voxels"),
          number("mean", "object mean m (default: from the seed neighbourhood)").at_least(-3.4e38).at_most(3.4e38).titled("Object mean"),
          number("sd", "object SD sigma (default: from the seed neighbourhood)").at_least(-3.4e38).at_most(3.4e38).titled("Object SD"),
          number("sd-diff", "SD sigma_d of half-differences of adjacent voxels (default: from the seeds)").at_least(-3.4e38).at_most(3.4e38).titled("SD of neighbour differences"),
          text("voxel-size", "voxel size X,Y,Z in mm, recorded in the output (default: the input's VOXEL_SIZE_MM)")
              .only(kCommandLine | kDriver),
          number("threshold", "also write the object mask: connectivity >= T").at_least(0).at_most(1).only(kCommandLine),
          output(ParameterRole::OutputRaster, "mask", "path of the mask (default: OUTPUT's name with _mask.tif)").drawn_as(RasterStyle::Classes).titled("Object mask")
              .only(kCommandLine),
          backend_parameter({{"reference", "the sequential kFOE, slow"}}),
          memory_limit_parameter("the whole image or volume, its connectivity scene and, with --relative, the background's"),
          staging_dir_parameter(),
          quiet_parameter(),
      },
      raster_output_parameters());
  s.rules = {one_of_the_two("seed-cell", "seeds-from"), requires_also("relative", "background-cell"),
             requires_also("background-cell", "relative"), requires_also("mask", "threshold")};
  return s;
}

void run_fuzzy_operation(const ParameterValues& v, const RunContext& context) {
  const RasterFormat format = raster_output_format(v, context);
  const std::string input = v.text("input"), output = v.text("output"), seeds_from = v.text("seeds-from");
  const std::string voxel_size = v.text("voxel-size"), mask_path = v.text("mask"), backend = v.text("backend");
  const std::vector<std::string> seed_texts = v.texts("seed-cell"), background_texts = v.texts("background-cell");
  const std::optional<double> mean = v.optional_number("mean"), sd = v.optional_number("sd"),
                              sd_diff = v.optional_number("sd-diff"), threshold = v.optional_number("threshold");
  const int band = static_cast<int>(v.integer("band")), adjacency = static_cast<int>(v.integer("adjacency"));
  const int64_t seed_radius = v.integer("seed-radius");
  const bool volume = v.flag("volume"), quiet = context.quiet, relative = v.flag("relative");
  if (threshold && !(*threshold >= 0 && *threshold <= 1))
    throw Error(ErrorKind::BadInput, "--threshold must lie in [0, 1]");
  const Adjacency adjacency_rule = parse_adjacency(adjacency ? adjacency : (volume ? 6 : 4), volume, v.spelled("adjacency"));
  std::optional<std::array<double, 3>> voxel_size_mm;
  if (!voxel_size.empty()) {
    const std::vector<double> n = numbers(voxel_size, "--voxel-size");
    if (n.size() != 3 || !(n[0] > 0 && n[1] > 0 && n[2] > 0))
      throw Error(ErrorKind::BadInput, "bad --voxel-size '" + voxel_size + "': expected three positive sizes X,Y,Z in mm");
    voxel_size_mm = std::array<double, 3>{n[0], n[1], n[2]};
  }
  std::vector<Voxel> seeds;
  for (const std::string& t : seed_texts) seeds.push_back(parse_seed(t, volume, v.spelled("seed-cell")));
  std::vector<Voxel> background_seeds;
  for (const std::string& t : background_texts) background_seeds.push_back(parse_seed(t, volume, v.spelled("background-cell")));
  const bool use_reference = backend == "reference";
  std::unique_ptr<FuzzyEngine> engine = use_reference ? nullptr : make_fuzzy_engine(parse_backend(backend));

  const ProgressFn progress = context.checked_progress();
  {  // the volume in memory (4 bytes a voxel), its scene (4), the background scene (4, --relative)
    const double voxels = cells_of_run(v);
    require_memory(v, context, voxels * (relative ? 12.0 : 8.0),
                   std::to_string(int64_t(voxels)) + " voxels held in memory, " + (relative ? "12" : "8") + " bytes each");
  }
  LoadedVolume image = read_volume(input, volume, band, scaled_progress(progress, 0.0, 0.2));
  if (!seeds_from.empty()) seeds = seeds_from_mask(seeds_from, image, volume, band);
  if (!voxel_size_mm) voxel_size_mm = image.voxel_size_mm;
  const VolumeView view = image.view();
  check_seeds(view, seeds);
  if (relative) check_seeds(view, background_seeds);
  ObjectStatistics stats;
  if (!mean || !sd || !sd_diff) stats = estimate_object_statistics(view, seeds, seed_radius);
  if (mean) stats.mean = *mean;
  if (sd) stats.sd = *sd;
  if (sd_diff) stats.sd_diff = *sd_diff;
  const AffinityParameters affinity = affinity_parameters(stats, adjacency_rule);

  std::vector<float> scene(image.values.size());
  if (relative)
    relative_fuzzy_connectedness(engine.get(), view, affinity, seeds, background_seeds, scene.data(),
                                 scaled_progress(progress, 0.2, 0.85));
  else if (use_reference) fuzzy_connectedness_reference(view, affinity, seeds, scene.data());
  else engine->run(view, affinity, seeds, scene.data(), scaled_progress(progress, 0.2, 0.85));
  for (size_t i = 0; i < scene.size(); ++i)
    if (std::isnan(image.values[i])) scene[i] = std::numeric_limits<float>::quiet_NaN();

  const int bands = static_cast<int>(image.depth);
  const int64_t plane = image.width * image.height;
  const Window whole{0, 0, image.width, image.height};
  auto stamp = [&](GeoTiffOutput& out) {
    if (voxel_size_mm) {
      char text[96];
      std::snprintf(text, sizeof text, "%.17g %.17g %.17g", (*voxel_size_mm)[0], (*voxel_size_mm)[1], (*voxel_size_mm)[2]);
      out.set_metadata("VOXEL_SIZE_MM", text);
    }
    out.set_metadata("FUZZY_OBJECT_MEAN", std::to_string(stats.mean));
    out.set_metadata("FUZZY_OBJECT_SD", std::to_string(stats.sd));
    out.set_metadata("FUZZY_OBJECT_SD_DIFF", std::to_string(stats.sd_diff));
    if (relative) out.set_metadata("FUZZY_RELATIVE", "YES");
  };
  std::optional<GeoTiffOutput> mask;
  std::vector<uint8_t> mask_slice;
  if (threshold) {
    mask.emplace(mask_path.empty() ? mask_path_for(output) : mask_path, format, image.width, image.height, GDT_Byte,
                 image.georef, 255.0, bands);
    stamp(*mask);
    mask_slice.resize(static_cast<size_t>(plane));
  }
  GeoTiffOutput out(output, format, image.width, image.height, GDT_Float32, image.georef,
                    std::numeric_limits<double>::quiet_NaN(), bands);
  stamp(out);
  for (int z = 0; z < bands; ++z) {
    const float* slice = scene.data() + z * plane;
    out.write(whole, slice, GDT_Float32, z + 1);
    if (mask) {
      for (int64_t i = 0; i < plane; ++i)
        mask_slice[i] = std::isnan(slice[i]) ? 255 : slice[i] >= *threshold ? 1 : 0;
      mask->write(whole, mask_slice.data(), GDT_Byte, z + 1);
    }
    if (progress && !progress(0.85 + 0.15 * (z + 1) / bands)) throw Error(ErrorKind::Io, "interrupted");
  }
  out.commit();
  if (mask) mask->commit();
  if (!quiet)  // after GDAL's progress line, which owns stdout while it runs
    std::printf("object: mean %.6g, SD %.6g, SD of differences %.6g; %zu seed%s, %s backend\n", stats.mean, stats.sd,
                stats.sd_diff, seeds.size(), seeds.size() == 1 ? "" : "s", use_reference ? "reference" : engine->name());
}

}  // namespace

Operation fuzzy_operation() { return {fuzzy_spec(), run_fuzzy_operation}; }

}  // namespace lsm::ops
