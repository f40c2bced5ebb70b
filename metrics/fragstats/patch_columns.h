#pragma once
// The patch table's columns as formulas keyed by catalogue acronym: one entry
// per patch metric of the catalogue (metric_catalogue.h), each computing a
// patch's value from its scan record and its second-pass values. A new patch
// metric is a catalogue entry plus a formula here (plus, where it needs the
// patch's cells, a second-pass stage: patch_row_metrics.h). Formulas, units
// and where lsm follows FRAGSTATS' printed output: docs/metrics.md.
#include <cstddef>
#include <string>
#include <vector>

#include "patch_row_metrics.h"
#include "patch_stats.h"

namespace lsm {

/// What a patch's columns are computed from.
struct PatchInputs {
  const PatchStats* record = nullptr;       ///< the scan's record
  const PatchShape* shape = nullptr;        ///< second-pass values (zeros where there was no second pass)
  const PatchGeodesic* geodesic = nullptr;  ///< geographic rasters only, else null
  const PatchContrast* contrast = nullptr;  ///< ECON's weighted perimeter; null without edge contrast weights
  const double* proximity = nullptr;        ///< PROX (proximity_sweep.h); null without a search radius
  const double* similarity = nullptr;       ///< SIMI (proximity_sweep.h); null without a radius and similarity weights
  double cell_width = 0, cell_height = 0;   ///< m (projected rasters)
  /// The patch's size: its cells, or on geographic rasters its area (m2) on the ellipsoid.
  double size = 0;
  /// m2 of one unit of `size`: the cell area, or 1 on geographic rasters.
  double unit_m2 = 0;
};

/// One column's formula: the patch's value (units as the catalogue's).
using PatchFormula = double (*)(const PatchInputs& patch);

/// The formulas of the patch table's columns, in patch_metric_columns()
/// order. Throws lsm::Error(Internal) when a catalogue patch metric has none
/// (a test holds the two together).
const std::vector<PatchFormula>& patch_column_formulas();

/// The index of `acronym` among patch_metric_columns(). Throws
/// lsm::Error(Internal) for an acronym that is not a patch column.
size_t patch_column(const std::string& acronym);

}  // namespace lsm
