#include "patch_row_metrics.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "cell_geometry.h"
#include "core_area.h"
#include "error.h"
#include "enclosing_circle.h"
#include "fragstats_core_parallel.h"
#include "enn_sweep.h"
#include "connectance_sweep.h"
#include "pair_depth_core.h"
#include "proximity_sweep.h"
#include "patch_records.h"
#include "nearest_neighbour.h"

namespace lsm {
namespace {

// What every visitor needs to know about the patches, by PID from one reading
// of the records (which may be on a scratch file): each patch's class index
// and last row, the class codes of the adjacency matrix and, for GYRATE's
// centroid rule, the centroids.
struct PatchClasses {
  PatchClasses(const PatchTable& table, bool centroids, const PagedPolicy& paged) {
    codes = class_codes(table);
    const size_t n = patch_count(table);
    class_of_pid.assign(n + 1, paged);
    last_row_of_pid.assign(n + 1, paged);
    patches_in_class.assign(codes.size(), 0);
    if (centroids) centroid_x.assign(n + 1, paged), centroid_y.assign(n + 1, paged), cells.assign(n + 1, paged);
    for_each_patch_block(table, size_t(1) << 16, [&](size_t first, const PatchStats* records, size_t count) {
      for (size_t j = 0; j < count; ++j) {
        const PatchStats& p = records[j];
        const size_t pid = first + j + 1;
        const uint32_t k = static_cast<uint32_t>(std::lower_bound(codes.begin(), codes.end(), p.class_code) - codes.begin());
        class_of_pid[pid] = k;
        last_row_of_pid[pid] = p.row_max;
        ++patches_in_class[k];
        if (centroids) {
          centroid_x[pid] = static_cast<double>(p.sum_col) / static_cast<double>(p.cells);
          centroid_y[pid] = static_cast<double>(p.sum_row) / static_cast<double>(p.cells);
          cells[pid] = p.cells;
        }
      }
      release_paged_memory();
    });
  }
  // Per-PID arrays, on scratch files beyond the paged policy's budget.
  std::vector<int32_t> codes;           // ascending
  PagedArray<uint32_t> class_of_pid;    // [pid], index 0 unused
  PagedArray<uint32_t> last_row_of_pid;  // [pid]: the patch's last row (PatchStats::row_max)
  std::vector<uint64_t> patches_in_class;
  PagedArray<double> centroid_x, centroid_y;  // [pid], cells; centroid rule only
  PagedArray<uint64_t> cells;                 // [pid]; centroid rule only
};

// CIRCLE's radius (m) of a patch from its hull, corners measured in the local
// plane at column `x_ref` (the first cell of the patch's last row).
double circle_radius_m(const RowConvexHull& hull, int64_t x_ref, const CellGeometry& geometry) {
  thread_local std::vector<std::pair<int64_t, int64_t>> corners;  // memory reused patch after patch
  thread_local std::vector<std::pair<double, double>> pts;
  hull.points(corners);
  pts.clear();
  for (const auto& [x, y] : corners) {
    double east, south;
    geometry.corner_m(x, y, static_cast<double>(x_ref), east, south);
    pts.emplace_back(east, south);
  }
  return half_diameter(pts);
}

// CIRCLE of every patch from its row extents (a NeighbourhoodCounter's), the
// hull built row by row as the shape visitor builds it; patches in parallel.
void circles_from_row_extents(const PatchRowExtents& e, const CellGeometry& geometry, PatchRowResults& out) {
  const int64_t patches = static_cast<int64_t>(out.patches.size());
  if (e.first_row.size() != out.patches.size() || e.first_entry.size() != out.patches.size() + 1)
    throw Error(ErrorKind::Internal, "CIRCLE: one row range per patch");
#pragma omp parallel for schedule(dynamic, 1024) if (patches > 1024)
  for (int64_t i = 0; i < patches; ++i) {
    RowConvexHull hull;
    const uint64_t first = e.first_entry[static_cast<size_t>(i)], end = e.first_entry[static_cast<size_t>(i) + 1];
    for (uint64_t j = first; j < end; ++j)
      hull.add_row(static_cast<int64_t>(e.first_row[static_cast<size_t>(i)] + (j - first)), e.left[j], e.right[j]);
    out.patches[static_cast<size_t>(i)].circle_radius_m = circle_radius_m(hull, e.left[end - 1], geometry);
  }
}

// GYRATE, CONTIG's diagonal pairs, the class adjacencies, CIRCLE's hulls and,
// for geographic rasters, the areas and edge lengths on the ellipsoid.
class ShapeVisitor : public PatchRowVisitor {
  // CIRCLE's hull of an open patch, built row by row.
  struct OpenHull {
    RowConvexHull hull;
    int64_t last_row = -1, row_first = 0, row_last = 0;  // the last row entered and its extent
    friend void reset_slot(OpenHull& h) {  // for the slot's next patch, keeping the hull's small buffers
      h.hull.reset();
      h.last_row = -1;
      h.row_first = h.row_last = 0;
    }
  };
 public:
  // `count_neighbourhoods` false: CONTIG's diagonal pairs and the adjacency
  // counts come from a NeighbourhoodCounter instead.
  ShapeVisitor(const PatchTable& table, const PatchClasses& classes, const CellGeometry& geometry,
               PatchRowResults& out, bool count_neighbourhoods, bool centroid_gyrate, const PagedPolicy& paged)
      : table_(table),
        width_(table.raster.width),
        out_(out),
        geometry_(geometry),
        classes_(classes),
        class_of_pid_(classes.class_of_pid),
        hulls_(patch_count(table), paged),
        count_neighbourhoods_(count_neighbourhoods),
        centroid_gyrate_(centroid_gyrate) {
    const size_t k = classes.codes.size();
    out_.adjacency.sides_h.assign(k * k, 0);
    out_.adjacency.sides_v.assign(k * k, 0);
    if (geometry_.geodesic()) out_.adjacency.geodesic_m.assign(k * k, 0);
    prev_.assign(static_cast<size_t>(width_), 0);
  }

