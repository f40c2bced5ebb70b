// Contrast metrics (FRAGSTATS 4.2, "Contrast metrics": C1 and L1 CWED, C2
// and L2 TECI) from the class adjacencies and the edge contrast weights of
// a FRAGSTATS .fce file (class_pair_table.h), and the distribution of the
// patches' ECON (P1, patch_columns.cpp). Without a table they are N/A.
// Beside a landscape border (landscape_border.h) a boundary segment takes
// the weight of the class the border gives (none where it gives the
// segment's own class: no edge); elsewhere the landscape boundary takes the
// weights of the background (boundary_class()), counted whole — the
// weights, not --boundary-edge, say how much of it is contrast.
#include "class_pair_table.h"
#include "metric_families.h"

namespace lsm::families {

namespace {

// The background class codes of the context, for boundary_class().
std::vector<int32_t> background_codes(const LevelContext& c) {
  std::vector<int32_t> codes;
  for (int32_t b : c.options->background) codes.push_back(b);
  return codes;
}

void add_class_edge_contrast(RowBuilder& b, const LevelContext& c, size_t k) {
  if (!c.options->contrast) {
    b.add("CWED", kNaN);
    b.add("TECI", kNaN);
    return;
  }
  const ClassPairTable& table = *c.options->contrast;
  const std::vector<int32_t>& codes = c.adjacency->class_codes;
  const double boundary_d = table.weight(codes[k], boundary_class(table, background_codes(c)));
  // Every edge of the class with another class or the background, and the
  // landscape boundary along it: e_ik d_ik over e*_ik (both whole).
  double weighted = 0, all = 0;
  for (size_t j = 0; j < codes.size(); ++j) {
    if (j == k) continue;
    const double e = c.adjacency->length_m(k, j, c.cw, c.ch);
    if (e == 0) continue;
    weighted += e * table.weight(codes[k], codes[j]);
    all += e;
  }
  double boundary_m = c.sum(k).boundary_m;
  if (c.options->border) {
    for (const auto& [beyond, m] : c.border_lengths(k).by_class) {
      boundary_m -= m;
      if (beyond == codes[k]) continue;
      weighted += m * table.weight(codes[k], beyond);
      all += m;
    }
  }
  weighted += boundary_m * boundary_d;
  all += boundary_m;
  b.add("CWED", weighted / c.ta);
  b.add("TECI", all > 0 ? weighted / all * 100 : kNaN);
}

void add_landscape_edge_contrast(RowBuilder& b, const LevelContext& c) {
  if (!c.options->contrast) {
    b.add("CWED", kNaN);
    b.add("TECI", kNaN);
    return;
  }
  const ClassPairTable& table = *c.options->contrast;
  const std::vector<int32_t>& codes = c.adjacency->class_codes;
  const int32_t boundary = boundary_class(table, background_codes(c));
  // Each edge once: class pairs i < j, a class with the background, and the
  // boundary along the classes; E* adds the boundary along the background
  // (FRAGSTATS: "the entire landscape boundary and background edge
  // segments regardless of whether they represent edge").
  double weighted = 0, all = 0;
  for (size_t i = 0; i < codes.size(); ++i) {
    double boundary_m = c.sum(i).boundary_m;
    if (c.options->border) {  // beside the border: the class it gives, no edge where it is class i
      for (const auto& [beyond, m] : c.border_lengths(i).by_class) {
        boundary_m -= m;
        if (beyond == codes[i]) continue;
        all += m;
        if (!c.background[i]) weighted += m * table.weight(codes[i], beyond);
      }
    }
    all += boundary_m;
    if (c.background[i]) continue;
    weighted += boundary_m * table.weight(codes[i], boundary);
    for (size_t j = 0; j < codes.size(); ++j) {
      if (j == i || (!c.background[j] && j < i)) continue;
      const double e = c.adjacency->length_m(i, j, c.cw, c.ch);
      if (e == 0) continue;
      weighted += e * table.weight(codes[i], codes[j]);
      all += e;
    }
  }
  b.add("CWED", weighted / c.ta);
  b.add("TECI", all > 0 ? weighted / all * 100 : kNaN);
}

}  // namespace

void add_class_contrast(RowBuilder& b, const LevelContext& c, size_t k) {
  add_class_edge_contrast(b, c, k);
  c.patch_distribution(b, "ECON", {k});
}

void add_landscape_contrast(RowBuilder& b, const LevelContext& c) {
  add_landscape_edge_contrast(b, c);
  c.patch_distribution(b, "ECON", c.classes);
}

}  // namespace lsm::families
