#pragma once
// FRAGSTATS area and edge metrics at patch, class and landscape level,
// derived from the patch records of one scan (FRAGSTATS 4.2 documentation,
// "Area and Edge Metrics"; McGarigal, Cushman & Ene 2012).
#include <cstdint>
#include <vector>

#include "patch_stats.h"
#include "raster.h"

namespace lsm {

/// AREA (ha): cells x cell area / 10000.
double patch_area_ha(const PatchStats& p, const RasterInfo& r);
/// PERIM (m): every cell side of the patch that borders another class,
/// nodata or the raster's edge, at its length (cell width for top/bottom
/// sides, cell height for left/right sides).
double patch_perim_m(const PatchStats& p, const RasterInfo& r);

/// One row of the class table.
struct ClassAreaEdge {
  int32_t type = 0;     ///< class code
  double ca = 0;        ///< CA, total class area (ha)
  double pland = 0;     ///< PLAND, CA / TA * 100 (%)
  uint64_t np = 0;      ///< NP, number of patches
  double pd = 0;        ///< PD, NP / TA * 100 (patches per 100 ha)
  double lpi = 0;       ///< LPI, largest patch area / TA * 100 (%)
  double te = 0;        ///< TE, edge between this class and other classes inside the landscape (m)
  double ed = 0;        ///< ED, TE / TA (m/ha)
  double area_mn = 0;   ///< AREA_MN, CA / NP (ha)
};

/// The landscape row.
struct LandscapeAreaEdge {
  double ta = 0;        ///< TA, total landscape area: every cell that is not nodata (ha)
  uint64_t np = 0;      ///< NP
  double pd = 0;        ///< PD (per 100 ha)
  double lpi = 0;       ///< LPI (%)
  double te = 0;        ///< TE, edges between different classes, each counted once (m);
                        ///< the landscape boundary and edges to nodata are not counted
  double ed = 0;        ///< ED (m/ha)
  double area_mn = 0;   ///< AREA_MN (ha)
};

struct AreaEdgeMetrics {
  std::vector<ClassAreaEdge> classes;  ///< ascending class code
  LandscapeAreaEdge landscape;
};

/// Computes the class and landscape tables. Sums are taken over exact integer
/// counts first, so the result does not depend on the order of `patches`.
/// With no patches (a raster of nodata only) every value is 0.
AreaEdgeMetrics compute_area_edge_metrics(const std::vector<PatchStats>& patches, const RasterInfo& raster);

}  // namespace lsm