  // Works run by run (cells of one patch in a row): the hull, the like
  // adjacencies inside the run and the run's neighbours are entered once per
  // run, GYRATE and the comparisons with the row above once per cell.
  void row(int64_t y, const uint32_t* pids) override {
    if (geometry_.geodesic()) geodesic_row(y, pids);
    for (int64_t x0 = 0; x0 < width_;) {
      const uint32_t p = pids[x0];
      int64_t x1 = x0;
      while (x1 + 1 < width_ && pids[x1 + 1] == p) ++x1;
      const int64_t next = x1 + 1;
      if (!p) {
        x0 = next;
        continue;
      }
      PatchShape& shape = out_.patches[p - 1];
      const uint32_t ci = class_of_pid_[p];
      if (centroid_gyrate_) add_centroid_gyrate(y, x0, x1, shape, classes_.centroid_x[p], classes_.centroid_y[p]);
      if (count_neighbourhoods_) count_run_neighbourhood(y, pids, x0, x1, p, ci);
      // The row's extent of each patch, for its hull (a patch may have several runs in a row).
      OpenHull& h = hulls_.open(p);  // only open patches hold a hull: memory follows the row frontier
      if (h.last_row != y) {
        if (h.last_row >= 0) h.hull.add_row(h.last_row, h.row_first, h.row_last);
        h.last_row = y;
        h.row_first = x0;
      }
      h.row_last = x1;
      x0 = next;
    }
    close_patches_above(y);
    std::copy(pids, pids + width_, prev_.begin());
    last_y_ = y;
  }

  // The documented GYRATE: distances of the run's cells to the centroid (cx, cy), summed per run.
  void add_centroid_gyrate(int64_t y, int64_t x0, int64_t x1, PatchShape& shape, double cx, double cy) {
    const RasterInfo& r = table_.raster;
    double gyrate = 0;
    if (geometry_.geodesic()) {
      for (int64_t x = x0; x <= x1; ++x)
        gyrate += geometry_.distance_m(static_cast<double>(x), static_cast<double>(y), cx, cy);
    } else {
      const double dy = (static_cast<double>(y) - cy) * r.cell_height, dy2 = dy * dy;
      for (int64_t x = x0; x <= x1; ++x) {
        const double dx = (static_cast<double>(x) - cx) * r.cell_width;
        gyrate += std::sqrt(dx * dx + dy2);
      }
    }
    shape.gyrate_m += gyrate;
  }

  // CONTIG's diagonal pairs and the adjacencies of the run [x0, x1] of patch p (class index ci).
  void count_run_neighbourhood(int64_t y, const uint32_t* pids, int64_t x0, int64_t x1, uint32_t p, uint32_t ci) {
    out_.patches[p - 1].diagonal_pairs += lsm::count_run_neighbourhood(
        pids, y > 0 ? prev_.data() : nullptr, width_, x0, x1, p, ci, class_of_pid_.data(),
        out_.adjacency.class_codes.size(), out_.adjacency.sides_h.data(), out_.adjacency.sides_v.data());
  }

  void finish() override {
    if (geometry_.geodesic() && last_y_ >= 0) {  // bottom sides of the last row: the raster's edge
      const double side = geometry_.side_h_m(last_y_ + 1);
      for (int64_t x = 0; x < width_; ++x)
        if (const uint32_t p = prev_[x]) {
          out_.geodesic[p - 1].perim_m += side;
          out_.geodesic[p - 1].boundary_m += side;
        }
    }
    close_patches_above(last_y_ + 1);
    if (centroid_gyrate_) {  // sums of distances to means
      for (size_t i = 0; i < out_.patches.size(); ++i) out_.patches[i].gyrate_m /= static_cast<double>(classes_.cells[i + 1]);
    }
  }

 private:
  // Geographic rasters: areas, perimeters, landscape-boundary sides and class
  // adjacency lengths from the sizes of row y's cells on the ellipsoid. Each
  // side is entered when its lower or right cell is visited (the bottom sides
  // of the last row in finish()).
  void geodesic_row(int64_t y, const uint32_t* pids) {
    const double area = geometry_.cell_area_m2(y), side_v = geometry_.side_v_m(y), side_h = geometry_.side_h_m(y);
    for (int64_t x = 0; x < width_; ++x) {
      const uint32_t p = pids[x];
      const uint32_t left = x > 0 ? pids[x - 1] : 0;
      const uint32_t above = y > 0 ? prev_[x] : 0;
      if (p) out_.geodesic[p - 1].area_m2 += area;
      geodesic_side(p, left, side_v);   // the side between x-1 and x
      geodesic_side(p, above, side_h);  // the side between y-1 and y
    }
    if (const uint32_t p = pids[width_ - 1]) {  // right side of the last column: the raster's edge
      out_.geodesic[p - 1].perim_m += side_v;
      out_.geodesic[p - 1].boundary_m += side_v;
    }
  }

