#include "area_edge_metrics.h"

#include <algorithm>
#include <map>

namespace lsm {
namespace {
// Areas are computed as (cells x cell area in m2) / 10000 so that integral
// cell areas give correctly rounded hectares (3 cells of 900 m2 print as 0.27).
double area_ha(uint64_t cells, const RasterInfo& r) { return double(cells) * (r.cell_width * r.cell_height) / 10000.0; }
double edge_length_m(uint64_t h_sides, uint64_t v_sides, const RasterInfo& r) {
  return double(h_sides) * r.cell_width + double(v_sides) * r.cell_height;
}
double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
// Percentages and densities per 100 ha as 100 * a / b, one rounding fewer than (a / b) * 100.
double percent(double a, double b) { return b > 0 ? 100.0 * a / b : 0.0; }
}  // namespace

double patch_area_ha(const PatchStats& p, const RasterInfo& r) { return area_ha(p.cells, r); }

double patch_perim_m(const PatchStats& p, const RasterInfo& r) {
  return edge_length_m(p.perim_edges_h, p.perim_edges_v, r);
}

AreaEdgeMetrics compute_area_edge_metrics(const std::vector<PatchStats>& patches, const RasterInfo& raster) {
  struct Totals {
    uint64_t cells = 0, np = 0, largest = 0, edges_h = 0, edges_v = 0;
  };
  std::map<int32_t, Totals> by_class;
  Totals land;
  for (const PatchStats& p : patches) {
    Totals& c = by_class[p.class_code];
    for (Totals* t : {&c, &land}) {
      t->cells += p.cells;
      t->np += 1;
      t->largest = std::max(t->largest, p.cells);
      t->edges_h += p.class_edges_h;
      t->edges_v += p.class_edges_v;
    }
  }
  const double ta = area_ha(land.cells, raster);

  AreaEdgeMetrics m;
  for (const auto& [type, t] : by_class) {
    ClassAreaEdge c;
    c.type = type;
    c.ca = area_ha(t.cells, raster);
    c.pland = percent(double(t.cells), double(land.cells));
    c.np = t.np;
    c.pd = percent(double(t.np), ta);
    c.lpi = percent(double(t.largest), double(land.cells));
    c.te = edge_length_m(t.edges_h, t.edges_v, raster);
    c.ed = ratio(c.te, ta);
    c.area_mn = ratio(c.ca, double(t.np));
    m.classes.push_back(c);
  }
  LandscapeAreaEdge& l = m.landscape;
  l.ta = ta;
  l.np = land.np;
  l.pd = percent(double(land.np), ta);
  l.lpi = percent(double(land.largest), double(land.cells));
  // Every class edge was counted from both of its sides.
  l.te = edge_length_m(land.edges_h / 2, land.edges_v / 2, raster);
  l.ed = ratio(l.te, ta);
  l.area_mn = ratio(ta, double(land.np));
  return m;
}

}  // namespace lsm
