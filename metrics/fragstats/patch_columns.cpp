#include "patch_columns.h"

#include <cmath>
#include <map>

#include "error.h"
#include "fragstats_metrics.h"
#include "metric_catalogue.h"

namespace lsm {
namespace {

// The quantities several formulas share, each computed one way only, so that
// a column derived from another (PARA from PERIM and AREA) is bit-identical
// to the columns themselves.
double area_ha(const PatchInputs& p) { return p.size * p.unit_m2 / 10000; }
double area_m2(const PatchInputs& p) { return p.size * p.unit_m2; }
double perim_m(const PatchInputs& p) {
  return p.geodesic ? p.geodesic->perim_m
                    : static_cast<double>(p.record->perim_edges_h) * p.cell_width +
                          static_cast<double>(p.record->perim_edges_v) * p.cell_height;
}
uint64_t perim_sides(const PatchInputs& p) { return p.record->perim_edges_h + p.record->perim_edges_v; }
double core_ha(const PatchInputs& p) {
  return p.geodesic ? p.geodesic->core_m2 / 10000 : static_cast<double>(p.shape->core_cells) * p.unit_m2 / 10000;
}

// FRAGSTATS 4.2, Area and edge metrics: AREA (ha), PERIM (m), GYRATE (m; by
// the second pass's rule, fragstats_gyrate.h).
double area(const PatchInputs& p) { return area_ha(p); }
double perim(const PatchInputs& p) { return perim_m(p); }
double gyrate(const PatchInputs& p) { return p.shape->gyrate_m; }
// Shape metrics: PARA (m/ha), SHAPE, FRAC, CIRCLE, CONTIG.
double para(const PatchInputs& p) { return perim_m(p) / area_ha(p); }
double shape(const PatchInputs& p) {
  return static_cast<double>(perim_sides(p)) / static_cast<double>(min_perimeter_sides(p.record->cells));
}
double frac(const PatchInputs& p) {
  const double ln_a = std::log(area_m2(p));
  return ln_a == 0 ? 1 : 2 * std::log(0.25 * perim_m(p)) / ln_a;
}
double circle(const PatchInputs& p) {
  // FRAGSTATS' printed CIRCLE values are reproduced with pi taken as 3.1415
  // (with the exact pi about 1 in 20 patches differs in the 4th decimal; docs/metrics.md).
  constexpr double kFragstatsPi = 3.1415;
  const double r = p.shape->circle_radius_m;
  return p.record->cells == 1 ? 0 : 1 - area_m2(p) / (kFragstatsPi * r * r);
}
double contig(const PatchInputs& p) {
  const double a = static_cast<double>(p.record->cells);
  const double orth_pairs = (4 * a - static_cast<double>(perim_sides(p))) / 2;
  const double contig_sum = a + 2 * 2 * orth_pairs + 2 * static_cast<double>(p.shape->diagonal_pairs);
  return (contig_sum / a - 1) / 12;  // template 1-2-1 / 2-1-2 / 1-2-1: v = 13
}
// Core area metrics: CORE (ha), NCORE, CAI (%).
double core(const PatchInputs& p) { return core_ha(p); }
double ncore(const PatchInputs& p) { return static_cast<double>(p.shape->core_areas); }
double cai(const PatchInputs& p) { return core_ha(p) / area_ha(p) * 100; }
// Contrast: ECON (%), FRAGSTATS 4.2 P1: the perimeter's sides weighted by
// their edge contrast over the perimeter, x 100; N/A without weights.
double econ(const PatchInputs& p) {
  if (!p.contrast) return std::nan("");
  const PatchContrast& c = *p.contrast;
  const double weighted_m = p.geodesic ? c.weighted_m : c.weights_h * p.cell_width + c.weights_v * p.cell_height;
  return weighted_m / perim_m(p) * 100;
}
// Isolation: ENN (m; NaN when the class has no other patch).
double enn(const PatchInputs& p) { return p.shape->enn_m; }
// PROX (none; FRAGSTATS 4.2 P2, proximity_sweep.h); N/A without a search radius.
double prox(const PatchInputs& p) { return p.proximity ? *p.proximity : std::nan(""); }
// SIMI (none; FRAGSTATS 4.2 P3, proximity_sweep.h); N/A without a search radius and similarity weights.
double simi(const PatchInputs& p) { return p.similarity ? *p.similarity : std::nan(""); }

const std::map<std::string, PatchFormula>& formulas_by_acronym() {
  static const std::map<std::string, PatchFormula> formulas = {
      {"AREA", area},     {"PERIM", perim}, {"GYRATE", gyrate}, {"PARA", para}, {"SHAPE", shape}, {"FRAC", frac},
      {"CIRCLE", circle}, {"CONTIG", contig}, {"CORE", core},   {"NCORE", ncore}, {"CAI", cai},   {"ECON", econ}, {"ENN", enn}, {"PROX", prox},
      {"SIMI", simi},
  };
  return formulas;
}

}  // namespace

const std::vector<PatchFormula>& patch_column_formulas() {
  static const std::vector<PatchFormula> in_order = [] {
    std::vector<PatchFormula> list;
    for (const std::string& acronym : patch_metric_columns()) {
      const auto it = formulas_by_acronym().find(acronym);
      if (it == formulas_by_acronym().end())
        throw Error(ErrorKind::Internal, "patch metric " + acronym + " has no formula (patch_columns.cpp)");
      list.push_back(it->second);
    }
    return list;
  }();
  return in_order;
}

size_t patch_column(const std::string& acronym) {
  static const std::vector<std::string> columns = patch_metric_columns();
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == acronym) return i;
  throw Error(ErrorKind::Internal, acronym + " is not a patch column");
}

}  // namespace lsm