  // One cell side of length `side` between patches (or nodata, 0) a and b.
  void geodesic_side(uint32_t a, uint32_t b, double side) {
    if (a != b) {  // a perimeter side of each patch; on the landscape boundary when the other is nodata
      if (a) out_.geodesic[a - 1].perim_m += side;
      if (b) out_.geodesic[b - 1].perim_m += side;
      if (a && !b) out_.geodesic[a - 1].boundary_m += side;
      if (b && !a) out_.geodesic[b - 1].boundary_m += side;
    }
    if (a && b) {  // an adjacency, entered from both sides
      const size_t k = out_.adjacency.class_codes.size();
      const uint32_t ci = class_of_pid_[a], cj = class_of_pid_[b];
      out_.adjacency.geodesic_m[ci * k + cj] += side;
      out_.adjacency.geodesic_m[cj * k + ci] += side;
    }
  }

  // Patches of the previous row that row `y` does not continue are complete
  // (patches are connected, so their rows are contiguous): finish their hulls.
  void close_patches_above(int64_t y) {
    if (y == 0) return;
    for (int64_t x = 0; x < width_; ++x) {
      const uint32_t p = prev_[x];
      // Not continued in row y, not closed yet.
      if (p && hulls_.has(p) && hulls_.at(p).last_row == y - 1) close(p);
    }
  }

  void close(uint32_t p) {
    OpenHull& h = hulls_.at(p);
    h.hull.add_row(h.last_row, h.row_first, h.row_last);
    out_.patches[p - 1].circle_radius_m = circle_radius_m(h.hull, h.row_first, geometry_);
    hulls_.close(p);
  }

  const PatchTable& table_;
  int64_t width_;
  PatchRowResults& out_;
  const CellGeometry& geometry_;
  const PatchClasses& classes_;
  const PagedArray<uint32_t>& class_of_pid_;
  OpenPatchSlots<OpenHull> hulls_;
  std::vector<uint32_t> prev_;
  int64_t last_y_ = -1;
  bool count_neighbourhoods_;
  bool centroid_gyrate_;
};

// FRAGSTATS' GYRATE (fragstats_gyrate.h): each patch's runs are kept until its
// last row, then its medians and distances are computed.
class GyrateVisitor : public PatchRowVisitor {
 public:
  GyrateVisitor(const PatchTable& table, const PatchClasses& classes, const CellGeometry& geometry,
                PatchRowResults& out, const PagedPolicy& paged)
      : table_(table),
        classes_(classes),
        geometry_(geometry),
        out_(out),
        open_(patch_count(table), paged),
        fixed_exponent_(gyrate_fixed_exponent(table.raster.width, table.raster.height, table.raster.cell_width,
                                              table.raster.cell_height)) {}

  void row(int64_t y, const uint32_t* pids) override {
    const int64_t width = table_.raster.width;
    closing_.clear();
    for (int64_t x0 = 0; x0 < width;) {
      const uint32_t p = pids[x0];
      int64_t x1 = x0;
      while (x1 + 1 < width && pids[x1 + 1] == p) ++x1;
      if (p) {
        open_.add(p, y, x0, x1);
        if (classes_.last_row_of_pid[p] == static_cast<uint64_t>(y)) closing_.push_back(p);
      }
      x0 = x1 + 1;
    }
    // Patches whose last row this is are complete once all its runs are in
    // (a patch may have several runs in its last row: taken once).
    for (const uint32_t p : closing_) {
      if (!open_.has(p)) continue;
      open_.take(p, runs_);
      out_.patches[p - 1].gyrate_m = fragstats_gyrate_m(runs_, geometry_, fixed_exponent_);
    }
  }
  void finish() override {}

 private:
  const PatchTable& table_;
  const PatchClasses& classes_;
  const CellGeometry& geometry_;
  PatchRowResults& out_;
  OpenPatchRuns open_;
  std::vector<CellRun> runs_;
  std::vector<uint32_t> closing_;  // the row's patches that end in it
  int fixed_exponent_;
};

// Core cells and disjunct core areas (NCORE, DCORE).
class CoreVisitor : public PatchRowVisitor {
 public:
  CoreVisitor(const PatchTable& table, const PatchClasses& classes, const RowMetricOptions& options,
              const CellGeometry& geometry, PatchRowResults& out, const PagedPolicy& paged)
      : core_(
            table.raster.width, table.raster.height, options.edge_depth,
            [&out, &classes](uint32_t pid, uint64_t cells, double area_m2) {
              const double area[2] = {static_cast<double>(cells), area_m2};
              out.core_areas->add(classes.class_of_pid[pid], area);
              PatchShape& s = out.patches[pid - 1];
              s.core_cells += cells;
              if (!out.geodesic.empty()) out.geodesic[pid - 1].core_m2 += area_m2;
              ++s.core_areas;
            },
            &geometry),
        classes_(classes),
        geometry_(geometry),
        out_(out),
        width_(table.raster.width) {
    if (options.core_areas == CoreAreaRule::Fragstats) {
      open_.emplace(patch_count(table), paged);
      core_.send_core_rows_to([this](int64_t row, const uint8_t* core, const uint32_t* pids) { fragstats_row(row, core, pids); });
    }
    if (options.edge_depths || options.border)
      pair_depths_.emplace(table.raster.width, table.raster.height, classes.class_of_pid, classes.codes.size(),
                           depths_by_class_index(classes, options),
                           [this](int64_t row, const uint32_t* pids, const uint8_t* core) { core_.core_row(row, pids, core); },
                           border_columns(classes, options));
  }
  /// Core cells decided beforehand (a NeighbourhoodCounter's mask, row-major).
  void use_core_mask(const uint8_t* mask) { mask_ = mask; }
  void row(int64_t y, const uint32_t* pids) override {
    if (pair_depths_) pair_depths_->row(y, pids);
    else if (mask_) core_.core_row(y, pids, mask_ + y * width_);
    else core_.row(y, pids);
  }
  void finish() override {
    if (pair_depths_) pair_depths_->finish();
    core_.finish();
  }

