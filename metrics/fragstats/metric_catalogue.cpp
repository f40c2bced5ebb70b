#include "metric_catalogue.h"

#include <algorithm>

namespace lsm {

namespace {
constexpr unsigned P = kPatchLevel, C = kClassLevel, L = kLandscapeLevel;
using F = MetricFamily;
}  // namespace

const std::vector<MetricInfo>& metric_catalogue() {
  // clang-format off
  static const std::vector<MetricInfo> catalogue = {
      // acronym     name                                        family           levels   unit          2nd pass distributed
      {"AREA",     "Patch area",                                 F::AreaEdge,     P,       "ha",         false, true},
      {"PERIM",    "Patch perimeter",                            F::AreaEdge,     P,       "m",          false, false},
      {"GYRATE",   "Radius of gyration",                         F::AreaEdge,     P,       "m",          true,  true},
      {"PARA",     "Perimeter-area ratio",                       F::Shape,        P,       "m/ha",       false, true},
      {"SHAPE",    "Shape index",                                F::Shape,        P,       "none",       false, true},
      {"FRAC",     "Fractal dimension index",                    F::Shape,        P,       "none",       false, true},
      {"CIRCLE",   "Related circumscribing circle",              F::Shape,        P,       "none",       true,  true},
      {"CONTIG",   "Contiguity index",                           F::Shape,        P,       "none",       true,  true},
      {"CORE",     "Core area",                                  F::CoreArea,     P,       "ha",         true,  true},
      {"NCORE",    "Number of core areas",                       F::CoreArea,     P,       "count",      true,  false},
      {"CAI",      "Core area index",                            F::CoreArea,     P,       "%",          true,  true},
      {"ECON",     "Edge contrast index",                        F::Contrast,     P,       "%",          true,  true, "--contrast-table"},
      {"ENN",      "Euclidean nearest-neighbour distance",       F::Isolation,    P,       "m",          true,  true},
      {"PROX",     "Proximity index",                            F::Isolation,    P,       "none",       true,  true, "--search-radius"},
      {"SIMI",     "Similarity index",                           F::Isolation,    P,       "none",       true,  true, "--search-radius and --similarity-table"},
      {"DCORE",    "Disjunct core area",                         F::CoreArea,     0,       "ha",         true,  true},
      {"TA",       "Total area",                                 F::AreaEdge,     L,       "ha",         false, false},
      {"CA",       "Total (class) area",                         F::AreaEdge,     C,       "ha",         false, false},
      {"PLAND",    "Percentage of landscape",                    F::AreaEdge,     C,       "%",          false, false},
      {"NP",       "Number of patches",                          F::Aggregation,  C | L,   "count",      false, false},
      {"PD",       "Patch density",                              F::Aggregation,  C | L,   "per 100 ha", false, false},
      {"LPI",      "Largest patch index",                        F::AreaEdge,     C | L,   "%",          false, false},
      {"TE",       "Total edge",                                 F::AreaEdge,     C | L,   "m",          false, false},
      {"ED",       "Edge density",                               F::AreaEdge,     C | L,   "m/ha",       false, false},
      {"LSI",      "Landscape shape index",                      F::Aggregation,  C | L,   "none",       false, false},
      {"NLSI",     "Normalized landscape shape index",           F::Aggregation,  C,       "none",       false, false},
      {"PAFRAC",   "Perimeter-area fractal dimension",           F::Shape,        C | L,   "none",       false, false},
      {"TCA",      "Total core area",                            F::CoreArea,     C | L,   "ha",         true,  false},
      {"CPLAND",   "Core area percentage of landscape",          F::CoreArea,     C,       "%",          true,  false},
      {"NDCA",     "Number of disjunct core areas",              F::CoreArea,     C | L,   "count",      true,  false},
      {"DCAD",     "Disjunct core area density",                 F::CoreArea,     C | L,   "per 100 ha", true,  false},
      {"CWED",     "Contrast-weighted edge density",             F::Contrast,     C | L,   "m/ha",       true,  false, "--contrast-table"},
      {"TECI",     "Total edge contrast index",                  F::Contrast,     C | L,   "%",          true,  false, "--contrast-table"},
      {"CLUMPY",   "Clumpiness index",                           F::Aggregation,  C,       "none",       true,  false},
      {"PLADJ",    "Percentage of like adjacencies",             F::Aggregation,  C | L,   "%",          true,  false},
      {"IJI",      "Interspersion and juxtaposition index",      F::Aggregation,  C | L,   "%",          true,  false},
      {"COHESION", "Patch cohesion index",                       F::Aggregation,  C | L,   "none",       false, false},
      {"CONNECT",  "Connectance index",                          F::Aggregation,  C | L,   "%",          true,  false, "--threshold-distance"},
      {"DIVISION", "Landscape division index",                   F::Aggregation,  C | L,   "proportion", false, false},
      {"MESH",     "Effective mesh size",                        F::Aggregation,  C | L,   "ha",         false, false},
      {"SPLIT",    "Splitting index",                            F::Aggregation,  C | L,   "none",       false, false},
      {"AI",       "Aggregation index",                          F::Aggregation,  C | L,   "%",          true,  false},
      {"CONTAG",   "Contagion index",                            F::Aggregation,  L,       "%",          true,  false},
      {"PR",       "Patch richness",                             F::Diversity,    L,       "count",      false, false},
      {"PRD",      "Patch richness density",                     F::Diversity,    L,       "per 100 ha", false, false},
      {"RPR",      "Relative patch richness",                    F::Diversity,    L,       "%",          false, false, "--max-richness"},
      {"SHDI",     "Shannon's diversity index",                  F::Diversity,    L,       "none",       false, false},
      {"SIDI",     "Simpson's diversity index",                  F::Diversity,    L,       "none",       false, false},
      {"MSIDI",    "Modified Simpson's diversity index",         F::Diversity,    L,       "none",       false, false},
      {"SHEI",     "Shannon's evenness index",                   F::Diversity,    L,       "none",       false, false},
      {"SIEI",     "Simpson's evenness index",                   F::Diversity,    L,       "none",       false, false},
      {"MSIEI",    "Modified Simpson's evenness index",          F::Diversity,    L,       "none",       false, false},
      {"ENT",      "Marginal entropy",                           F::Information,  L,       "bits",       true,  false},
      {"CONDENT",  "Conditional entropy",                        F::Information,  L,       "bits",       true,  false},
      {"JOINENT",  "Joint entropy",                              F::Information,  L,       "bits",       true,  false},
      {"MUTINF",   "Mutual information",                         F::Information,  L,       "bits",       true,  false},
      {"RELMUTINF", "Relative mutual information",                F::Information,  L,       "proportion", true,  false},
  };
  // clang-format on
  return catalogue;
}

const MetricInfo* find_metric(const std::string& acronym) {
  for (const MetricInfo& m : metric_catalogue())
    if (acronym == m.acronym) return &m;
  return nullptr;
}

const char* family_name(MetricFamily family) {
  switch (family) {
    case MetricFamily::AreaEdge: return "area and edge";
    case MetricFamily::Shape: return "shape";
    case MetricFamily::CoreArea: return "core area";
    case MetricFamily::Contrast: return "contrast";
    case MetricFamily::Isolation: return "isolation";
    case MetricFamily::Aggregation: return "aggregation";
    case MetricFamily::Information: return "information theory (landscapemetrics)";
    case MetricFamily::Diversity: break;
  }
  return "diversity";
}

const std::vector<std::string>& distribution_statistics() {
  static const std::vector<std::string> stats = {"MN", "AM", "MD", "RA", "SD", "CV"};
  return stats;
}

std::vector<std::string> patch_metric_columns() {
  std::vector<std::string> columns;
  for (const MetricInfo& m : metric_catalogue())
    if (m.levels & kPatchLevel) columns.push_back(m.acronym);
  return columns;
}

const std::vector<MissingMetric>& missing_metrics() {
  // FRAGSTATS 4.2's isolation, contrast and connectivity metrics that take an
  // auxiliary table or a distance (its "Isolation/Proximity", "Contrast" and
  // "Connectivity" sections).
  static const std::vector<MissingMetric> missing = {
      {"GISFRAG", "FRAGSTATS", ""},
  };
  return missing;
}

const MissingMetric* find_missing_metric(const std::string& acronym) {
  std::string base = acronym;
  const size_t u = base.rfind('_');
  if (u != std::string::npos) {
    const auto& stats = distribution_statistics();
    if (std::find(stats.begin(), stats.end(), base.substr(u + 1)) != stats.end()) base.erase(u);
  }
  for (const MissingMetric& m : missing_metrics())
    if (base == m.acronym) return &m;
  return nullptr;
}

}  // namespace lsm
