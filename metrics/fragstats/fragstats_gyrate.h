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
#include <cmath>
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

/// The binary exponent k of GYRATE's fixed-point terms on a raster of
/// `width` x `height` cells of `cell_width` x `cell_height` m: every distance
/// between points of the raster, times 2^k, stays below 2^57 (so the sum of
/// a GPU warp's 32 terms fits a uint64, and 2^64 terms a 128-bit sum). A
/// 100 km square raster gets k = 39 (terms in steps of 2e-12 m), a 5000 km
/// one k = 33 (1e-10 m).
int gyrate_fixed_exponent(int64_t width, int64_t height, double cell_width, double cell_height);

/// FRAGSTATS' GYRATE (m) of the patch made of `runs` (raster order, the
/// patch's every cell) under `geometry`. On planar rasters each distance is
/// rounded to a fixed-point multiple of 2^-`fixed_exponent` m
/// (gyrate_fixed_exponent()) and the terms are summed exactly in 128-bit
/// integers, so the sum does not depend on the order of the cells: the GPU
/// backend (cuda/patch_rows_cuda.h) sums in its own order and gets the same
/// bits. On geographic rasters distances are summed cell by cell in raster order.
double fragstats_gyrate_m(const std::vector<CellRun>& runs, const CellGeometry& geometry, int fixed_exponent);

/// A distance (m, >= 0) as a fixed-point term of GYRATE's exact sum: the
/// round-to-nearest-even of distance x `scale` (scale = 2^k, so the product
/// is exact; llrint rounds as the GPU's __double2ll_rn does).
inline int64_t gyrate_fixed_term(double distance_m, double scale) { return std::llrint(distance_m * scale); }

/// GYRATE (m) from a patch's `cells` and the exact sum of its fixed-point
/// terms (`sum_high` x 2^64 + `sum_low`, in units of 2^-`fixed_exponent` m),
/// or half of `cell_width_m` for a one-cell patch (what FRAGSTATS prints).
double gyrate_from_fixed_sum(uint64_t cells, uint64_t sum_high, uint64_t sum_low, int fixed_exponent,
                             double cell_width_m);

}  // namespace lsm