 private:
  // FRAGSTATS' rule: each patch's core runs are kept until its last row, then
  // its core areas are counted by FRAGSTATS' scan.
  void fragstats_row(int64_t row, const uint8_t* core, const uint32_t* pids) {
    for (int64_t x0 = 0; x0 < width_;) {
      if (!core[x0]) {
        ++x0;
        continue;
      }
      int64_t x1 = x0;
      while (x1 + 1 < width_ && core[x1 + 1] && pids[x1 + 1] == pids[x0]) ++x1;
      open_->add(pids[x0], row, x0, x1);
      x0 = x1 + 1;
    }
    // The patches whose last row this is, a run of patch IDs at a time.
    for (int64_t x = 0; x < width_; ++x) {
      const uint32_t p = pids[x];
      if (x + 1 < width_ && pids[x + 1] == p) continue;  // not the run's last cell
      if (!p || classes_.last_row_of_pid[p] != static_cast<uint64_t>(row) || !open_->has(p)) continue;
      open_->take(p, runs_);
      const bool geodesic = geometry_.geodesic();
      for (const CountedCoreArea& a : fragstats_core_areas(runs_, geodesic ? &geometry_ : nullptr)) {
        const double area[2] = {static_cast<double>(a.cells), a.area_m2};
        out_.core_areas->add(classes_.class_of_pid[p], area);
        PatchShape& s = out_.patches[p - 1];
        s.core_cells += a.cells;
        if (geodesic) out_.geodesic[p - 1].core_m2 += a.area_m2;
        ++s.core_areas;
      }
    }
  }

  // The depths (cells) by class index: the edge depth file's, else the one
  // edge depth; columns: the classes, the boundary, the border's classes.
  static std::vector<int> depths_by_class_index(const PatchClasses& classes, const RowMetricOptions& options) {
    std::vector<int32_t> listed = classes.codes;
    listed.push_back(options.edge_depth_boundary);
    if (options.border)
      for (int32_t b : options.border->classes()) listed.push_back(b);
    const size_t k = classes.codes.size(), columns = listed.size();
    std::vector<int> d(k * columns, options.edge_depth);
    if (!options.edge_depths) return d;
    const ClassPairTable& t = *options.edge_depths;
    check_edge_depth_classes(t, listed);
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j < columns; ++j) d[i * columns + j] = static_cast<int>(t.weight(classes.codes[i], listed[j]));
    return d;
  }
  // The border's classes as the depths' last columns (none without a border).
  static PairDepthCoreMask::BorderColumns border_columns(const PatchClasses& classes, const RowMetricOptions& options) {
    PairDepthCoreMask::BorderColumns columns;
    if (!options.border) return columns;
    columns.border = options.border.get();
    columns.codes = options.border->classes();
    for (int32_t b : columns.codes) {
      const auto at = std::lower_bound(classes.codes.begin(), classes.codes.end(), b);
      columns.class_index.push_back(at != classes.codes.end() && *at == b ? static_cast<size_t>(at - classes.codes.begin())
                                                                          : SIZE_MAX);
    }
    return columns;
  }

  CoreAreaTracker core_;
  std::optional<PairDepthCoreMask> pair_depths_;  // with an edge depth file
  const PatchClasses& classes_;
  const CellGeometry& geometry_;
  PatchRowResults& out_;
  std::optional<OpenPatchRuns> open_;
  std::vector<CellRun> runs_;
  int64_t width_;
  const uint8_t* mask_ = nullptr;
};

// ECON's weighted perimeters: every cell side between a patch and what lies
// beyond it (another patch's class; on the landscape boundary the class a
// border cell gives, else, beside nodata and the raster's edge, the
// boundary's) adds the pair's edge contrast weight to the patch, each side
// entered when its lower or right cell is visited (the bottom sides of the
// last row in finish()), rows in order: the sums do not depend on the tile
// grid or on whether the IDs are in memory.
class ContrastVisitor : public PatchRowVisitor {
 public:
  ContrastVisitor(const PatchTable& table, const PatchClasses& classes, const RowMetricOptions& options,
                  const CellGeometry& geometry, PatchRowResults& out)
      : width_(table.raster.width), geometry_(geometry), class_of_pid_(classes.class_of_pid), out_(out),
        k_(classes.codes.size()), border_(options.border.get()), prev_(static_cast<size_t>(width_), 0) {
    const ClassPairTable& t = *options.contrast;
    std::vector<int32_t> listed = classes.codes;
    listed.push_back(options.contrast_boundary);
    if (border_) {
      border_classes_ = border_->classes();
      listed.insert(listed.end(), border_classes_.begin(), border_classes_.end());
      border_row_.assign(static_cast<size_t>(width_), 0);
      border_above_.assign(static_cast<size_t>(width_), 0);
    }
    check_contrast_classes(t, listed);
    // d_ik by class index, 0 where the class beyond is the patch's own (no
    // edge); columns: the classes, the landscape boundary, the border's classes.
    columns_ = listed.size();
    d_.assign(k_ * columns_, 0);
    for (size_t i = 0; i < k_; ++i)
      for (size_t j = 0; j < columns_; ++j)
        if (listed[j] != classes.codes[i] || j == k_) d_[i * columns_ + j] = t.weight(classes.codes[i], listed[j]);
  }

