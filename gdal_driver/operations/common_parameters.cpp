#include "common_parameters.h"

#include <gdal_priv.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "batch_file.h"
#include "error.h"
#include "gdal_open.h"
#include "metric_catalogue.h"
#include "geotiff_output.h"
#include "tile_labeler.h"

namespace lsm::ops {

namespace {

int64_t tile_side(const std::string& text, const std::string& whole) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used != text.size() || v <= 0)
    throw Error(ErrorKind::BadInput, "'" + whole + "' is not N or WxH with positive integers");
  return v;
}

// Tile size "N" or "WxH" as (width, height).
std::pair<int64_t, int64_t> tile_size(const std::string& text) {
  const size_t x = text.find_first_of("xX");
  if (x == std::string::npos) {
    const int64_t n = tile_side(text, text);
    return {n, n};
  }
  return {tile_side(text.substr(0, x), text), tile_side(text.substr(x + 1), text)};
}

}  // namespace

ParameterSpec backend_parameter(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> choices{
      {"auto", "the GPU when there is one"}, {"cpu", "CPU threads"}, {"cuda", "an NVIDIA GPU"}};
  choices.insert(choices.end(), extra.begin(), extra.end());
  return text("backend", "where to compute")
      .one_of_labelled(choices)
      .with_default("auto")
      .technical();
}

std::vector<std::string> metric_choice_labels(const std::vector<std::string>& acronyms) {
  std::vector<std::string> labels;
  for (const std::string& acronym : acronyms) {
    const MetricInfo* m = find_metric(acronym);
    if (!m) throw Error(ErrorKind::Internal, "'" + acronym + "' is not in the metric catalogue");
    const std::string unit = m->unit;
    labels.push_back(std::string(m->name) + (unit == "none" ? "" : " (" + unit + ")"));
  }
  return labels;
}

std::vector<std::string> metric_choice_details(const std::vector<std::string>& acronyms) {
  std::vector<std::string> details;
  for (const std::string& acronym : acronyms) {
    const MetricInfo* m = find_metric(acronym);
    if (!m) throw Error(ErrorKind::Internal, "'" + acronym + "' is not in the metric catalogue");
    std::string levels;
    const std::pair<unsigned, const char*> names[] = {{kPatchLevel, "patch"}, {kClassLevel, "class"}, {kLandscapeLevel, "landscape"}};
    for (const auto& [bit, name] : names)
      if (m->levels & bit) levels += (levels.empty() ? "" : ", ") + std::string(name);
    if (m->distributed) {
      std::string stats;
      for (const std::string& s : distribution_statistics()) stats += " _" + s;
      levels += (levels.empty() ? stats.substr(1) : ";" + stats) + " at class and landscape";
    }
    details.push_back(levels + " · " + family_name(m->family) + (*m->needs ? std::string(" · needs ") + m->needs : ""));
  }
  return details;
}

ParameterSpec quiet_parameter() {
  return flag("quiet", "no progress output").short_option('q').presentation();
}

std::vector<ParameterSpec> patch_parameters() {
  return joined(
      {
          integer("band", "band of class codes (1-based)").band_of_input().with_default("1").at_least(1).at_most(65535).short_option('b').titled("Band of class codes").technical(),
          number("nodata", "cells of this value are outside the landscape, as gdal_translate's -a_nodata (default: the "
                           "band's nodata value)")
              .at_least(-3.4e38)
              .at_most(3.4e38)
              .titled("Nodata value"),
          integer("neighbors", "neighbour rule").one_of_labelled({{"4", "edges only"}, {"8", "edges and corners, FRAGSTATS' default"}}).with_default("8").short_option('n').titled("Neighbour rule"),
          backend_parameter(),
          text("tile-size", "tile size N (N x N) or WxH cells; default: rows from the blocks, 1024 columns on the CPU, all on a GPU")
              .in("cells")
              .titled("Tile size")
              .technical()
              .only(kCommandLine)
              .checked_by([](const std::string& v) { tile_size(v); }),
          quiet_parameter(),
      },
      budget_parameters("patch records, per-patch values, edge cells; the raster is labeled again instead of kept"));
}

