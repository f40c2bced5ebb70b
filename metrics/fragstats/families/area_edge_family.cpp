// Area and edge metrics (FRAGSTATS 4.2, "Area and Edge Metrics"), with NP,
// PD and LSI, which FRAGSTATS documents under aggregation but prints here.
#include <algorithm>

#include "metric_families.h"

namespace lsm::families {

void add_class_area_edge(RowBuilder& b, const LevelContext& c, size_t k) {
  const ClassSums& s = c.sum(k);
  const double background_m = c.background_m(k);
  // The background's edges and the landscape boundary count as edge by the
  // proportion boundary_edge (FRAGSTATS' "boundary/background" setting);
  // beside a landscape border, the boundary is edge where the border gives
  // another class, none where it gives this one, background edge where it
  // gives a background class.
  const double w = c.options->boundary_edge;
  double te = s.edge_m - background_m + w * (s.boundary_m + background_m);
  if (c.options->border) {
    const LevelContext::BorderLengths border = c.border_lengths(k);
    te = s.edge_m - background_m + border.edge_m + w * (s.boundary_m - border.same_m - border.edge_m + background_m);
  }
  b.add("CA", c.ha(s.size));
  b.add("PLAND", s.size / c.total * 100);
  b.add("NP", static_cast<double>(s.patches));
  b.add("PD", static_cast<double>(s.patches) / c.ta * 100);
  b.add("LPI", s.largest / c.total * 100);
  b.add("TE", te);
  b.add("ED", te / c.ta);
  b.add("LSI", static_cast<double>(s.perim_sides) / static_cast<double>(min_perimeter_sides(s.cells)));
}

void add_landscape_area_edge(RowBuilder& b, const LevelContext& c) {
  double boundary_m = 0, background_m = 0, class_edge_m = 0, largest = 0, border_edge_m = 0;
  uint64_t perim_sides = 0, boundary_sides = 0;
  for (size_t k : c.classes) {  // in class order, as the sums always were
    const ClassSums& s = c.sum(k);
    const double to_background = c.background_m(k);
    boundary_m += s.boundary_m;
    if (c.options->border) {  // the boundary beside the border: true edge once, none, background edge
      const LevelContext::BorderLengths border = c.border_lengths(k);
      border_edge_m += border.edge_m;
      boundary_m -= border.same_m + border.edge_m;
    }
    background_m += to_background;
    class_edge_m += s.edge_m - to_background;
    largest = std::max(largest, s.largest);
    perim_sides += s.perim_sides;
    boundary_sides += s.boundary_sides;
  }
  // Every edge between classes is in two classes' edge: halved.
  double te = class_edge_m / 2 + c.options->boundary_edge * (boundary_m + background_m);
  if (c.options->border) te = class_edge_m / 2 + border_edge_m + c.options->boundary_edge * (boundary_m + background_m);
  const double patches = static_cast<double>(c.patches_of(c.classes));
  b.add("TA", c.ta);
  b.add("NP", patches);
  b.add("PD", patches / c.ta * 100);
  b.add("LPI", largest / c.total * 100);
  b.add("TE", te);
  b.add("ED", te / c.ta);
  // LSI: every edge once plus the whole landscape boundary, in cell sides.
  const double e_star = static_cast<double>(perim_sides + boundary_sides) / 2;
  b.add("LSI", e_star / static_cast<double>(min_perimeter_sides(c.z)));
}

}  // namespace lsm::families