  void row(int64_t y, const uint32_t* pids) override {
    const bool geodesic = geometry_.geodesic();
    const double side_v = geodesic ? geometry_.side_v_m(y) : 0, side_h = geodesic ? geometry_.side_h_m(y) : 0;
    if (border_) {
      border_row_.swap(border_above_);
      border_class_row(*border_, border_classes_, y, border_row_.data());
    }
    for (int64_t x = 0; x < width_; ++x) {
      const uint32_t p = pids[x];
      // between x-1 (or the raster's edge) and x
      side(p, beyond(border_row_, x), x > 0 ? pids[x - 1] : 0, x > 0 ? beyond(border_row_, x - 1) : 0, false, side_v);
      // between y-1 (or the raster's edge) and y
      side(p, beyond(border_row_, x), y > 0 ? prev_[x] : 0, y > 0 ? beyond(border_above_, x) : 0, true, side_h);
    }
    side(pids[width_ - 1], 0, 0, 0, false, side_v);  // right side of the last column: the raster's edge
    std::copy(pids, pids + width_, prev_.begin());
    last_y_ = y;
  }
  void finish() override {
    if (last_y_ < 0) return;
    const double side_h = geometry_.geodesic() ? geometry_.side_h_m(last_y_ + 1) : 0;
    for (int64_t x = 0; x < width_; ++x) side(prev_[x], 0, 0, 0, true, side_h);  // bottom sides of the last row
  }

 private:
  // The border column of cell x of a border row (0: none, or no border).
  int32_t beyond(const std::vector<int32_t>& border_row, int64_t x) const {
    return border_ ? border_row[static_cast<size_t>(x)] : 0;
  }
  // The side between patches (or nodata, 0) a and b, whose border columns
  // (border_class_row()) are border_a and border_b: a top/bottom side when
  // `horizontal`; `length_m` on geographic rasters.
  void side(uint32_t a, int32_t border_a, uint32_t b, int32_t border_b, bool horizontal, double length_m) {
    if (a == b) return;
    if (a) add(a, b, border_b, horizontal, length_m);
    if (b) add(b, a, border_a, horizontal, length_m);
  }
  // Adds to patch p the weight of its side facing `beyond` (a PID, or 0:
  // the boundary, where a border cell of column `border` may lie).
  void add(uint32_t p, uint32_t beyond, int32_t border, bool horizontal, double length_m) {
    const size_t column = beyond ? class_of_pid_[beyond] : border ? k_ + static_cast<size_t>(border) : k_;
    const double d = d_[class_of_pid_[p] * columns_ + column];
    PatchContrast& c = out_.contrast[p - 1];
    if (geometry_.geodesic()) c.weighted_m += d * length_m;
    else if (horizontal) c.weights_h += d;
    else c.weights_v += d;
  }

  int64_t width_;
  const CellGeometry& geometry_;
  const PagedArray<uint32_t>& class_of_pid_;
  PatchRowResults& out_;
  size_t k_;
  const LandscapeBorder* border_;
  std::vector<int32_t> border_classes_;
  size_t columns_ = 0;
  std::vector<double> d_;  // k x columns_: weights by class index, then the boundary's, then the border's
  std::vector<uint32_t> prev_;
  std::vector<int32_t> border_row_, border_above_;  // border columns of rows y and y - 1
  int64_t last_y_ = -1;
};


// CONNECT: each class's pairs of patches within the threshold distance.
class ConnectanceVisitor : public PatchRowVisitor {
 public:
  ConnectanceVisitor(const PatchTable& table, const PatchClasses& classes, double threshold_m, PatchRowResults& out)
      : sweep_(classes.class_of_pid, classes.last_row_of_pid, classes.codes.size(), table.raster.width,
               table.raster.cell_width, table.raster.cell_height, threshold_m),
        out_(out) {}
  void row(int64_t y, const uint32_t* pids) override { sweep_.row(y, pids); }
  void finish() override { out_.joinings = sweep_.joinings(); }

 private:
  ConnectanceSweep sweep_;
  PatchRowResults& out_;
};

// PROX: each patch's neighbours of its class within the search radius;
// with similarity weights SIMI too: its neighbours of every class.
class ProximityVisitor : public PatchRowVisitor {
 public:
  ProximityVisitor(const PatchTable& table, const PatchClasses& classes, const RowMetricOptions& options,
                   const PagedPolicy& paged, PatchRowResults& out)
      : weights_(similarity_weights(classes, options.similarity.get(), options.background)),
        sweep_(classes.class_of_pid, classes.last_row_of_pid, patch_count(table), classes.codes.size(),
               table.raster.width, table.raster.cell_width, table.raster.cell_height, *options.search_radius_m, paged,
               options.similarity ? &weights_ : nullptr),
        out_(out) {}
  void row(int64_t y, const uint32_t* pids) override { sweep_.row(y, pids); }
  void finish() override {
    sweep_.finish();
    out_.proximity = std::move(sweep_.index());
    out_.similarity = std::move(sweep_.similarity_index());
  }

