#pragma once
// Core area of patches (FRAGSTATS 4.2, "Core Area Metrics"): the cells of a
// patch farther than the edge depth from its edge, and the disjunct core
// areas they form. Fed the patch-ID raster row by row; memory is a few rows.
//
// Edge rule (checked against FRAGSTATS' output, docs/metrics.md): a cell is
// core when every cell whose centre lies within `depth` cells of its centre
// (Euclidean, centre to centre) belongs to the same patch and lies inside the
// raster. For depth 1 these are the 4 edge neighbours. The raster's edge and
// nodata count as edge. Disjunct core areas connect through all 8 neighbours.
#include <cstdint>
#include <functional>
#include <vector>

#include "cell_geometry.h"

namespace lsm {

class CoreAreaTracker {
 public:
  /// Called for every disjunct core area once it is complete: its patch, cell
  /// count and area (m2; the sum of its cells' areas when `geometry` was given, else 0).
  using RegionFn = std::function<void(uint32_t pid, uint64_t cells, double area_m2)>;
  /// Receives each row's core cells instead (core[x] = 1), rows in order,
  /// with the row's patch IDs: for a caller that counts the areas by
  /// another rule (fragstats_core_areas.h). Pointers valid during the call.
  using CoreRowFn = std::function<void(int64_t row, const uint8_t* core, const uint32_t* pids)>;

  /// `depth` >= 1 (cells). Throws lsm::Error(BadInput) otherwise. `geometry`
  /// (optional, must outlive the tracker) gives per-row cell areas.
  CoreAreaTracker(int64_t width, int64_t height, int depth, RegionFn on_region,
                  const CellGeometry* geometry = nullptr);

  /// Row `y` of patch IDs (rows 0..height-1 in order).
  void row(int64_t y, const uint32_t* pids);
  /// Row `y` with its core cells already decided (core[x] = 1, by the rule
  /// above, e.g. by a NeighbourhoodCounter): only the disjunct core areas are
  /// traced. Use either row() or core_row() for all rows of one tracker.
  void core_row(int64_t y, const uint32_t* pids, const uint8_t* core);
  /// From now on, hands every row's core cells to `fn` instead of tracing
  /// the disjunct core areas (the RegionFn is then never called).
  void send_core_rows_to(CoreRowFn fn) { on_core_row_ = std::move(fn); }
  /// Completes the last rows; call once after the last row.
  void finish();

 private:
  struct Run { int64_t x0, x1; uint32_t pid; uint32_t node; };
  struct Node { uint32_t parent; uint32_t pid; uint64_t cells; double area_m2; };

  void process_centre(int64_t c);
  void label_core_row(const uint8_t* core, const uint32_t* pids, double cell_area_m2);
  uint32_t find(uint32_t n);

  int64_t width_, height_;
  int depth_;
  std::vector<int32_t> reach_;  // reach_[|dy|]: half-width of the disc at row offset dy
  // Ring of the last 2*depth+1 rows: patch IDs and the same-ID run extents to the left/right.
  std::vector<std::vector<uint32_t>> pid_rows_;
  std::vector<std::vector<int32_t>> left_, right_;
  int64_t rows_seen_ = 0;
  std::vector<uint8_t> core_;
  // Streaming 8-connected labeling of the core cells (runs of the previous row).
  std::vector<Run> prev_runs_, runs_;
  std::vector<Node> nodes_;
  // Buffers reused from row to row.
  struct DiscRow { const uint32_t* pid; const int32_t* left; const int32_t* right; int32_t reach; };
  std::vector<DiscRow> disc_;
  std::vector<uint32_t> remap_;
  std::vector<Node> next_nodes_;
  RegionFn on_region_;
  CoreRowFn on_core_row_;
  const CellGeometry* geometry_;
};

}  // namespace lsm