std::vector<ParameterSpec> budget_parameters(const std::string& what_spills) {
  return {
      text("memory-limit", "memory the run may hold, e.g. 512M or 2G; what does not fit goes to scratch files (" +
                               what_spills + "), and strips of rows get shorter (half of it, 32 bytes a cell); "
                               "the floor is about 100 MB (GDAL's 64 MB block cache, the program) plus one block row")
          .with_default("1G")
          .in("K, M or G")  // a size such as 1G: "bytes" would misname the value the field holds
          .titled("Memory limit")
          .technical()
          .checked_by([](const std::string& v) { memory_size(v); }),
      temp_dir_parameter("scratch files; they have no name and vanish on any exit"),
  };
}

ParameterSpec temp_dir_parameter(const std::string& what) {
  return text("temp-dir", "folder of the run's " + what + " (default $TMPDIR or /tmp)")
      .titled("Scratch folder")
      .technical()
      .naming(PathKind::Folder)
      .trusted();  // a server's folders are not the client's to choose
}

ParameterSpec memory_limit_parameter(const std::string& holds) {
  return text("memory-limit", "memory the run may hold, e.g. 512M or 2G (" + holds +
                                  "); a run that needs more is refused before any work")
      .with_default("1G")
      .in("K, M or G")
      .titled("Memory limit")
      .technical()
      .checked_by([](const std::string& v) { memory_size(v); });
}

namespace {

std::string bytes_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char text[48];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return text;
}

}  // namespace

void require_memory(const ParameterValues& values, const RunContext& context, double needed, const std::string& what,
                    uint64_t limit_bytes, const std::string& limit_option) {
  const uint64_t limit = limit_bytes ? limit_bytes : run_budget(values, context).memory_bytes;
  if (needed <= double(limit)) return;
  throw Error(ErrorKind::BadInput, values.spec().name + " needs about " + bytes_text(needed) + " of memory (" + what +
                                       "); " + values.spelled(limit_option) + " is " + bytes_text(double(limit)));
}

RunBudget run_budget(const ParameterValues& values, const RunContext& context) {
  RunBudget budget = context.budget;
  if (values.spec().find("memory-limit") && values.given("memory-limit")) {
    budget.memory_bytes = memory_size(values.text("memory-limit"));
    if (context.memory_ceiling && budget.memory_bytes > context.memory_ceiling)
      values.fail("memory-limit", "asks for " + bytes_text(double(budget.memory_bytes)) + ", more than the " +
                                      bytes_text(double(context.memory_ceiling)) + " a run may hold here");
  }
  if (values.spec().find("temp-dir") && values.given("temp-dir")) budget.temp_dir = values.text("temp-dir");
  return budget;
}

std::vector<ParameterSpec> raster_output_parameters() {
  return {
      text("of", "output raster format: a GDAL driver's short name (default GTiff); COG, PNG and other copy-only "
                 "formats are written through a temporary GeoTIFF")
          .titled("Output format")
          .technical()
          .presentation(),
      text("co", "creation option NAME=VALUE of the output format (repeatable)").several().titled("Creation options").technical().presentation(),
  };
}

ScanOptions scan_options(const ParameterValues& values, const RunContext& context) {
  ScanOptions s;
  // Closed records beyond the budget's share and each per-patch array beyond
  // its share go to scratch files in the budget's folder.
  const RunBudget budget = run_budget(values, context);
  s.max_record_bytes = budget.share(BudgetShare::Records);
  s.max_patch_array_bytes = budget.share(BudgetShare::PatchArray);
  s.temp_dir = budget.temp_dir;
  s.max_strip_cells = budget.strip_cells();
  s.rule = values.integer("neighbors") == 4 ? NeighbourRule::Four : NeighbourRule::Eight;
  if (values.spec().find("tile-size") && values.given("tile-size")) {
    const auto [w, h] = tile_size(values.text("tile-size"));
    s.tile_width = w;
    s.tile_height = h;
  }
  return s;
}

RasterFormat raster_output_format(const ParameterValues& values, const RunContext& context) {
  RasterFormat format = context.raster_format;
  if (values.spec().find("of") && values.given("of")) format.driver = values.text("of");
  if (values.spec().find("co") && values.given("co")) format.creation_options = values.texts("co");
  const std::string scratch = run_budget(values, context).temp_dir;
  if (!scratch.empty()) format.staging_dir = scratch;
  format.cancel = context.cancel;
  check_raster_format(format);
  return format;
}