 private:
  // d_ik by class index (row i the focal class), or empty; 0 where either
  // class is background (no patches: not sought, and not in the output).
  static std::vector<double> similarity_weights(const PatchClasses& classes, const ClassPairTable* table,
                                                const std::set<int32_t>& background) {
    if (!table) return {};
    std::vector<int32_t> patch_classes;
    for (int32_t c : classes.codes)
      if (!background.count(c)) patch_classes.push_back(c);
    check_similarity_classes(*table, patch_classes);
    const size_t k = classes.codes.size();
    std::vector<double> d(k * k, 0);
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j < k; ++j)
        if (!background.count(classes.codes[i]) && !background.count(classes.codes[j]))
          d[i * k + j] = table->weight(classes.codes[i], classes.codes[j]);
    return d;
  }

  std::vector<double> weights_;
  ProximitySweep sweep_;
  PatchRowResults& out_;
};

// ENN: edge cells of each row once its lower neighbour is known. Planar
// rasters: two sweeps in bounded memory (enn_sweep.h); geographic rasters:
// the edge cells in memory, searched with a k-d tree (nearest_neighbour.h).
class EnnVisitor : public PatchRowVisitor {
 public:
  // `ids_in_memory`: the raster's patch IDs will be handed over
  // (use_patch_ids()) before search(), so the upward sweep reads them and no
  // scratch file of edge cells is written.
  EnnVisitor(const PatchTable& table, const PatchClasses& classes, const CellGeometry& geometry,
             const RowMetricOptions& options, PatchRowResults& out, const PagedPolicy& paged, bool ids_in_memory)
      : width_(table.raster.width),
        height_(table.raster.height),
        geometry_(geometry),
        out_(out),
        prev_(static_cast<size_t>(width_), 0),
        prev2_(static_cast<size_t>(width_), 0) {
    if (geometry.geodesic())
      index_.emplace(std::vector<uint32_t>(classes.class_of_pid.begin(), classes.class_of_pid.end()),
                     classes.patches_in_class);
    else
      sweep_.emplace(classes.class_of_pid.data(), patch_count(table), classes.patches_in_class, table.rule, width_,
                     table.raster.cell_width, table.raster.cell_height, options.temp_dir, paged,
                     ids_in_memory ? EnnSweep::PatchIdRows([this](int64_t y) { return id_row(y); })
                                   : EnnSweep::PatchIdRows());
  }
  /// The raster's patch IDs, row-major (must outlive search()).
  void use_patch_ids(const uint32_t* pids) { pids_ = pids; }

  void row(int64_t y, const uint32_t* pids) override {
    if (y > 0) add_row(y - 1, y > 1 ? prev2_.data() : nullptr, prev_.data(), pids);
    std::swap(prev2_, prev_);
    std::copy(pids, pids + width_, prev_.begin());
    last_y_ = y;
  }
  void finish() override {
    if (last_y_ >= 0) add_row(last_y_, last_y_ > 0 ? prev2_.data() : nullptr, prev_.data(), nullptr);
  }
  // The upward sweep or the searches: call after the rows, outside any parallel region.
  void search() {
    if (sweep_) {
      sweep_->distances([this](size_t i, double enn_m) { out_.patches[i].enn_m = enn_m; });
      return;
    }
    const std::vector<double> d = index_->distances(geometry_);
    for (size_t i = 0; i < d.size(); ++i) out_.patches[i].enn_m = d[i];
  }

 private:
  void add_row(int64_t y, const uint32_t* above, const uint32_t* row, const uint32_t* below) {
    if (sweep_) sweep_->add_row(y, above, row, below);
    else index_->add_row(y, width_, above, row, below);
  }
  const uint32_t* id_row(int64_t y) const {
    if (!pids_) throw Error(ErrorKind::Internal, "ENN: the patch IDs were not handed over");
    return y < 0 || y >= height_ ? nullptr : pids_ + y * width_;
  }

  int64_t width_, height_;
  const uint32_t* pids_ = nullptr;
  const CellGeometry& geometry_;
  PatchRowResults& out_;
  std::optional<EnnSweep> sweep_;
  std::optional<NearestNeighbourIndex> index_;
  std::vector<uint32_t> prev_, prev2_;
  int64_t last_y_ = -1;
};

}  // namespace

PatchRowResults records_only_row_results(const PatchTable& table) {
  PatchRowResults out;
  out.second_pass = false;
  out.adjacency.class_codes = class_codes(table);
  const size_t k = out.adjacency.class_codes.size();
  out.adjacency.sides_h.assign(k * k, 0);
  out.adjacency.sides_v.assign(k * k, 0);
  return out;
}

