#pragma once
// Per-patch accumulators: everything the area and edge metrics need, as exact
// integer counts so that merging across tile seams gives bit-identical results
// for any tile size and either backend.
#include <algorithm>
#include <cstdint>

namespace lsm {

/// FRAGSTATS neighbour rule: cells of one class connect through their 4 edge
/// neighbours, or through their 8 edge and corner neighbours (FRAGSTATS 4.2
/// default: 8).
enum class NeighbourRule { Four = 4, Eight = 8 };

/// Counts describing one patch (or one tile-local fragment of a patch).
/// "Horizontal" edges are the top/bottom sides of a cell (length = cell width),
/// "vertical" edges the left/right sides (length = cell height).
struct PatchStats {
  // Laid out largest fields first, 88 bytes: millions of records are held
  // per raster, so every 8 bytes count.
  uint64_t first_cell = 0;  ///< row * raster_width + col of the patch's first cell in raster order
  uint64_t cells = 0;       ///< number of cells (AREA = cells * cell area)
  /// Cell sides of the patch that border anything that is not the patch's class:
  /// another class, nodata or the raster's edge (FRAGSTATS PERIM).
  uint64_t perim_edges_h = 0;
  uint64_t perim_edges_v = 0;
  /// The subset of the perimeter sides that border another class inside the
  /// landscape (FRAGSTATS TE/ED at class and landscape level count only these).
  uint64_t class_edges_h = 0;
  uint64_t class_edges_v = 0;
  /// Sums of the column and row indices of the patch's cells (raster
  /// coordinates): the centroid is (sum_col/cells, sum_row/cells), which
  /// GYRATE's centroid rule needs before its per-cell pass.
  uint64_t sum_col = 0;
  uint64_t sum_row = 0;
  /// Bounding box of the patch's cells (raster column and row indices,
  /// inclusive; raster sides are below 2^32 cells); an empty record has min > max.
  uint32_t col_min = UINT32_MAX, col_max = 0;
  uint32_t row_min = UINT32_MAX, row_max = 0;
  int32_t class_code = 0;   ///< the patch's class (TYPE in FRAGSTATS tables)

  /// Adds the cell at raster column `col`, row `row` to the coordinate sums and the bounding box.
  void add_cell_position(uint64_t col, uint64_t row) {
    sum_col += col;
    sum_row += row;
    col_min = std::min(col_min, static_cast<uint32_t>(col));
    col_max = std::max(col_max, static_cast<uint32_t>(col));
    row_min = std::min(row_min, static_cast<uint32_t>(row));
    row_max = std::max(row_max, static_cast<uint32_t>(row));
  }

  /// Adds the fragment `o` (same patch) into this one.
  void merge(const PatchStats& o) {
    first_cell = std::min(first_cell, o.first_cell);
    cells += o.cells;
    perim_edges_h += o.perim_edges_h;
    perim_edges_v += o.perim_edges_v;
    class_edges_h += o.class_edges_h;
    class_edges_v += o.class_edges_v;
    sum_col += o.sum_col;
    sum_row += o.sum_row;
    col_min = std::min(col_min, o.col_min);
    col_max = std::max(col_max, o.col_max);
    row_min = std::min(row_min, o.row_min);
    row_max = std::max(row_max, o.row_max);
  }
  bool operator==(const PatchStats& o) const {
    return class_code == o.class_code && first_cell == o.first_cell && cells == o.cells &&
           perim_edges_h == o.perim_edges_h && perim_edges_v == o.perim_edges_v &&
           class_edges_h == o.class_edges_h && class_edges_v == o.class_edges_v && sum_col == o.sum_col &&
           sum_row == o.sum_row && col_min == o.col_min && col_max == o.col_max && row_min == o.row_min &&
           row_max == o.row_max;
  }
};
static_assert(sizeof(PatchStats) == 88, "PatchStats grew: it is held once per patch");

}  // namespace lsm
