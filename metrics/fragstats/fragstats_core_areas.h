#pragma once
// Disjunct core areas (FRAGSTATS 4.2, "Core area metrics": NCORE, DCORE,
// NDCA) in two rules:
//
// - Fragstats (lsm's default): what FRAGSTATS prints, defect included.
//   Per patch, FRAGSTATS scans the patch's bounding box in row-major order;
//   at an unvisited core cell it counts one area and floods it with a LIFO
//   stack, pushing the unvisited core neighbours in the order N, E, S, W,
//   NE, SE, SW, NW and marking them visited on push. When the stack is
//   empty the scan resumes from the *last popped* cell, not from where the
//   area started, so a core area lying wholly between the two is never
//   counted, and its cells are missing from CORE too (augusta: 105 areas,
//   177 cells). This reproduces every CORE, NCORE and CAI FRAGSTATS printed
//   for the augusta and simulated landscapes (tests/test_fragstats_reference.cpp).
// - All: the documented definition, every 8-connected component of the
//   patch's core cells is a disjunct core area (core_area.h traces them
//   row by row).
#include <cstdint>
#include <string>
#include <vector>

#include "cell_geometry.h"
#include "open_patch_runs.h"

namespace lsm {

enum class CoreAreaRule { Fragstats, All };

/// Parses "fragstats" or "all"; throws lsm::Error(BadInput) otherwise.
CoreAreaRule parse_core_area_rule(const std::string& text);

/// One core area FRAGSTATS counts: its cells and, with a geometry of a
/// geographic raster, its area on the ellipsoid (m2; else 0).
struct CountedCoreArea {
  uint64_t cells = 0;
  double area_m2 = 0;
};

/// FRAGSTATS' scan over the core cells of one patch, given as runs in raster
/// order (runs of one row do not touch). Returns the counted areas in the
/// order FRAGSTATS finds them. `geometry` may be null (areas 0). Works on
/// bitmaps of the core cells' bounding box (2 bits per cell) when they take
/// at most `max_bitmap_bytes`, else on the runs alone (slower, memory of the
/// runs); both give the same areas. Time linear in the cells (bitmaps) or
/// times a logarithm (runs).
std::vector<CountedCoreArea> fragstats_core_areas(const std::vector<CellRun>& core_runs,
                                                  const CellGeometry* geometry,
                                                  uint64_t max_bitmap_bytes = uint64_t(256) << 20);

}  // namespace lsm