namespace {

// The counter's view of the patch IDs, without the IDs yet: the sizes and
// what is asked of it, as plan_second_pass() and the run both need it.
PatchIdRaster counter_request(const PatchTable& table, const RowMetricOptions& options, bool geodesic) {
  PatchIdRaster r{nullptr, table.raster.width, table.raster.height, nullptr, 0};
  r.with_enn = options.want_enn && !geodesic;
  r.with_gyrate = options.gyrate == GyrateRule::Fragstats && !geodesic;
  r.with_row_extents = !geodesic;
  r.cell_width = table.raster.cell_width;
  r.cell_height = table.raster.cell_height;
  return r;
}

const char* run_name(StageRun r) {
  switch (r) {
    case StageRun::Skipped: return "skipped";
    case StageRun::Device: return "device";
    case StageRun::Rows: return "rows";
    case StageRun::Patches: return "patches";
  }
  return "";
}

}  // namespace

std::string SecondPassPlan::describe() const {
  return std::string("neighbourhood ") + run_name(neighbourhood) + ", circle " + run_name(circle) + ", gyrate " +
         run_name(gyrate) + ", core areas " + run_name(core_areas) + ", enn " + run_name(enn) + ", geodesic " +
         run_name(geodesic) + ", contrast " + run_name(contrast) + ", connectance " + run_name(connectance) +
         ", proximity " + run_name(proximity) +
         (ids_in_memory ? " (patch IDs in memory)" : " (relabeled row by row)");
}

SecondPassPlan plan_second_pass(const PatchTable& table, const RowMetricOptions& options, bool also_write) {
  SecondPassPlan plan;
  const bool geodesic = CellGeometry(table.raster).geodesic();
  plan.ids_in_memory = !also_write && has_kept_labels(table);
  plan.geodesic = geodesic ? StageRun::Rows : StageRun::Skipped;
  plan.enn = options.want_enn ? StageRun::Rows : StageRun::Skipped;
  plan.contrast = options.contrast ? StageRun::Rows : StageRun::Skipped;
  plan.connectance = options.threshold_m ? StageRun::Rows : StageRun::Skipped;
  plan.proximity = options.search_radius_m ? StageRun::Rows : StageRun::Skipped;
  NeighbourhoodCounter* counter = plan.ids_in_memory ? options.counter : nullptr;
  if (!counter) return plan;  // every stage a row visitor
  const PatchIdRaster request = counter_request(table, options, geodesic);
  plan.neighbourhood = StageRun::Device;  // the per-cell tests: pairs, adjacencies, the core mask
  // With the counter's core mask, FRAGSTATS' scan runs patch by patch; every 8-connected core area row by row.
  // (An edge depth file's core cells, and those beside a landscape border, are
  // decided by the core visitor itself.)
  plan.core_areas = options.core_areas == CoreAreaRule::Fragstats && !options.edge_depths && !options.border
                        ? StageRun::Patches
                        : StageRun::Rows;
  if (request.with_enn && counter->computes_enn(request)) plan.enn = StageRun::Device;
  if (request.with_gyrate && counter->computes_gyrate(request)) plan.gyrate = StageRun::Device;
  // CIRCLE from the counter's row extents, unless a shape visitor runs anyway
  // (GYRATE's centroid rule), which builds the hulls as it goes.
  if (request.with_row_extents && counter->computes_row_extents(request) && options.gyrate != GyrateRule::Centroid)
    plan.circle = StageRun::Device;
  return plan;
}

