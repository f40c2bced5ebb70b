#pragma once
// GYRATE, the radius of gyration of a patch (FRAGSTATS 4.2, "Area and edge
// metrics: GYRATE"), in two rules:
//
// - Fragstats (lsm's default): what FRAGSTATS prints. The mean distance from
//   the cell centres is taken not to the centroid but to the patch's per-axis
//   *area median* point, each cell counted as a unit square: along one axis,
//   walk the distinct coordinates u in ascending order with k cells each,
//   accumulating a count c; at the first u where c + k >= n/2 the median is
//   u - 0.5 + (n/2 - c)/k (cell centres at integer coordinates). A one-cell
//   patch is half the cell width (the rule would give 0). This reproduces
//   every GYRATE FRAGSTATS printed for the augusta and simulated landscapes
//   (tests/test_fragstats_reference.cpp).
// - Centroid: the documented definition, the mean distance from the cell
//   centres to the centroid (mean of the cell centres); 0 for one cell.
#include <cstdint>
#include <string>
#include <vector>

#include "cell_geometry.h"
#include "open_patch_runs.h"

namespace lsm {

enum class GyrateRule { Fragstats, Centroid };

/// Parses "fragstats" or "centroid"; throws lsm::Error(BadInput) otherwise.
GyrateRule parse_gyrate_rule(const std::string& text);

/// FRAGSTATS' area median along one axis: `counts` = (coordinate, cells at
/// that coordinate), coordinates ascending, all counts > 0; `n` = their sum.
double area_median(const std::vector<std::pair<int64_t, uint64_t>>& counts, uint64_t n);

/// FRAGSTATS' GYRATE (m) of the patch made of `runs` (raster order, the
/// patch's every cell) under `geometry`. Distances are summed cell by cell
/// in raster order, so the value does not depend on how the patch was found.
double fragstats_gyrate_m(const std::vector<CellRun>& runs, const CellGeometry& geometry);

}  // namespace lsm
