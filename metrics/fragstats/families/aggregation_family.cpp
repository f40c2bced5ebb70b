// Aggregation metrics (FRAGSTATS 4.2, "Aggregation Metrics"): CLUMPY, PLADJ,
// IJI, COHESION, CONNECT, DIVISION, MESH, SPLIT, AI, NLSI, CONTAG, from the
// class adjacencies (double count), the classes' sums and CONNECT's joined
// pairs (connectance_sweep.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "landscape_border.h"
#include "metric_families.h"

namespace lsm::families {

Subdivision subdivision(const LevelContext& c, bool no_patches, double sp, double spa, double sa2) {
  Subdivision s;
  // Z "excludes any internal background present" (FRAGSTATS 4.2, C7 and L7);
  // A of DIVISION, MESH and SPLIT includes it (C10 to C12, L9 to L11).
  const double zd = static_cast<double>(c.class_cells);
  s.cohesion = (no_patches || c.class_cells <= 1) ? kNaN : (1 - sp / spa) / (1 - 1 / std::sqrt(zd)) * 100;
  s.division = 1 - sa2 / (c.total * c.total);
  s.mesh = c.ha(sa2 / c.total);
  s.split = sa2 > 0 ? c.total * c.total / sa2 : kNaN;
  return s;
}

namespace {

// IJI beside a landscape border (FRAGSTATS 4.2, C/L "Interspersion and
// juxtaposition index"): the patch types of the border count in m, and the
// boundary beside a border cell is edge between the class inside and the
// class the cell gives (none where they are one class); background is
// ignored. Edge lengths by pair of class codes, in code order.
double patch_types_with_border(const LevelContext& c) {
  std::set<int32_t> types;
  for (size_t k : c.classes) types.insert(c.adjacency->class_codes[k]);
  for (int32_t b : c.options->border->all_classes())
    if (!c.options->background.count(b)) types.insert(b);
  return static_cast<double>(types.size());
}

double class_iji_with_border(const LevelContext& c, size_t k) {
  const std::vector<int32_t>& codes = c.adjacency->class_codes;
  std::map<int32_t, double> e;  // by the other type's code
  for (size_t j : c.classes)
    if (j != k) e[codes[j]] += c.adjacency->length_m(k, j, c.cw, c.ch);
  for (const auto& [beyond, m] : c.border_lengths(k).by_class)
    if (beyond != codes[k] && !c.options->background.count(beyond)) e[beyond] += m;
  double e_total = 0, h = 0;
  for (const auto& [type, m] : e) e_total += m;
  for (const auto& [type, m] : e)
    if (e_total > 0) h -= ln_ratio_term(m / e_total);
  const double types = patch_types_with_border(c);
  return types >= 3 && e_total > 0 ? h / std::log(types - 1) * 100 : kNaN;
}

double landscape_iji_with_border(const LevelContext& c) {
  const std::vector<int32_t>& codes = c.adjacency->class_codes;
  const std::vector<size_t>& cl = c.classes;
  std::map<std::pair<int32_t, int32_t>, double> e;  // by pair of codes, the smaller first
  for (size_t x = 0; x < cl.size(); ++x)
    for (size_t y = x + 1; y < cl.size(); ++y) e[{codes[cl[x]], codes[cl[y]]}] += c.adjacency->length_m(cl[x], cl[y], c.cw, c.ch);
  for (size_t i : cl)
    for (const auto& [beyond, m] : c.border_lengths(i).by_class)
      if (beyond != codes[i] && !c.options->background.count(beyond))
        e[{std::min(codes[i], beyond), std::max(codes[i], beyond)}] += m;
  double e_all = 0, h = 0;
  for (const auto& [pair, m] : e) e_all += m;
  for (const auto& [pair, m] : e)
    if (e_all > 0) h -= ln_ratio_term(m / e_all);
  const double types = patch_types_with_border(c);
  return types >= 3 && e_all > 0 ? h / std::log(types * (types - 1) / 2) * 100 : kNaN;
}

// CONNECT (C31, L30): joined pairs over the possible pairs n(n-1)/2 of the
// classes `ids`, x 100; 0 where no pair is possible (one patch), as
// FRAGSTATS reports; N/A without a threshold distance.
double connect(const LevelContext& c, const std::vector<size_t>& ids) {
  if (!c.joinings) return kNaN;
  double joined = 0, possible = 0;
  for (size_t k : ids) {
    const double n = static_cast<double>(c.sum(k).patches);
    joined += static_cast<double>((*c.joinings)[k]);
    possible += n * (n - 1) / 2;
  }
  return possible > 0 ? joined / possible * 100 : 0;
}

}  // namespace

double class_ai(const LevelContext& c, size_t k) {
  const double max_g = static_cast<double>(max_like_adjacencies(c.sum(k).cells));
  return max_g > 0 ? static_cast<double>(c.adjacency->at(k, k)) / 2 / max_g : kNaN;
}

void add_class_aggregation(RowBuilder& b, const LevelContext& c, size_t k) {
  const ClassAdjacency& adj = *c.adjacency;
  const size_t kc = adj.class_codes.size();
  const ClassSums& s = c.sum(k);
  const double ad = static_cast<double>(s.cells), zd = static_cast<double>(c.z), P = s.size / c.total;
  // Adjacencies of class k (double count), over every class and the background.
  // FRAGSTATS counts the sides on the landscape boundary (raster edge, nodata)
  // among the adjacencies of PLADJ and CLUMPY (matches its output).
  double g_all = static_cast<double>(s.boundary_sides);
  for (size_t j = 0; j < kc; ++j) g_all += static_cast<double>(adj.at(k, j));
  const double g_like = static_cast<double>(adj.at(k, k));
  const double min_e = static_cast<double>(min_perimeter_sides(s.cells));
  // Most edge class k can have: every cell isolated (4 sides each) while it
  // covers at most half the landscape; beyond, the other cells isolated in
  // it, plus the whole landscape boundary (matches FRAGSTATS' output).
  const double max_e = ad <= zd / 2 ? 4 * ad : 4 * (zd - ad) + static_cast<double>(c.landscape_boundary_sides);
  const double G = g_like / (g_all - min_e);
  b.add("CLUMPY", (G < P && P < 0.5) ? (G - P) / P : (G - P) / (1 - P));
  b.add("PLADJ", g_all > 0 ? g_like / g_all * 100 : kNaN);
  // IJI: edge lengths to each other class (background excluded).
  if (c.options->border) {
    b.add("IJI", class_iji_with_border(c, k));
  } else {
    double e_total = 0, h = 0;
    for (size_t j : c.classes)
      if (j != k) e_total += adj.length_m(k, j, c.cw, c.ch);
    for (size_t j : c.classes)
      if (j != k && e_total > 0) h -= ln_ratio_term(adj.length_m(k, j, c.cw, c.ch) / e_total);
    b.add("IJI", (c.m_classes >= 3 && e_total > 0) ? h / std::log(c.m_classes - 1) * 100 : kNaN);
  }
  const Subdivision sub = subdivision(c, s.patches == 0, s.sp, s.spa, s.sa2);
  b.add("COHESION", sub.cohesion);
  b.add("CONNECT", connect(c, {k}));
  b.add("DIVISION", sub.division);
  b.add("MESH", sub.mesh);
  b.add("SPLIT", sub.split);
  b.add("AI", class_ai(c, k) * 100);
  b.add("NLSI", max_e > min_e ? (static_cast<double>(s.perim_sides) - min_e) / (max_e - min_e) : kNaN);
}

void add_landscape_aggregation(RowBuilder& b, const LevelContext& c) {
  const ClassAdjacency& adj = *c.adjacency;
  // CONTAG and PLADJ over the classes' adjacencies (double count). CONTAG
  // ignores every background edge segment and bases Pi on the landscape
  // without background (FRAGSTATS 4.2, L1); PLADJ's denominator holds the
  // background segments, each counted once (from the class side), and the
  // landscape boundary (L3).
  double contag = 0, like = 0, adjacencies = 0, background_sides = 0;
  uint64_t boundary_sides = 0;
  for (size_t i : c.classes) {
    double gi = 0;
    for (size_t k : c.classes) gi += static_cast<double>(adj.at(i, k));
    const double Pi = c.sum(i).size / c.class_total;
    for (size_t k : c.classes)
      if (gi > 0) contag += ln_ratio_term(Pi * static_cast<double>(adj.at(i, k)) / gi);
    like += static_cast<double>(adj.at(i, i));
    adjacencies += gi;
    boundary_sides += c.sum(i).boundary_sides;
    for (size_t b = 0; b < c.background.size(); ++b)
      if (c.background[b]) background_sides += static_cast<double>(adj.at(i, b));
  }
  const double pladj_total = adjacencies + background_sides + static_cast<double>(boundary_sides);
  b.add("CONTAG", c.m_classes >= 2 ? (1 + contag / (2 * std::log(c.m_classes))) * 100 : kNaN);
  b.add("PLADJ", pladj_total > 0 ? like / pladj_total * 100 : kNaN);
  const std::vector<size_t>& cl = c.classes;
  if (c.options->border) {
    b.add("IJI", landscape_iji_with_border(c));
  } else {
    double e_all = 0, h = 0;
    for (size_t x = 0; x < cl.size(); ++x)
      for (size_t y = x + 1; y < cl.size(); ++y) e_all += adj.length_m(cl[x], cl[y], c.cw, c.ch);
    for (size_t x = 0; x < cl.size(); ++x)
      for (size_t y = x + 1; y < cl.size(); ++y)
        if (e_all > 0) h -= ln_ratio_term(adj.length_m(cl[x], cl[y], c.cw, c.ch) / e_all);
    b.add("IJI", (c.m_classes >= 3 && e_all > 0) ? h / std::log(c.m_classes * (c.m_classes - 1) / 2) * 100 : kNaN);
  }
  double sp = 0, spa = 0, sa2 = 0;
  for (size_t k : cl) {
    sp += c.sum(k).sp;
    spa += c.sum(k).spa;
    sa2 += c.sum(k).sa2;
  }
  const Subdivision sub = subdivision(c, c.patches_of(cl) == 0, sp, spa, sa2);
  b.add("COHESION", sub.cohesion);
  b.add("CONNECT", connect(c, cl));
  b.add("DIVISION", sub.division);
  b.add("MESH", sub.mesh);
  b.add("SPLIT", sub.split);
}

void add_landscape_ai(RowBuilder& b, const LevelContext& c) {
  // The classes' AI weighted by their share of the landscape without
  // background (FRAGSTATS 4.2, L4: "Pi is based on the total landscape area
  // (A) excluding any background present").
  double ai = 0;
  for (size_t k : c.classes) {
    const double class_value = class_ai(c, k);
    if (!std::isnan(class_value)) ai += class_value * (c.sum(k).size / c.class_total);
  }
  b.add("AI", c.classes.empty() ? kNaN : ai * 100);  // no class: no aggregation to measure
}

}  // namespace lsm::families