PatchRowResults compute_patch_row_metrics(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                                          const RowMetricOptions& options, LabelRasterSink* also_write,
                                          const ProgressFn& progress) {
  const SecondPassPlan plan = plan_second_pass(table, options, also_write != nullptr);
  PatchRowResults out;
  out.plan = plan;
  const PagedPolicy paged{options.max_patch_array_bytes, options.temp_dir};
  const PatchClasses classes(table, options.gyrate == GyrateRule::Centroid, paged);
  const CellGeometry geometry(table.raster);
  out.patches.assign(patch_count(table), paged);
  if (geometry.geodesic()) out.geodesic.assign(patch_count(table), paged);
  if (plan.contrast == StageRun::Rows) out.contrast.assign(patch_count(table), paged);
  out.adjacency.class_codes = classes.codes;
  NeighbourhoodCounter* counter = plan.neighbourhood == StageRun::Device ? options.counter : nullptr;
  // Disjunct core areas go to a scratch file: there may be millions.
  out.core_areas = std::make_shared<ClassValueColumns>(classes.codes.size(), 2, options.temp_dir, uint64_t(16) << 20);

  // The row visitors of the plan's Rows stages. Independent: in memory they
  // run concurrently, the ENN search (the longest) first. The shape visitor
  // does what of the neighbourhood, CIRCLE, GYRATE's centroid rule and the
  // geodesic sums runs row by row.
  std::vector<PatchRowVisitor*> visitors;
  std::optional<CoreVisitor> core;
  if (plan.core_areas == StageRun::Rows) visitors.push_back(&core.emplace(table, classes, options, geometry, out, paged));
  const bool centroid_gyrate = options.gyrate == GyrateRule::Centroid;
  std::optional<ShapeVisitor> shape;
  if (plan.neighbourhood == StageRun::Rows || plan.circle == StageRun::Rows || plan.geodesic == StageRun::Rows ||
      (plan.gyrate == StageRun::Rows && centroid_gyrate))
    visitors.push_back(&shape.emplace(table, classes, geometry, out, plan.neighbourhood == StageRun::Rows,
                                      centroid_gyrate, paged));
  std::optional<GyrateVisitor> gyrate;
  if (plan.gyrate == StageRun::Rows && !centroid_gyrate) visitors.push_back(&gyrate.emplace(table, classes, geometry, out, paged));
  std::optional<ContrastVisitor> contrast;
  if (plan.contrast == StageRun::Rows) visitors.push_back(&contrast.emplace(table, classes, options, geometry, out));
  // The distance sweeps of CONNECT, PROX and SIMI compare each row's runs on
  // all cores themselves: they take the rows after the other visitors,
  // outside their parallel region (where a nested one would get one thread).
  std::vector<PatchRowVisitor*> sweeps;
  std::optional<ConnectanceVisitor> connectance;
  if (plan.connectance == StageRun::Rows) {
    if (geometry.geodesic())
      throw Error(ErrorKind::BadInput, "CONNECT's threshold distance needs a projected raster; this one has cells in degrees");
    sweeps.push_back(&connectance.emplace(table, classes, *options.threshold_m, out));
  }
  std::optional<ProximityVisitor> proximity;
  if (plan.proximity == StageRun::Rows) {
    if (geometry.geodesic())
      throw Error(ErrorKind::BadInput, std::string(options.similarity ? "SIMI" : "PROX") +
                                           "'s search radius needs a projected raster; this one has cells in degrees");
    sweeps.push_back(&proximity.emplace(table, classes, options, paged, out));
  }
  std::optional<EnnVisitor> enn;
  if (plan.enn == StageRun::Rows) {
    enn.emplace(table, classes, geometry, options, out, paged, plan.ids_in_memory);
    visitors.insert(visitors.begin(), &*enn);
  } else {
    for (PatchShape& s : out.patches) s.enn_m = std::nan("");  // the device's distances overwrite them
  }
  if (!plan.ids_in_memory) {
    visit_patch_rows(source, labeler, table, visitors, sweeps, also_write, progress);
    if (enn) enn->search();
    return out;
  }
  if (progress && !progress(0.0)) throw Error(ErrorKind::Io, "interrupted");
  const std::vector<uint32_t> pids = assemble_patch_ids(table);
  NeighbourhoodCounts counts;  // the core visitor reads its mask during the rows below
  if (counter) {  // the plan's Device stages, data-parallel on the counter's backend
    const std::vector<uint32_t> class_of_pid(classes.class_of_pid.begin(), classes.class_of_pid.end());
    PatchIdRaster id_raster = counter_request(table, options, geometry.geodesic());
    id_raster.pids = pids.data();
    id_raster.class_of_pid = &class_of_pid;
    id_raster.classes = classes.codes.size();
    id_raster.with_enn = plan.enn == StageRun::Device;
    id_raster.with_gyrate = plan.gyrate == StageRun::Device;
    id_raster.with_row_extents = plan.circle == StageRun::Device;
    counter->count(id_raster, options.edge_depth, counts);
    for (size_t i = 0; i < out.patches.size(); ++i) out.patches[i].diagonal_pairs = counts.diagonal_pairs[i];
    if (plan.enn == StageRun::Device) {  // rounded as EnnSweep::distances rounds
      if (counts.enn_squared.size() != out.patches.size()) throw Error(ErrorKind::Internal, "ENN: one distance per patch");
      for (size_t i = 0; i < out.patches.size(); ++i)
        out.patches[i].enn_m = std::isinf(counts.enn_squared[i]) ? std::nan("") : std::sqrt(counts.enn_squared[i]);
    }
    if (plan.circle == StageRun::Device) circles_from_row_extents(counts.row_extents, geometry, out);
    if (plan.gyrate == StageRun::Device) {
      if (counts.gyrate_m.size() != out.patches.size()) throw Error(ErrorKind::Internal, "GYRATE: one value per patch");
      for (size_t i = 0; i < out.patches.size(); ++i) out.patches[i].gyrate_m = counts.gyrate_m[i];
    }
    out.adjacency.sides_h = std::move(counts.sides_h);
    out.adjacency.sides_v = std::move(counts.sides_v);
    if (core && !options.edge_depths && !options.border) core->use_core_mask(counts.core.data());
    if (plan.core_areas == StageRun::Patches) {  // entered as the core visitor enters them
      const bool geodesic = geometry.geodesic();
      fragstats_core_areas_in_parallel(
          pids.data(), counts.core.data(), table.raster.width, table.raster.height, classes.last_row_of_pid,
          geodesic ? &geometry : nullptr, [&](uint32_t p, const CountedCoreArea& a) {
            const double area[2] = {static_cast<double>(a.cells), a.area_m2};
            out.core_areas->add(classes.class_of_pid[p], area);
            PatchShape& s = out.patches[p - 1];
            s.core_cells += a.cells;
            if (geodesic) out.geodesic[p - 1].core_m2 += a.area_m2;
            ++s.core_areas;
          });
    }
    if (progress && !progress(0.5)) throw Error(ErrorKind::Io, "interrupted");
  }
  visit_rows_in_memory(pids, table.raster.width, table.raster.height, visitors);
  // The sweeps can take minutes on large, fragmented rasters: progress by rows.
  visit_rows_in_memory_in_turn(pids, table.raster.width, table.raster.height, sweeps, progress, 0.5, 0.95);
  if (enn) {
    enn->use_patch_ids(pids.data());
    enn->search();
  }
  if (progress && !progress(1.0)) throw Error(ErrorKind::Io, "interrupted");
  return out;
}

}  // namespace lsm