uint64_t memory_size(const std::string& text) {
  const std::string bad = "must be a size such as 512M or 2G, not '" + text + "'";
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw Error(ErrorKind::BadInput, bad);
  }
  const std::string unit = text.substr(used);
  double scale = 1024.0 * 1024;  // plain numbers: MiB
  if (unit == "K" || unit == "k") scale = 1024;
  else if (unit == "G" || unit == "g") scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty() && unit != "M" && unit != "m") {
    // "1GB", "512MiB": the unit is its first letter.
    const std::string u = unit.size() > 1 ? unit.substr(1) : "";
    if ((unit[0] == 'K' || unit[0] == 'M' || unit[0] == 'G' || unit[0] == 'k' || unit[0] == 'm' || unit[0] == 'g') &&
        (u == "B" || u == "b" || u == "iB" || u == "ib"))
      throw Error(ErrorKind::BadInput, bad + "; did you mean " + text.substr(0, used) + unit[0] + "?");
    throw Error(ErrorKind::BadInput, bad);
  }
  if (!(value > 0) || value * scale > 1e18) throw Error(ErrorKind::BadInput, bad);
  const uint64_t bytes = static_cast<uint64_t>(value * scale);
  if (bytes < (uint64_t(1) << 20)) throw Error(ErrorKind::BadInput, "must be at least 1M");
  return bytes;
}

bool may_use_gpu(const ParameterValues& values) {
  return values.spec().find("backend") && values.text("backend") != "cpu" && cuda_available();
}

ParameterSpec max_cells_parameter() {
  return integer("max-cells", "refuse an input of more cells (width x height x bands) than this; 0 = no limit")
      .with_default("0")
      .at_least(0)
      .at_most(1e15)
      .in("cells")
      .titled("Largest input (cells)")
      .technical()
      .only(kCommandLine | kDriver);
}

double cells_of_run(const ParameterValues& values) {
  struct Closer {
    void operator()(GDALDataset* d) const { GDALClose(d); }
  };
  double cells = 0;
  for (const ParameterSpec& p : values.spec().parameters) {
    if (p.role != ParameterRole::InputRaster || !values.given(p.name)) continue;
    double of_parameter = 0;  // a batch of rasters: all of them
    std::vector<BatchLandscape> landscapes;
    for (const std::string& path : values.texts(p.name)) {
      // A batch file among several inputs (lsm metrics): its rasters, which the run reads in its place.
      if (p.repeatable && is_batch_file(path) && values.front_end() == kCommandLine) {
        for (BatchLandscape& l : read_batch_file(path)) landscapes.push_back(std::move(l));
      } else {
        landscapes.emplace_back();
        landscapes.back().path = path;
      }
    }
    for (const BatchLandscape& l : landscapes)
      with_batch_line(l, [&] {
        std::unique_ptr<GDALDataset, Closer> dataset(open_input_raster(l.path));
        of_parameter += double(dataset->GetRasterXSize()) * double(dataset->GetRasterYSize()) *
                        std::max(1, dataset->GetRasterCount());
      });
    cells = std::max(cells, of_parameter);
  }
  if (values.spec().find("width") && values.spec().find("height"))
    cells = std::max(cells, double(values.integer("width")) * double(values.integer("height")));
  return cells;
}

void check_run_size(const ParameterValues& values, const RunContext& context) {
  const double cells = cells_of_run(values);
  char text[64];
  std::snprintf(text, sizeof text, "%.0f", cells);
  const long long limit = values.spec().find("max-cells") ? values.integer("max-cells") : 0;
  if (limit > 0 && cells > double(limit))
    throw Error(ErrorKind::BadInput, "the input has " + std::string(text) + " cells, more than " +
                                         values.spelled("max-cells") + " " + std::to_string(limit));
  if (cells > 1e10 && !context.quiet) {
    const int passes = values.spec().passes;
    std::cerr << "lsm: note: " << text << " cells, "
              << (passes > 0 ? "read " + std::to_string(passes) + (passes == 1 ? " time" : " times")
                             : std::string("read once per iteration"))
              << " by lsm " << values.spec().name << ": a long run; progress is reported as it goes\n";
  }
}

std::vector<ParameterSpec> joined(std::vector<ParameterSpec> list, const std::vector<ParameterSpec>& more) {
  list.insert(list.end(), more.begin(), more.end());
  return list;
}

}  // namespace lsm::ops
