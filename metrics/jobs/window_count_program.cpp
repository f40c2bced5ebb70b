#include "window_count_program.h"

#include <algorithm>
#include <map>
#include <string>

namespace lsm {

std::optional<uint8_t> window_count_metric(const WindowBand& band) {
  using namespace window_formulas;
  static const std::map<std::string, uint8_t> class_metrics{
      {"CA", kCA},          {"PLAND", kPLAND}, {"TE", kClassTE},    {"ED", kClassED}, {"LSI", kClassLSI},
      {"PLADJ", kClassPLADJ}, {"AI", kClassAI}, {"CLUMPY", kCLUMPY}, {"NLSI", kNLSI},
      {"NP", kClassNP},     {"PD", kClassPD},  {"LPI", kClassLPI},     {"DIVISION", kClassDIVISION},
      {"MESH", kClassMESH}, {"SPLIT", kClassSPLIT}};
  static const std::map<std::string, uint8_t> landscape_metrics{
      {"TA", kTA},   {"TE", kTE},   {"ED", kED},     {"LSI", kLSI},   {"PLADJ", kPLADJ},
      {"AI", kAI},   {"PR", kPR},   {"PRD", kPRD},   {"RPR", kRPR},   {"SHDI", kSHDI},
      {"SIDI", kSIDI}, {"MSIDI", kMSIDI}, {"SHEI", kSHEI}, {"SIEI", kSIEI}, {"MSIEI", kMSIEI},
      {"NP", kNP},   {"PD", kPD},   {"LPI", kLPI},   {"CONTAG", kCONTAG}, {"DIVISION", kDIVISION},
      {"MESH", kMESH}, {"SPLIT", kSPLIT}};
  const auto& metrics = band.class_code ? class_metrics : landscape_metrics;
  const auto it = metrics.find(band.metric);
  if (it == metrics.end()) return std::nullopt;
  return it->second;
}

WindowCountProgram::WindowCountProgram(const WindowPlan& plan, const WindowJobOptions& options, double cell_width,
                                       double cell_height, const std::vector<bool>& taken)
    : covered_(plan.bands.size(), false) {
  const std::vector<int32_t>& codes = plan.class_codes;
  for (int32_t code : codes) background_.push_back(options.background.count(code) ? 1 : 0);
  for (size_t b = 0; b < plan.bands.size(); ++b) {
    if (b < taken.size() && taken[b]) continue;
    const WindowBand& band = plan.bands[b];
    const std::optional<uint8_t> metric = window_count_metric(band);
    if (!metric) continue;
    int32_t class_index = -1;
    if (band.class_code)
      class_index = static_cast<int32_t>(std::lower_bound(codes.begin(), codes.end(), *band.class_code) - codes.begin());
    else
      program_.needs_landscape = true;
    program_.needs_patches = program_.needs_patches || window_formulas::reads_patches(*metric);
    program_.needs_pairs = program_.needs_pairs || *metric == window_formulas::kCONTAG;
    program_.needs_sides = program_.needs_sides || window_formulas::reads_sides(*metric);
    using namespace window_formulas;
    program_.needs_diversity = program_.needs_diversity || (!band.class_code && (*metric == kSHDI || *metric == kSIDI ||
                                                                                 *metric == kMSIDI || *metric == kSHEI ||
                                                                                 *metric == kSIEI || *metric == kMSIEI));
    program_.needs_ai = program_.needs_ai || (!band.class_code && *metric == kAI);
    program_.needs_patch_sizes = program_.needs_patch_sizes || reads_patch_sizes(*metric);
    bands_.push_back({*metric, class_index, static_cast<uint32_t>(b)});
    covered_[b] = true;
  }
  program_.k = static_cast<int32_t>(codes.size());
  program_.background = background_.data();
  program_.bands = bands_.data();
  program_.band_count = static_cast<uint32_t>(bands_.size());
  program_.cw = cell_width;
  program_.ch = cell_height;
  program_.boundary_edge = options.boundary_edge;
  program_.max_richness = options.max_richness ? static_cast<double>(*options.max_richness) : 0;
  program_.eight_neighbours = options.rule == NeighbourRule::Eight;
}

}  // namespace lsm
