#include "window_job.h"

#include "landscape_job.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "error.h"
#include "families/metric_families.h"
#include "metric_catalogue.h"
#include "cell_geometry.h"
#include "class_pair_table.h"
#include "enclosing_circle.h"
#include "fragstats_gyrate.h"
#include "landscape_job.h"
#include "near_match.h"
#include "patch_runs_within.h"
#include "patch_columns.h"
#include "window_count_pass.h"
#include "window_count_program.h"
#include "window_patches.h"
#include "window_range_patches.h"

namespace lsm {

namespace {

constexpr int32_t kOutside = -1;  // a class index for nodata and cells beyond the raster's edge

// The counts of one window: cells per class, and cell sides shared by two
// classes (FRAGSTATS' adjacencies, double count: a side between two cells of
// class a adds 2 to (a, a); one between a and b adds 1 to (a, b) and (b, a)).
// Top/bottom sides (vertical neighbours) and left/right sides apart, as the
// landscape job's ClassAdjacency keeps them (their lengths differ).
struct WindowCounts {
  explicit WindowCounts(size_t k) : k(k), cells(k, 0), sides_h(k * k, 0), sides_v(k * k, 0) {}
  size_t k;
  std::vector<int64_t> cells;
  std::vector<int64_t> sides_h, sides_v;

  void cell(int32_t a, int64_t sign) {
    if (a != kOutside) cells[static_cast<size_t>(a)] += sign;
  }
  // A pair of neighbouring cells; `vertical`: one above the other (they share a top/bottom side).
  void pair(int32_t a, int32_t b, bool vertical, int64_t sign) {
    if (a == kOutside || b == kOutside) return;
    std::vector<int64_t>& m = vertical ? sides_h : sides_v;
    m[static_cast<size_t>(a) * k + static_cast<size_t>(b)] += sign;
    m[static_cast<size_t>(b) * k + static_cast<size_t>(a)] += sign;
  }
  void clear() {
    std::fill(cells.begin(), cells.end(), 0);
    std::fill(sides_h.begin(), sides_h.end(), 0);
    std::fill(sides_v.begin(), sides_v.end(), 0);
  }
};

// The band of rows a block of focal rows' windows cover, as class indices,
// with `pad` columns of kOutside on each side and kOutside rows beyond the
// raster's top and bottom: every window reads it without bounds checks. Its
// rows are a ring of `capacity` slots, so consecutive blocks read each row
// once.
class RowBand {
 public:
  RowBand(ClassRasterSource& source, const std::vector<int32_t>& codes, int64_t capacity, int64_t pad)
      : source_(source), codes_(codes), width_(source.info().width), height_(source.info().height),
        capacity_(capacity), pad_(pad), stride_(width_ + 2 * pad),
        rows_(static_cast<size_t>(capacity) * static_cast<size_t>(stride_), kOutside) {
    // Codes within a span of 2^20 find their index in a table, not by search.
    if (!codes_.empty() && static_cast<int64_t>(codes_.back()) - codes_.front() < (int64_t(1) << 20)) {
      table_.assign(static_cast<size_t>(codes_.back() - codes_.front() + 1), kOutside);
      for (size_t i = 0; i < codes_.size(); ++i) table_[static_cast<size_t>(codes_[i] - codes_.front())] = static_cast<int32_t>(i);
    }
  }

  // Makes the band hold rows [first, last] (last - first < capacity),
  // reading only those it does not hold yet: each run of them in one read,
  // converted to class indices on every thread. Not thread-safe: called
  // between blocks.
  void hold(int64_t first, int64_t last) {
    for (int64_t r = first; r <= last;) {
      if (held_ && r >= held_->first && r <= held_->second) {
        ++r;
        continue;
      }
      int64_t end = r;  // the run of rows not held: [r, end)
      while (end <= last && !(held_ && end >= held_->first && end <= held_->second)) ++end;
      load(r, end);
      r = end;
    }
    held_ = {first, last};
  }
  // Class index of cell (x, y), for x in [-pad, width + pad) and y held.
  int32_t at(int64_t x, int64_t y) const { return row(y)[x]; }
  // Row y of the band (held), indexed by x in [-pad, width + pad).
  const int32_t* row(int64_t y) const { return &rows_[slot(y) * static_cast<size_t>(stride_) + static_cast<size_t>(pad_)]; }

 private:
  size_t slot(int64_t y) const { return static_cast<size_t>(((y % capacity_) + capacity_) % capacity_); }
  int32_t index_of(int32_t v) const {
    if (v == kNoClass) return kOutside;
    if (!table_.empty()) return table_[static_cast<size_t>(v - codes_.front())];
    return static_cast<int32_t>(std::lower_bound(codes_.begin(), codes_.end(), v) - codes_.begin());
  }
  // Rows [first, end): those inside the raster in one read.
  void load(int64_t first, int64_t end) {
    const int64_t inside_first = std::max<int64_t>(first, 0), inside_end = std::min(end, height_);
    if (inside_end > inside_first) {
      read_.resize(static_cast<size_t>((inside_end - inside_first) * width_));
      source_.read(Window{0, inside_first, width_, inside_end - inside_first}, read_.data());
    }
#pragma omp parallel for schedule(static)
    for (int64_t y = first; y < end; ++y) {
      int32_t* row = &rows_[slot(y) * static_cast<size_t>(stride_)];
      std::fill(row, row + stride_, kOutside);
      if (y < 0 || y >= height_) continue;
      const int32_t* from = &read_[static_cast<size_t>((y - inside_first) * width_)];
      for (int64_t x = 0; x < width_; ++x) row[x + pad_] = index_of(from[x]);
    }
  }

  ClassRasterSource& source_;
  const std::vector<int32_t>& codes_;
  int64_t width_, height_, capacity_, pad_, stride_;
  std::optional<std::pair<int64_t, int64_t>> held_;  // the rows the band holds
  std::vector<int32_t> rows_;
  std::vector<int32_t> read_;   // the rows of one read
  std::vector<int32_t> table_;  // class index by code - codes_.front(), when the codes span little
};

// Every class code of the raster, ascending (the first read).
std::vector<int32_t> class_codes_of(ClassRasterSource& source, const ProgressFn& progress) {
  const RasterInfo info = source.info();
  // Codes 0..65535 (land-cover legends) are marked in a table; others go to a set.
  constexpr int32_t kTabled = 1 << 16;
  std::vector<uint8_t> seen(kTabled, 0);
  std::set<int32_t> codes;
  const int64_t strip = std::max<int64_t>(1, std::min<int64_t>(info.height, (int64_t(1) << 22) / std::max<int64_t>(1, info.width)));
  std::vector<int32_t> cells(static_cast<size_t>(strip * info.width));
  for (int64_t y = 0; y < info.height; y += strip) {
    const int64_t h = std::min(strip, info.height - y);
    source.read(Window{0, y, info.width, h}, cells.data());
    int32_t last = kNoClass;
    for (int64_t i = 0; i < h * info.width; ++i) {
      const int32_t v = cells[static_cast<size_t>(i)];
      if (v == last || v == kNoClass) continue;
      last = v;
      if (v >= 0 && v < kTabled)
        seen[static_cast<size_t>(v)] = 1;
      else
        codes.insert(v);
    }
    if (progress && !progress(0.1 * static_cast<double>(y + h) / static_cast<double>(info.height)))
      throw Error(ErrorKind::Io, "interrupted");
  }
  for (int32_t v = 0; v < kTabled; ++v)
    if (seen[static_cast<size_t>(v)]) codes.insert(v);
  return {codes.begin(), codes.end()};
}

// The patch metrics whose distributions (_MN, _AM, _MD, _RA, _SD, _CV)
// windows compute, in FRAGSTATS' order: the area, edge, shape, core area
// and isolation metrics.
const std::vector<std::string>& window_distributed_metrics() {
  static const std::vector<std::string> metrics{"AREA", "GYRATE", "SHAPE", "FRAC", "PARA", "CIRCLE", "CONTIG",
                                                "CORE", "DCORE", "CAI", "ECON", "ENN", "PROX", "SIMI"};
  return metrics;
}

// CIRCLE's radius (m) of a patch from its runs, as the landscape job takes
// it: the corners of its convex hull in a plane whose east origin is the
// first cell of its last row.
double window_circle_radius_m(const CellRun* begin, const CellRun* end, const CellGeometry& geometry) {
  thread_local RowConvexHull hull;
  thread_local std::vector<std::pair<int64_t, int64_t>> corners;
  thread_local std::vector<std::pair<double, double>> points;
  hull.reset();
  int64_t x_ref = 0;
  for (const CellRun* r = begin; r != end;) {
    int64_t first = r->x0, last = r->x1;
    const int32_t row = r->row;
    for (++r; r != end && r->row == row; ++r) last = std::max<int64_t>(last, r->x1);
    hull.add_row(row, first, last);
    x_ref = first;
  }
  hull.points(corners);
  points.clear();
  for (const auto& [x, y] : corners) {
    double east, south;
    geometry.corner_m(static_cast<double>(x), static_cast<double>(y), static_cast<double>(x_ref), east, south);
    points.emplace_back(east, south);
  }
  return half_diameter(points);
}

// The bands of a plan taken from the window's patch values rather than its
// sums: the distributions above and PAFRAC. Per window, each such band's
// value from the patches through the patch table's formulas
// (patch_columns.h) and the landscape job's distribution(), each class's
// patches in first-cell order and the landscape's class by class, as the
// landscape job replays them.
class WindowDistributions {
 public:
  WindowDistributions(const WindowPlan& plan, const WindowJobOptions& options, double cw, double ch)
      : cw_(cw), ch_(ch), geometry_(grid_info(options.shape, cw, ch)) {
    const RasterInfo grid = grid_info(options.shape, cw, ch);
    fixed_exponent_ = gyrate_fixed_exponent(grid.width, grid.height, cw, ch);
    const std::set<int32_t>& background = options.background;
    const std::vector<std::string>& stats = distribution_statistics();
    for (size_t b = 0; b < plan.bands.size(); ++b) {
      const WindowBand& band = plan.bands[b];
      Band d;
      d.band = b;
      d.class_code = band.class_code;
      if (band.metric == "PAFRAC") {
        d.pafrac = true;
      } else if (band.metric.rfind("DCORE_", 0) == 0) {  // the disjunct core areas, not a patch column
        const auto stat = std::find(stats.begin(), stats.end(), band.metric.substr(6));
        if (stat == stats.end()) continue;
        d.dcore = true;
        d.statistic = static_cast<size_t>(stat - stats.begin());
        needs_core_ = true;
      } else {
        const size_t u = band.metric.rfind('_');
        if (u == std::string::npos) continue;
        const std::string base = band.metric.substr(0, u);
        const auto stat = std::find(stats.begin(), stats.end(), band.metric.substr(u + 1));
        const auto& distributed = window_distributed_metrics();
        if (stat == stats.end() || std::find(distributed.begin(), distributed.end(), base) == distributed.end()) continue;
        d.column = patch_column(base);
        d.statistic = static_cast<size_t>(stat - stats.begin());
        needs_gyrate_ = needs_gyrate_ || base == "GYRATE";
        needs_enn_ = needs_enn_ || base == "ENN";
        needs_proximity_ = needs_proximity_ || base == "PROX" || base == "SIMI";
        d.skip_nan = base == "ENN";  // a patch alone in its class has none, and is left out (as the landscape job does)
        needs_core_ = needs_core_ || base == "CORE" || base == "CAI";
        needs_circle_ = needs_circle_ || base == "CIRCLE";
        needs_contrast_ = needs_contrast_ || base == "ECON";
      }
      bands_.push_back(d);
    }
    if (needs_contrast_) contrast_weights(plan, options);
    if (needs_proximity_) proximity_weights(plan, options);
    for (size_t k = 0; k < plan.class_codes.size(); ++k) background_.push_back(background.count(plan.class_codes[k]) > 0);
    class_codes_ = plan.class_codes;
    area_ = patch_column("AREA");
    perim_ = patch_column("PERIM");
  }

  bool empty() const { return bands_.empty(); }
  size_t size() const { return bands_.size(); }
  bool covers(size_t band) const {
    return std::any_of(bands_.begin(), bands_.end(), [band](const Band& b) { return b.band == band; });
  }
  /// The plan's band of value i.
  size_t band(size_t i) const { return bands_[i].band; }
  /// Whether the bands need each patch's runs of cells (GYRATE, CIRCLE, ENN, ECON).
  bool needs_runs() const { return needs_gyrate_ || needs_circle_ || needs_enn_ || needs_contrast_ || needs_proximity_; }
  /// Whether the bands need the windows' core areas (CORE, DCORE, CAI).
  bool needs_core() const { return needs_core_; }

  // The values of the bands, in their order, for the window `labeler` has
  // just labeled (with runs where needs_runs()) from `grid` (`rows` x
  // `columns` class indices, kOutside beyond the window and the landscape).
  void compute(const WindowPatchLabeler& labeler, const std::vector<int32_t>& grid, int64_t rows, int64_t columns,
               double* values) {
    const std::vector<WindowPatch>& patches = labeler.patches();
    // Each patch's second-pass values: its corner pairs, and where asked
    // its GYRATE (FRAGSTATS' rule) and CIRCLE's radius from its runs.
    shapes_.assign(patches.size(), PatchShape{});
    for (size_t p = 0; p < patches.size(); ++p) {
      shapes_[p].diagonal_pairs = patches[p].diagonal_pairs;
      shapes_[p].core_cells = patches[p].core_cells;
      shapes_[p].core_areas = patches[p].core_areas;
      if (!needs_runs()) continue;
      const auto [begin, end] = labeler.runs(p);
      if (needs_gyrate_) {
        runs_.assign(begin, end);
        shapes_[p].gyrate_m = fragstats_gyrate_m(runs_, geometry_, fixed_exponent_);
      }
      if (needs_circle_) shapes_[p].circle_radius_m = window_circle_radius_m(begin, end, geometry_);
    }
    if (needs_enn_) nearest_neighbours(labeler, patches);
    if (needs_proximity_) proximities(labeler);
    if (needs_contrast_) edge_contrasts(labeler, grid, rows, columns);
    // Each patch's columns, class by class (ascending class index), each
    // class's patches in first-cell order: the landscape job's replay order.
    order_.resize(patches.size());
    for (size_t i = 0; i < patches.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      return patches[a].class_index < patches[b].class_index;
    });
    const std::vector<PatchFormula>& formulas = patch_column_formulas();
    for (size_t i = 0; i < bands_.size(); ++i) {
      const Band& band = bands_[i];
      values_.clear();
      weights_.clear();
      perims_.clear();
      if (band.dcore) {  // each counted core area (ha), weighted by itself, class by class
        for (size_t k = 0; k < class_codes_.size(); ++k) {
          if (band.class_code ? class_codes_[k] != *band.class_code : background_[k]) continue;
          for (const auto& [p, cells] : labeler.core_area_cells())
            if (static_cast<size_t>(patches[static_cast<size_t>(p)].class_index) == k) {
              const double ha = static_cast<double>(cells) * cw_ * ch_ / 10000;
              values_.push_back(ha);
              weights_.push_back(ha);
            }
        }
        values[i] = statistic(distribution(values_, weights_), band.statistic);
        continue;
      }
      for (size_t p : order_) {
        const WindowPatch& patch = patches[p];
        const size_t k = static_cast<size_t>(patch.class_index);
        if (band.class_code ? class_codes_[k] != *band.class_code : background_[k]) continue;
        PatchStats record;
        record.cells = patch.cells;
        record.perim_edges_h = patch.perim_h;
        record.perim_edges_v = patch.perim_v;
        PatchInputs in;
        in.record = &record;
        in.shape = &shapes_[p];
        in.contrast = needs_contrast_ ? &contrasts_[p] : nullptr;
        in.proximity = needs_proximity_ ? &prox_[p] : nullptr;
        in.similarity = needs_proximity_ && !similarity_.empty() ? &simi_[p] : nullptr;
        in.cell_width = cw_;
        in.cell_height = ch_;
        in.size = static_cast<double>(patch.cells);
        in.unit_m2 = cw_ * ch_;
        const double value = band.pafrac ? 0 : formulas[band.column](in);
        if (band.skip_nan && std::isnan(value)) continue;
        weights_.push_back(formulas[area_](in));
        if (band.pafrac) perims_.push_back(formulas[perim_](in));
        else values_.push_back(value);
      }
      values[i] = band.pafrac ? pafrac() : statistic(distribution(values_, weights_), band.statistic);
    }
  }

 private:
  struct Band {
    size_t band = 0;
    std::optional<int32_t> class_code;  // none: the landscape's patches (background left out)
    bool pafrac = false, dcore = false, skip_nan = false;
    size_t column = 0, statistic = 0;
  };

  static double statistic(const Distribution& d, size_t i) {
    const double v[] = {d.mn, d.am, d.md, d.ra, d.sd, d.cv};
    return v[i];
  }

  // ENN of every patch: the shortest cell-centre distance from one of its
  // edge cells to an edge cell of another patch of its class (NaN where its
  // class has no other patch). Every pair of a class's edge cells: O(E^2)
  // per class and window, E its edge cells (docs/WINDOW.md).
  void nearest_neighbours(const WindowPatchLabeler& labeler, const std::vector<WindowPatch>& patches) {
    for (PatchShape& shape : shapes_) shape.enn_m = std::numeric_limits<double>::quiet_NaN();
    const std::vector<WindowPatchLabeler::EdgeCell>& edges = labeler.edge_cells();
    by_class_.clear();
    for (size_t e = 0; e < edges.size(); ++e) by_class_.push_back(e);
    std::stable_sort(by_class_.begin(), by_class_.end(), [&](size_t a, size_t b) {
      return patches[static_cast<size_t>(edges[a].patch)].class_index < patches[static_cast<size_t>(edges[b].patch)].class_index;
    });
    for (size_t from = 0; from < by_class_.size();) {
      const int32_t k = patches[static_cast<size_t>(edges[by_class_[from]].patch)].class_index;
      size_t to = from;
      while (to < by_class_.size() && patches[static_cast<size_t>(edges[by_class_[to]].patch)].class_index == k) ++to;
      for (size_t i = from; i < to; ++i)
        for (size_t j = i + 1; j < to; ++j) {
          const auto& a = edges[by_class_[i]];
          const auto& b = edges[by_class_[j]];
          if (a.patch == b.patch) continue;
          const double d = geometry_.distance_m(a.column, a.row, b.column, b.row);
          double& da = shapes_[static_cast<size_t>(a.patch)].enn_m;
          double& db = shapes_[static_cast<size_t>(b.patch)].enn_m;
          if (!(d >= da)) da = d;  // NaN: none yet
          if (!(d >= db)) db = d;
        }
      from = to;
    }
  }

  // d_ik by class index, 0 on the diagonal; column k holds the window
  // border's (the landscape boundary's: boundary_class()).
  void contrast_weights(const WindowPlan& plan, const WindowJobOptions& options) {
    const ClassPairTable& t = *options.contrast;
    const size_t k = plan.class_codes.size();
    const int32_t boundary =
        boundary_class(t, std::vector<int32_t>(options.background.begin(), options.background.end()));
    d_.assign(k * (k + 1), 0);
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j <= k; ++j)
        if (i != j) d_[i * (k + 1) + j] = t.weight(plan.class_codes[i], j < k ? plan.class_codes[j] : boundary);
  }

  // ECON's weighted perimeter of every patch of the window: each side
  // between a patch and what lies beyond it, walked as the landscape job's
  // contrast stage walks the window cut out (patch_row_metrics.cpp: left,
  // then top side of each cell in raster order, the bottom sides after the
  // last row), so that the sums are the same bits.
  void edge_contrasts(const WindowPatchLabeler& labeler, const std::vector<int32_t>& grid, int64_t rows,
                      int64_t columns) {
    const size_t n = labeler.patches().size(), k = class_codes_.size();
    contrasts_.assign(n, PatchContrast{});
    patch_of_.assign(static_cast<size_t>(rows * columns), 0);  // patch + 1, 0 beyond every patch
    for (size_t p = 0; p < n; ++p) {
      const auto [begin, end] = labeler.runs(p);
      for (const CellRun* r = begin; r != end; ++r)
        std::fill(patch_of_.begin() + r->row * columns + r->x0, patch_of_.begin() + r->row * columns + r->x1 + 1,
                  static_cast<uint32_t>(p + 1));
    }
    const auto add = [&](uint32_t a, uint32_t b, bool horizontal, int32_t b_class) {
      const double d = d_[static_cast<size_t>(labeler.patches()[a - 1].class_index) * (k + 1) +
                          (b ? static_cast<size_t>(b_class) : k)];
      PatchContrast& c = contrasts_[a - 1];
      (horizontal ? c.weights_h : c.weights_v) += d;
    };
    const auto side = [&](int64_t a_cell, int64_t b_cell, bool horizontal) {  // -1: beyond the grid
      const uint32_t a = a_cell < 0 ? 0 : patch_of_[static_cast<size_t>(a_cell)];
      const uint32_t b = b_cell < 0 ? 0 : patch_of_[static_cast<size_t>(b_cell)];
      if (a == b) return;
      if (a) add(a, b, horizontal, b ? grid[static_cast<size_t>(b_cell)] : 0);
      if (b) add(b, a, horizontal, a ? grid[static_cast<size_t>(a_cell)] : 0);
    };
    for (int64_t y = 0; y < rows; ++y) {
      for (int64_t x = 0; x < columns; ++x) {
        const int64_t cell = y * columns + x;
        side(cell, x > 0 ? cell - 1 : -1, false);
        side(cell, y > 0 ? cell - columns : -1, true);
      }
      side(y * columns + columns - 1, -1, false);
    }
    for (int64_t x = 0; x < columns; ++x) side((rows - 1) * columns + x, -1, true);
  }

  // SIMI's weights d_ik by class index (row i the focal class), 0 where
  // either class is background (no patches), or none without a table.
  void proximity_weights(const WindowPlan& plan, const WindowJobOptions& options) {
    radius_m_ = *options.search_radius;
    if (!options.similarity) return;
    const size_t k = plan.class_codes.size();
    similarity_.assign(k * k, 0);
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j < k; ++j)
        if (!options.background.count(plan.class_codes[i]) && !options.background.count(plan.class_codes[j]))
          similarity_[i * k + j] = options.similarity->weight(plan.class_codes[i], plan.class_codes[j]);
  }

  // PROX and SIMI of every patch of the window (proximity_sweep.h's
  // definitions): for each focal patch P and each other patch Q of its class
  // (PROX) or of a class it finds similar (SIMI), h = the distance of their
  // nearest cells and a = the area of Q's cells within R of some cell of P.
  // The nearest cell of P to any cell outside it is an edge cell of P, so
  // both come from P's edge cells: O(E x (E + window cells)) per window.
  void proximities(const WindowPatchLabeler& labeler) {
    const std::vector<WindowPatch>& patches = labeler.patches();
    const std::vector<WindowPatchLabeler::EdgeCell>& edges = labeler.edge_cells();
    const size_t n = patches.size(), k = class_codes_.size();
    prox_.assign(n, 0);
    simi_.assign(similarity_.empty() ? 0 : n, 0);
    edges_of_.assign(n + 1, 0);  // patch p's edge cells: [edges_of_[p], edges_of_[p + 1]) of by_patch_
    for (const auto& e : edges) ++edges_of_[static_cast<size_t>(e.patch) + 1];
    for (size_t p = 0; p < n; ++p) edges_of_[p + 1] += edges_of_[p];
    by_patch_.resize(edges.size());
    fill_.assign(edges_of_.begin(), edges_of_.end() - 1);
    for (const auto& e : edges) by_patch_[fill_[static_cast<size_t>(e.patch)]++] = e;
    const double r2 = radius_m_ * radius_m_, cell_m2 = cw_ * ch_;
    const auto d2 = [&](int64_t dx, int64_t dy) {
      const double x = static_cast<double>(dx) * cw_, y = static_cast<double>(dy) * ch_;
      return x * x + y * y;
    };
    for (size_t p = 0; p < n; ++p) {
      const size_t i = static_cast<size_t>(patches[p].class_index);
      if (background_[i]) continue;
      for (size_t q = 0; q < n; ++q) {
        const size_t j = static_cast<size_t>(patches[q].class_index);
        const double weight = similarity_.empty() ? (i == j ? 1 : 0) : similarity_[i * k + j];
        if (q == p || (i != j && weight <= 0) || background_[j]) continue;
        double h2 = std::numeric_limits<double>::infinity();
        for (size_t a = edges_of_[p]; a < edges_of_[p + 1]; ++a)
          for (size_t b = edges_of_[q]; b < edges_of_[q + 1]; ++b)
            h2 = std::min(h2, d2(by_patch_[a].column - by_patch_[b].column, by_patch_[a].row - by_patch_[b].row));
        if (!(h2 <= r2)) continue;
        uint64_t cells = 0;  // Q's cells within R of P
        const auto [begin, end] = labeler.runs(q);
        for (const CellRun* r = begin; r != end; ++r)
          for (int32_t x = r->x0; x <= r->x1; ++x)
            for (size_t a = edges_of_[p]; a < edges_of_[p + 1]; ++a)
              if (d2(by_patch_[a].column - x, by_patch_[a].row - r->row) <= r2) {
                ++cells;
                break;
              }
        const double near = static_cast<double>(cells) * cell_m2 / h2;
        if (i == j) prox_[p] += near;
        if (!simi_.empty()) simi_[p] += weight * near;
      }
    }
  }

  // PAFRAC as the landscape job computes it: 2 / slope of ln(area m2) on
  // ln(perimeter m), undefined under 10 patches (weights_ hold the areas in ha).
  double pafrac() const {
    const size_t n_patches = perims_.size();
    if (n_patches < 10) return std::numeric_limits<double>::quiet_NaN();
    double sx = 0, sy = 0;
    for (size_t i = 0; i < n_patches; ++i) {
      sx += std::log(perims_[i]);
      sy += std::log(weights_[i] * 10000);
    }
    const double n = static_cast<double>(n_patches), mx = sx / n, my = sy / n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n_patches; ++i) {
      const double dx = std::log(perims_[i]) - mx, dy = std::log(weights_[i] * 10000) - my;
      sxy += dx * dy;
      sxx += dx * dx;
    }
    return sxx > 0 && sxy != 0 ? 2 / (sxy / sxx) : std::numeric_limits<double>::quiet_NaN();
  }

  // A raster of the window's bounding box: the plane GYRATE and CIRCLE
  // measure in (distances do not depend on where it lies).
  static RasterInfo grid_info(const WindowShape& shape, double cw, double ch) {
    RasterInfo info;
    info.width = 2 * shape.half_width() + 1;
    info.height = 2 * shape.reach() + 1;
    info.cell_width = cw;
    info.cell_height = ch;
    return info;
  }

  double cw_, ch_;
  CellGeometry geometry_;
  int fixed_exponent_ = 0;
  bool needs_gyrate_ = false, needs_circle_ = false, needs_core_ = false, needs_enn_ = false, needs_contrast_ = false;
  std::vector<double> d_;                 // ECON's weights: class index x (class index or the border)
  std::vector<uint32_t> patch_of_;        // the window's cells: patch + 1
  std::vector<PatchContrast> contrasts_;  // by patch
  bool needs_proximity_ = false;
  double radius_m_ = 0;
  std::vector<double> similarity_;  // SIMI's weights by class index, or empty
  std::vector<double> prox_, simi_;  // by patch
  std::vector<size_t> edges_of_, fill_;
  std::vector<WindowPatchLabeler::EdgeCell> by_patch_;
  std::vector<size_t> by_class_;  // edge cells, class by class
  std::vector<PatchShape> shapes_;
  std::vector<CellRun> runs_;
  size_t area_ = 0, perim_ = 0;  // patch columns
  std::vector<Band> bands_;
  std::vector<bool> background_;
  std::vector<int32_t> class_codes_;
  std::vector<size_t> order_;
  std::vector<double> values_, weights_, perims_;
};

// The metrics of one window through the families: the counts become the
// class sums and the adjacency matrix the landscape job would have for the
// window cut out as its own landscape (patch-based sums stay zero: no band
// reads them).
class WindowMetrics {
 public:
  WindowMetrics(const WindowPlan& plan, const WindowJobOptions& options, double cw, double ch)
      : plan_(plan), cw_(cw), ch_(ch), from_counts_(plan, options, cw, ch, distribution_bands(plan, options, cw, ch)),
        channels_(static_cast<size_t>(window_formulas::kChannels) * plan.class_codes.size(), 0) {
    metric_options_.background = options.background;
    metric_options_.boundary_edge = options.boundary_edge;
    metric_options_.max_richness = options.max_richness;
    metric_options_.contrast = options.contrast;
    const WindowDistributions from_patches(plan, options, cw, ch);
    for (size_t b = 0; b < plan.bands.size(); ++b) {
      const WindowBand& band = plan.bands[b];
      if (from_patches.covers(b) || from_counts_.covers(b)) continue;  // WindowDistributions' bands, the count formulas'
      if (band.class_code) {
        class_band_[band.metric].push_back(b);
      } else {
        land_bands_.push_back({band.metric, b});
      }
    }
    for (const auto& [metric, bands] : class_band_) class_metric_bands_.push_back({metric, bands});
    level_.options = &metric_options_;
    level_.adjacency = &adjacency_;
    level_.sums = &sums_;
    level_.cw = cw_;
    level_.ch = ch_;
    // The distributions and PAFRAC are WindowDistributions' bands: the families' calls of them give nothing read.
    level_.distributions = [](families::RowBuilder&, const std::vector<size_t>&, bool) {};
    level_.patch_distribution = [](families::RowBuilder&, const std::string&, const std::vector<size_t>&) {};
    level_.pafrac = [](const std::vector<size_t>&) { return families::kNaN; };
  }

  /// Whether a band reads the window's cell sides (WindowCounts::sides_h,
  /// sides_v); the families' bands are taken to.
  bool needs_sides() const {
    return from_counts_.program().needs_sides || !class_metric_bands_.empty() || !land_bands_.empty();
  }
  /// Whether a band reads the patches' sizes, not only their count.
  bool needs_patch_sizes() const { return from_counts_.program().needs_patch_sizes; }

  // Values of every band for `counts` and the window's `patches` (every
  // class with a patch, ascending; empty when no band needs them) into
  // `out` (plan.bands.size() values).
  /// `joinings`: CONNECT's joined pairs of the window by class index, or
  /// null (CONNECT N/A).
  void compute(const WindowCounts& counts, const std::vector<WindowClassPatches>& patches, double* out,
               const std::vector<uint64_t>* joinings = nullptr) {
    const std::vector<int32_t>& all = plan_.class_codes;
    present_.clear();
    for (size_t a = 0; a < counts.k; ++a)
      if (counts.cells[a] > 0) present_.push_back(a);
    std::fill(out, out + plan_.bands.size(), families::kNaN);
    if (!from_counts_.empty()) compute_from_counts(counts, patches, out);
    if (class_metric_bands_.empty() && land_bands_.empty()) return;
    const size_t m = present_.size();
    adjacency_.class_codes.resize(m);
    adjacency_.sides_h.assign(m * m, 0);
    adjacency_.sides_v.assign(m * m, 0);
    sums_.assign(m, families::ClassSums{});
    uint64_t z = 0, boundary = 0;
    for (size_t i = 0; i < m; ++i) {
      const size_t a = present_[i];
      adjacency_.class_codes[i] = all[a];
      int64_t shared_h = 0, shared_v = 0;
      for (size_t j = 0; j < m; ++j) {
        const size_t b = present_[j];
        const int64_t h = counts.sides_h[a * counts.k + b], v = counts.sides_v[a * counts.k + b];
        adjacency_.sides_h[i * m + j] = static_cast<uint64_t>(h);
        adjacency_.sides_v[i * m + j] = static_cast<uint64_t>(v);
        shared_h += h;
        shared_v += v;
      }
      // Each cell has two top/bottom and two left/right sides: those not
      // shared with a cell of the window face its boundary.
      const int64_t n = counts.cells[a];
      const int64_t perim_h = 2 * n - adjacency_.sides_h[i * m + i], perim_v = 2 * n - adjacency_.sides_v[i * m + i];
      const int64_t boundary_h = 2 * n - shared_h, boundary_v = 2 * n - shared_v;
      families::ClassSums& s = sums_[i];
      s.cells = static_cast<uint64_t>(n);
      s.size = static_cast<double>(n);
      s.perim_sides = static_cast<uint64_t>(perim_h + perim_v);
      s.boundary_sides = static_cast<uint64_t>(boundary_h + boundary_v);
      s.edge_m = static_cast<double>(perim_h - boundary_h) * cw_ + static_cast<double>(perim_v - boundary_v) * ch_;
      s.boundary_m = static_cast<double>(boundary_h) * cw_ + static_cast<double>(boundary_v) * ch_;
      z += s.cells;
      boundary += s.boundary_sides;
    }
    for (const WindowClassPatches& p : patches) {  // both ascending by class index
      const size_t i = static_cast<size_t>(
          std::lower_bound(present_.begin(), present_.end(), static_cast<size_t>(p.class_index)) - present_.begin());
      families::ClassSums& s = sums_[i];
      s.patches = p.patches;
      s.largest = static_cast<double>(p.largest);
      s.sp = p.sp;
      s.spa = p.spa;
      s.sa2 = p.sa2;
      s.core_ha = static_cast<double>(p.core_cells) * cw_ * ch_ / 10000;
      s.ncore = static_cast<double>(p.core_areas);
    }
    // One context, refilled window after window (its vectors keep their memory).
    families::LevelContext& level = level_;
    level.classes.clear();
    level.class_total = 0;
    level.class_cells = 0;
    level.background.assign(m, false);
    for (size_t i = 0; i < m; ++i) {
      level.background[i] = metric_options_.background.count(adjacency_.class_codes[i]) > 0;
      if (!level.background[i]) level.classes.push_back(i);
    }
    level.m_classes = static_cast<double>(level.classes.size());
    level.z = z;
    level.total = static_cast<double>(z);
    level.unit_m2 = cw_ * ch_;
    level.ta = level.ha(level.total);
    for (size_t i : level.classes) {
      level.class_total += sums_[i].size;
      level.class_cells += sums_[i].cells;
    }
    level.landscape_boundary_sides = boundary;
    level.joinings = nullptr;
    if (joinings) {  // by the families' class order: the classes present
      joinings_by_present_.resize(m);
      for (size_t i = 0; i < m; ++i) joinings_by_present_[i] = (*joinings)[present_[i]];
      level.joinings = &joinings_by_present_;
    }

    // A class absent from the window covers none of it and has no patch or
    // edge there (users of FRAGSTATS' moving window report 0 % PLAND); its
    // other metrics are N/A.
    for (const auto& [metric, bands] : class_metric_bands_)
      if (metric == "CA" || metric == "PLAND" || metric == "NP" || metric == "PD" || metric == "LPI" || metric == "TE" ||
          metric == "ED")
        for (size_t b : bands) out[b] = 0;
    if (!class_metric_bands_.empty() && !level.classes.empty()) {
      if (!class_families_found_) find_class_families(level);
      for (size_t i : level.classes) {
        const int32_t code = adjacency_.class_codes[i];
        for (const ClassFamily& family : class_families_) {
          row_.values.clear();
          family.add(row_, level, i);
          for (const auto& [column, bands] : family.wanted) {
            const double v = row_.values[column];
            for (size_t b : *bands)
              if (*plan_.bands[b].class_code == code) out[b] = v;
          }
        }
      }
    }
    if (!land_bands_.empty()) {
      if (!land_families_found_) find_land_families(level);
      for (const LandFamily& family : land_families_) {
        row_.values.clear();
        family.add(row_, level);
        for (const auto& [column, band] : family.wanted) out[band] = row_.values[column];
      }
    }
  }

 private:
  // The bands the distributions compute (the count formulas leave them).
  static std::vector<bool> distribution_bands(const WindowPlan& plan, const WindowJobOptions& options, double cw, double ch) {
    const WindowDistributions from_patches(plan, options, cw, ch);
    std::vector<bool> taken(plan.bands.size());
    for (size_t b = 0; b < taken.size(); ++b) taken[b] = from_patches.covers(b);
    return taken;
  }

  // The count formulas' bands (window_count_formulas.h), from the window's
  // channels: the GPU pass evaluates the same function on the same integers.
  void compute_from_counts(const WindowCounts& counts, const std::vector<WindowClassPatches>& patches, double* out) {
    using namespace window_formulas;
    const size_t k = counts.k;
    const bool sides = from_counts_.program().needs_sides;  // else they stay 0: no band reads them
    for (size_t a : present_) {
      channel(kCells, a) = counts.cells[a];
      if (!sides) continue;
      int64_t other_h = 0, other_v = 0, background_h = 0, background_v = 0;
      for (size_t b : present_) {
        if (b == a) continue;
        const int64_t h = counts.sides_h[a * k + b], v = counts.sides_v[a * k + b];
        other_h += h;
        other_v += v;
        if (from_counts_.program().background[b]) {
          background_h += h;
          background_v += v;
        }
      }
      channel(kLikeH, a) = counts.sides_h[a * k + a];
      channel(kLikeV, a) = counts.sides_v[a * k + a];
      channel(kOtherH, a) = other_h;
      channel(kOtherV, a) = other_v;
      channel(kBackgroundH, a) = background_h;
      channel(kBackgroundV, a) = background_v;
    }
    for (const WindowClassPatches& p : patches) {
      channel(kPatches, static_cast<size_t>(p.class_index)) = static_cast<int64_t>(p.patches);
      channel(kLargest, static_cast<size_t>(p.class_index)) = static_cast<int64_t>(p.largest);
      channel(kSquaredSizes, static_cast<size_t>(p.class_index)) = static_cast<int64_t>(p.sa2);  // a whole number
    }
    evaluate(from_counts_.program(), HostCounts{channels_, counts, present_}, out);
    for (size_t a : present_)  // back to zero: the next window's absent classes read none
      for (int c = 0; c < kChannels; ++c) channel(c, a) = 0;
  }
  // What window_formulas::evaluate() reads: the channels, the class pairs'
  // sides, and the classes present (its loops visit those alone).
  struct HostCounts {
    const std::vector<int64_t>& channels;
    const WindowCounts& counts;
    const std::vector<size_t>& present;
    int32_t listed_classes() const { return static_cast<int32_t>(present.size()); }
    int32_t listed_class(int32_t i) const { return static_cast<int32_t>(present[static_cast<size_t>(i)]); }
    int64_t operator()(int c, int32_t a) const {
      return channels[static_cast<size_t>(c) * counts.k + static_cast<size_t>(a)];
    }
    int64_t pair(int32_t a, int32_t b) const {
      const size_t i = static_cast<size_t>(a) * counts.k + static_cast<size_t>(b);
      return counts.sides_h[i] + counts.sides_v[i];
    }
  };
  size_t channels_k() const { return plan_.class_codes.size(); }
  int64_t& channel(int c, size_t a) { return channels_[static_cast<size_t>(c) * channels_k() + a]; }

  // The families the bands need, found on the first window that has a
  // class: each family fills its own row, whose columns are always the same
  // names; a family no band reads is never called again (a window's SHDI
  // does not compute its CONTAG, IJI and entropies).
  struct ClassFamily {
    void (*add)(families::RowBuilder&, const families::LevelContext&, size_t);
    std::vector<std::pair<size_t, const std::vector<size_t>*>> wanted;  // (column, the metric's bands)
  };
  struct LandFamily {
    void (*add)(families::RowBuilder&, const families::LevelContext&);
    std::vector<std::pair<size_t, size_t>> wanted;  // (column, band)
  };

  void find_class_families(const families::LevelContext& level) {
    std::set<std::string> found;
    for (auto add : {&families::add_class_area_edge, &families::add_class_core_area, &families::add_class_contrast,
                     &families::add_class_aggregation}) {
      families::RowBuilder names;
      add(names, level, level.classes.front());
      ClassFamily family{add, {}};
      for (const auto& [metric, bands] : class_metric_bands_)
        if (const auto it = std::find(names.names.begin(), names.names.end(), metric); it != names.names.end()) {
          family.wanted.push_back({static_cast<size_t>(it - names.names.begin()), &bands});
          found.insert(metric);
        }
      if (!family.wanted.empty()) class_families_.push_back(family);
    }
    for (const auto& [metric, bands] : class_metric_bands_)
      if (!found.count(metric)) throw Error(ErrorKind::Internal, "the families give no column " + metric);
    class_families_found_ = true;
    row_.record_names = false;
  }

  void find_land_families(const families::LevelContext& level) {
    std::set<std::string> found;
    for (auto add : {&families::add_landscape_area_edge, &families::add_landscape_core_area,
                     &families::add_landscape_contrast, &families::add_landscape_aggregation,
                     &families::add_landscape_diversity, &families::add_landscape_ai,
                     &families::add_landscape_information}) {
      families::RowBuilder names;
      add(names, level);
      LandFamily family{add, {}};
      for (const auto& [metric, band] : land_bands_)
        if (const auto it = std::find(names.names.begin(), names.names.end(), metric); it != names.names.end()) {
          family.wanted.push_back({static_cast<size_t>(it - names.names.begin()), band});
          found.insert(metric);
        }
      if (!family.wanted.empty()) land_families_.push_back(family);
    }
    for (const auto& [metric, band] : land_bands_)
      if (!found.count(metric)) throw Error(ErrorKind::Internal, "the families give no column " + metric);
    land_families_found_ = true;
    row_.record_names = false;
  }

  const WindowPlan& plan_;
  double cw_, ch_;
  WindowCountProgram from_counts_;
  std::vector<int64_t> channels_;  // kChannels x k, zero but for the present classes while a window is computed
  MetricOptions metric_options_;
  std::map<std::string, std::vector<size_t>> class_band_;
  std::vector<std::pair<std::string, std::vector<size_t>>> class_metric_bands_;
  std::vector<std::pair<std::string, size_t>> land_bands_;
  std::vector<ClassFamily> class_families_;
  std::vector<LandFamily> land_families_;
  bool class_families_found_ = false, land_families_found_ = false;
  families::RowBuilder row_;  // one family's values, reused window after window
  families::LevelContext level_;
  std::vector<size_t> present_;
  std::vector<uint64_t> joinings_by_present_;  // CONNECT's joined pairs of the window, by present_ index
  ClassAdjacency adjacency_;
  std::vector<families::ClassSums> sums_;
};

// Adds (sign +1) or removes (-1) the part of the window around (x, y) that
// lies in column range [x_from, x_to] of the window's own spans: cells, the
// left/right pairs whose left cell is there, the top/bottom pairs whose
// column is there. Used with the whole window, and with its first column (leaving) and the next one (entering).
class WindowSlider {
 public:
  WindowSlider(const WindowShape& shape, const RowBand& band, WindowCounts& counts)
      : shape_(shape), band_(band), counts_(counts) {}

  /// Whether the cell sides are counted (the default); without them only
  /// the cells are (about a third of the work), for bands that read no side.
  void count_sides(bool sides) { sides_ = sides; }

  // The counts of the window around (0, y), from nothing; keeps the band's
  // rows for the steps along row y.
  void start_row(int64_t y) {
    counts_.clear();
    const int64_t r = shape_.reach();
    rows_.resize(static_cast<size_t>(2 * r + 2));
    for (int64_t i = 0; i <= 2 * r + 1; ++i)
      rows_[static_cast<size_t>(i)] = i <= 2 * r ? band_.row(y + i - r) : nullptr;
    for (int64_t i = 0; i <= 2 * r; ++i) {
      const int64_t h = shape_.half_widths[static_cast<size_t>(i)];
      if (h < 0) continue;
      const int32_t* row = rows_[static_cast<size_t>(i)];
      for (int64_t x = -h; x <= h; ++x) counts_.cell(row[x], +1);
      if (!sides_) continue;
      for (int64_t x = -h; x < h; ++x) counts_.pair(row[x], row[x + 1], false, +1);
      const int64_t hv = vertical_half(i);
      const int32_t* below = rows_[static_cast<size_t>(i + 1)];
      for (int64_t x = -hv; x <= hv; ++x) counts_.pair(row[x], below[x], true, +1);
    }
  }

  // From the window around (x, y) to the one around (x + 1, y) (after start_row(y)).
  void step(int64_t x) {
    const int64_t r = shape_.reach();
    for (int64_t i = 0; i <= 2 * r; ++i) {
      const int64_t h = shape_.half_widths[static_cast<size_t>(i)];
      if (h < 0) continue;
      const int32_t* row = rows_[static_cast<size_t>(i)];
      const int64_t left = x - h, right = x + 1 + h;
      counts_.cell(row[left], -1);
      counts_.cell(row[right], +1);
      if (!sides_) continue;
      if (h > 0) {
        counts_.pair(row[left], row[left + 1], false, -1);
        counts_.pair(row[right - 1], row[right], false, +1);
      }
      const int64_t hv = vertical_half(i);
      if (hv >= 0) {
        const int32_t* below = rows_[static_cast<size_t>(i + 1)];
        counts_.pair(row[x - hv], below[x - hv], true, -1);
        counts_.pair(row[x + 1 + hv], below[x + 1 + hv], true, +1);
      }
    }
  }

 private:
  // The half width of the top/bottom pairs between window rows i and i + 1:
  // both cells must be in the window (-1: none).
  int64_t vertical_half(int64_t i) const {
    if (i + 1 >= static_cast<int64_t>(shape_.half_widths.size())) return -1;
    return std::min(shape_.half_widths[static_cast<size_t>(i)], shape_.half_widths[static_cast<size_t>(i + 1)]);
  }

  const WindowShape& shape_;
  const RowBand& band_;
  WindowCounts& counts_;
  std::vector<const int32_t*> rows_;  // the window's rows of the band for the current focal row (+ a null past the last)
  bool sides_ = true;
};

}  // namespace

int64_t WindowShape::half_width() const {
  int64_t w = -1;
  for (int64_t h : half_widths) w = std::max(w, h);
  return w;
}

int64_t WindowShape::cells() const {
  int64_t n = 0;
  for (int64_t h : half_widths)
    if (h >= 0) n += 2 * h + 1;
  return n;
}

WindowShape square_window(int64_t half) {
  if (half < 0 || half > (int64_t(1) << 20)) throw Error(ErrorKind::BadInput, "a square window needs a half side of 0 to 2^20 cells");
  return WindowShape{std::vector<int64_t>(static_cast<size_t>(2 * half + 1), half)};
}

WindowShape circular_window(double radius, double cell_width, double cell_height) {
  if (!(radius > 0) || !std::isfinite(radius)) throw Error(ErrorKind::BadInput, "a window's radius must be positive");
  if (!(cell_width > 0) || !(cell_height > 0) || !std::isfinite(cell_width) || !std::isfinite(cell_height))
    throw Error(ErrorKind::BadInput, "a round window needs positive cell sizes");
  const double reach = std::floor(radius / cell_height), across = std::floor(radius / cell_width);
  if (reach > (1 << 20) || across > (1 << 20))
    throw Error(ErrorKind::BadInput, "a window's radius must be under 2^20 cells");
  WindowShape shape;
  const int64_t r = static_cast<int64_t>(reach);
  for (int64_t dy = -r; dy <= r; ++dy) {
    // The cells dx with (dx w)^2 + (dy h)^2 <= radius^2, centre to centre.
    const double room = radius * radius - (static_cast<double>(dy) * cell_height) * (static_cast<double>(dy) * cell_height);
    int64_t h = room < 0 ? -1 : static_cast<int64_t>(std::floor(std::sqrt(room) / cell_width));
    while (h >= 0 && (static_cast<double>(h) * cell_width) * (static_cast<double>(h) * cell_width) > room) --h;
    while ((static_cast<double>(h + 1) * cell_width) * (static_cast<double>(h + 1) * cell_width) <= room) ++h;
    shape.half_widths.push_back(h);
  }
  if (shape.cells() > (int64_t(1) << 31)) throw Error(ErrorKind::BadInput, "a window of more than 2^31 cells");
  return shape;
}

std::string WindowBand::description() const {
  return class_code ? metric + " class " + std::to_string(*class_code) : metric;
}

namespace {

// `metrics` with each distributed patch metric's statistics and PAFRAC
// after them (FRAGSTATS' shape section).
std::vector<std::string> with_distributions(std::vector<std::string> metrics) {
  for (const std::string& base : window_distributed_metrics())
    for (const std::string& stat : distribution_statistics()) metrics.push_back(base + "_" + stat);
  metrics.push_back("PAFRAC");
  return metrics;
}

}  // namespace

const std::vector<std::string>& window_class_metrics() {
  static const std::vector<std::string> metrics = with_distributions(
      {"CA", "PLAND", "NP", "PD", "LPI", "TE", "ED", "LSI", "TCA", "CPLAND", "NDCA", "DCAD", "CWED", "TECI", "CLUMPY", "PLADJ", "IJI",
       "COHESION", "CONNECT", "DIVISION", "MESH", "SPLIT", "AI", "NLSI"});
  return metrics;
}

bool window_metric_needs_patches(const std::string& metric) {
  static const std::set<std::string> patch_based{"NP",   "PD",     "LPI",  "COHESION", "DIVISION", "MESH",
                                                 "SPLIT", "PAFRAC", "TCA", "CPLAND",   "NDCA",     "DCAD",
                                                 "CONNECT"};
  if (patch_based.count(metric) > 0) return true;
  const size_t u = metric.rfind('_');
  const auto& distributed = window_distributed_metrics();
  return u != std::string::npos &&
         std::find(distributed.begin(), distributed.end(), metric.substr(0, u)) != distributed.end();
}

const std::vector<std::string>& window_landscape_metrics() {
  static const std::vector<std::string> metrics = with_distributions(
      {"TA", "NP", "PD", "LPI", "TE", "ED", "LSI", "TCA", "NDCA", "DCAD", "CWED", "TECI", "CONTAG", "PLADJ", "IJI", "COHESION",
       "CONNECT", "DIVISION", "MESH", "SPLIT",
       "PR", "PRD", "RPR", "SHDI", "SIDI", "MSIDI", "SHEI", "SIEI", "MSIEI", "AI", "ENT", "CONDENT", "JOINENT",
       "MUTINF", "RELMUTINF"});
  return metrics;
}

void check_window_metric(const std::string& metric, unsigned bit) {
  const bool at_class = bit == kClassLevel;
  const std::vector<std::string>& computed = at_class ? window_class_metrics() : window_landscape_metrics();
  const char* level = at_class ? "class" : "landscape";
  if (std::find(computed.begin(), computed.end(), metric) != computed.end()) return;
  const MetricInfo* info = find_metric(metric);
  // A distribution (AREA_MN ...) is a class and landscape metric too.
  const size_t u = metric.rfind('_');
  const MetricInfo* base = u == std::string::npos ? nullptr : find_metric(metric.substr(0, u));
  const auto& stats = distribution_statistics();
  const bool distribution = base && base->distributed && u + 1 < metric.size() &&
                            std::find(stats.begin(), stats.end(), metric.substr(u + 1)) != stats.end();
  if ((info && (info->levels & bit)) || distribution)
    throw Error(ErrorKind::BadInput, metric + " is a " + level + " metric that moving windows do not compute yet (they compute " + [&] {
      std::string list;
      for (const std::string& m : computed) list += (list.empty() ? "" : ",") + m;
      return list;
    }() + ")");
  if (const MissingMetric* missing = find_missing_metric(metric))
    throw Error(ErrorKind::BadInput, metric + " is a " + missing->from + " metric that lsm does not compute yet" +
                                         (*missing->needs ? std::string(" (it needs ") + missing->needs + ")" : std::string()));
  const std::string meant = near_match(metric, computed);
  throw Error(ErrorKind::BadInput, "'" + metric + "' is not a " + level + " metric" +
                                       (meant.empty() ? "" : "; did you mean " + meant + "?"));
}

WindowPlan plan_window_job(const RasterInfo& raster, const std::vector<int32_t>& class_codes,
                           const WindowJobOptions& options) {
  if (options.class_metrics.empty() && options.landscape_metrics.empty())
    throw Error(ErrorKind::BadInput, "a moving window needs at least one metric");
  for (const std::string& m : options.class_metrics) check_window_metric(m, kClassLevel);
  for (const std::string& m : options.landscape_metrics) check_window_metric(m, kLandscapeLevel);
  if (!(options.boundary_edge >= 0 && options.boundary_edge <= 1))
    throw Error(ErrorKind::BadInput, "boundary edge proportion must be between 0 and 1");
  if (options.edge_depth < 1) throw Error(ErrorKind::BadInput, "the edge depth must be at least 1 cell");
  if (raster.geodesic)
    throw Error(ErrorKind::BadInput, "moving windows on a geographic raster (cells in degrees) are not supported yet: "
                                     "reproject it to a projected CRS (gdalwarp -t_srs)");
  const WindowShape& shape = options.shape;
  if (shape.half_widths.empty() || shape.half_widths.size() % 2 == 0 || shape.cells() == 0)
    throw Error(ErrorKind::BadInput, "the window holds no cell");
  const int64_t rows = 2 * shape.reach() + 1, columns = 2 * shape.half_width() + 1;
  if (rows > raster.height || columns > raster.width)
    throw Error(ErrorKind::BadInput, "the window (" + std::to_string(columns) + " x " + std::to_string(rows) +
                                         " cells) is larger than the raster (" + std::to_string(raster.width) + " x " +
                                         std::to_string(raster.height) + ")");
  WindowPlan plan;
  plan.class_codes = class_codes;
  std::vector<int32_t> classes = options.classes;
  if (classes.empty())
    for (int32_t c : class_codes)
      if (!options.background.count(c)) classes.push_back(c);
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  for (int32_t c : classes) {
    if (!std::binary_search(class_codes.begin(), class_codes.end(), c))
      throw Error(ErrorKind::BadInput, "class " + std::to_string(c) + " is not in the raster");
    if (options.background.count(c))
      throw Error(ErrorKind::BadInput, "class " + std::to_string(c) + " is background: it has no class metrics");
  }
  for (const std::string& m : options.class_metrics)
    for (int32_t c : classes) plan.bands.push_back({m, c});
  // The contrast metrics need every edge's weight, the window's border
  // (the landscape boundary) the background's.
  const auto contrast = [](const std::string& m) { return m == "CWED" || m == "TECI" || m.rfind("ECON_", 0) == 0; };
  if (std::any_of(options.class_metrics.begin(), options.class_metrics.end(), contrast) ||
      std::any_of(options.landscape_metrics.begin(), options.landscape_metrics.end(), contrast)) {
    if (!options.contrast)
      throw Error(ErrorKind::BadInput,
                  "CWED, TECI and ECON need FRAGSTATS' edge contrast weights (--contrast-table FILE.fce)");
    if (!class_codes.empty()) {
      check_contrast_classes(*options.contrast, class_codes);
      boundary_class(*options.contrast, std::vector<int32_t>(options.background.begin(), options.background.end()));
    }
  }
  if (options.edge_depth_table) {  // every edge needs its depth: refused here, before any window
    const auto in_cells = edge_depths_in_cells(raster, *options.edge_depth_table);
    std::vector<int32_t> listed = class_codes;
    listed.push_back(edge_depth_boundary_class(
        *in_cells, std::vector<int32_t>(options.background.begin(), options.background.end())));
    check_edge_depth_classes(*in_cells, listed);
  }
  const auto wants = [&](const char* prefix) {
    for (const auto* list : {&options.class_metrics, &options.landscape_metrics})
      for (const std::string& m : *list)
        if (m.rfind(prefix, 0) == 0) return true;
    return false;
  };
  if ((wants("PROX_") || wants("SIMI_")) && !options.search_radius)
    throw Error(ErrorKind::BadInput, std::string(wants("PROX_") ? "PROX" : "SIMI") +
                                         " needs FRAGSTATS' search radius (--search-radius METRES)");
  if (options.search_radius && !(*options.search_radius > 0 && std::isfinite(*options.search_radius)))
    throw Error(ErrorKind::BadInput, "the search radius must be a positive number of metres");
  if (wants("SIMI_")) {
    if (!options.similarity)
      throw Error(ErrorKind::BadInput, "SIMI needs FRAGSTATS' similarity weights (--similarity-table FILE.fsq)");
    std::vector<int32_t> patch_classes;
    for (int32_t c : class_codes)
      if (!options.background.count(c)) patch_classes.push_back(c);
    check_similarity_classes(*options.similarity, patch_classes);
  }
  const auto connect = [](const std::string& m) { return m == "CONNECT"; };
  if (std::any_of(options.class_metrics.begin(), options.class_metrics.end(), connect) ||
      std::any_of(options.landscape_metrics.begin(), options.landscape_metrics.end(), connect)) {
    if (!options.threshold_distance)
      throw Error(ErrorKind::BadInput, "CONNECT needs FRAGSTATS' threshold distance (--threshold-distance METRES)");
    if (!(*options.threshold_distance > 0) || !std::isfinite(*options.threshold_distance))
      throw Error(ErrorKind::BadInput, "the threshold distance must be a positive number of metres");
  }
  for (const std::string& m : options.landscape_metrics) plan.bands.push_back({m, std::nullopt});
  // The band of rows (4 bytes a cell), the counts (3 k^2 + k values) and one row of values.
  const double k = static_cast<double>(class_codes.size());
  const double bytes = static_cast<double>(rows) * static_cast<double>(raster.width + 2 * shape.half_width()) * 4 +
                       (3 * k * k + k) * 8 +
                       static_cast<double>(raster.width) * static_cast<double>(plan.bands.size()) * 8;
  if (bytes > static_cast<double>(options.memory_limit))
    throw Error(ErrorKind::BadInput, "the moving window needs " + std::to_string(static_cast<int64_t>(bytes / (1 << 20))) +
                                         " MiB (a band of " + std::to_string(rows) +
                                         " rows and one row of values), more than the memory limit");
  std::string why_not;
  if (options.backend == Backend::Cuda && !class_codes.empty() && !window_runs_on_gpu(plan, options, &why_not))
    throw Error(ErrorKind::BadInput, "the CUDA backend does not compute this moving window: " + why_not +
                                         " (--backend cpu or auto computes it on the CPU)");
  return plan;
}

bool window_runs_on_gpu(const WindowPlan& plan, const WindowJobOptions& options, std::string* why_not) {
  auto refuse = [why_not](const std::string& why) {
    if (why_not) *why_not = why;
    return false;
  };
  for (const WindowBand& band : plan.bands)
    if (!window_count_metric(band))
      return refuse(band.metric + (band.class_code ? " (class level)" : " (landscape level)") +
                    " is not computed on the GPU yet (it computes CA, PLAND, NP, PD, LPI, TE, ED, LSI, PLADJ, DIVISION, "
                    "MESH, SPLIT, AI, CLUMPY and NLSI of classes; TA, NP, PD, LPI, TE, ED, LSI, CONTAG, PLADJ, "
                    "DIVISION, MESH, SPLIT, AI, PR, PRD, RPR, SHDI, SIDI, MSIDI, SHEI, SIEI and MSIEI of the "
                    "landscape)");
  const WindowCountProgram counts(plan, options, 1, 1, {});
  if (counts.program().needs_pairs && plan.class_codes.size() > static_cast<size_t>(kWindowPassMaxPairClasses))
    return refuse("CONTAG runs on the GPU for rasters of at most " + std::to_string(kWindowPassMaxPairClasses) +
                  " classes; this one has " + std::to_string(plan.class_codes.size()));
  if (counts.program().needs_patches && options.shape.cells() > kWindowPassMaxRuns)
    return refuse("NP, PD, LPI, DIVISION, MESH and SPLIT run on the GPU in windows of at most " +
                  std::to_string(kWindowPassMaxRuns) + " cells (45 x 45); this one has " +
                  std::to_string(options.shape.cells()));
  if (plan.class_codes.size() > static_cast<size_t>(kWindowPassMaxClasses))
    return refuse("the raster has " + std::to_string(plan.class_codes.size()) + " classes, more than the GPU's " +
                  std::to_string(kWindowPassMaxClasses));
  return true;
}

WindowPlan plan_window_job(ClassRasterSource& source, const WindowJobOptions& options, const ProgressFn& progress) {
  const RasterInfo info = source.info();
  WindowJobOptions before_reading = options;  // every check but the classes', before the first read
  before_reading.classes.clear();
  plan_window_job(info, {}, before_reading);
  const std::vector<int32_t> codes = class_codes_of(source, progress);
  return plan_window_job(info, codes, options);
}

WindowPlan run_window_job(ClassRasterSource& source, const WindowJobOptions& options, WindowRowSink& sink,
                          const ProgressFn& progress) {
  const WindowPlan plan = plan_window_job(source, options, progress);
  sink.begin(plan);
  const ProgressFn rows_progress = progress ? ProgressFn([&progress](double f) { return progress(0.1 + 0.9 * f); })
                                            : ProgressFn();
  run_window_rows(source, options, plan, 0, source.info().height, sink, rows_progress);
  return plan;
}

namespace {

// One thread's share of a block of focal rows: whole rows, each with its own
// sliding counts, labeler and scratch (rows are independent given the band).
class WindowJoinings {
 public:
  // CONNECT's joined pairs of the window `labeler` has just labeled (with
  // runs): two patches of a class are joined when some two of their cells
  // are within `threshold_m` ((dx w)^2 + (dy h)^2 <= T^2, as
  // connectance_sweep.h), and the nearest cells of two patches are edge
  // cells, so every pair of a class's edge cells is tested: O(E^2) per class
  // and window, as ENN.
  void count(const WindowPatchLabeler& labeler, size_t classes, double threshold_m, double cw, double ch) {
    const std::vector<WindowPatch>& patches = labeler.patches();
    const std::vector<WindowPatchLabeler::EdgeCell>& edges = labeler.edge_cells();
    by_class_.assign(classes, 0);
    order_.resize(edges.size());
    for (size_t e = 0; e < edges.size(); ++e) order_[e] = e;
    const auto class_of = [&](size_t e) { return patches[static_cast<size_t>(edges[e].patch)].class_index; };
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return class_of(a) < class_of(b); });
    for (size_t from = 0; from < order_.size();) {
      const int32_t k = class_of(order_[from]);
      size_t to = from;
      while (to < order_.size() && class_of(order_[to]) == k) ++to;
      pairs_.clear();
      for (size_t i = from; i < to; ++i)
        for (size_t j = i + 1; j < to; ++j) {
          const auto& a = edges[order_[i]];
          const auto& b = edges[order_[j]];
          if (a.patch == b.patch) continue;
          if (!cells_within(a.column - b.column, a.row - b.row, cw, ch, threshold_m)) continue;
          pairs_.emplace_back(std::min(a.patch, b.patch), std::max(a.patch, b.patch));
        }
      std::sort(pairs_.begin(), pairs_.end());
      by_class_[static_cast<size_t>(k)] =
          static_cast<uint64_t>(std::unique(pairs_.begin(), pairs_.end()) - pairs_.begin());
      from = to;
    }
  }
  /// The joined pairs by class index.
  const std::vector<uint64_t>& by_class() const { return by_class_; }

 private:
  std::vector<uint64_t> by_class_;
  std::vector<size_t> order_;
  std::vector<std::pair<int32_t, int32_t>> pairs_;
};

// An edge depth file's depths in cells by class index of `codes` (the
// plan's), row i the patch's class, the boundary's column last.
std::vector<int> pair_depths_by_class_index(const ClassPairTable& metres, const std::vector<int32_t>& codes,
                                            const std::set<int32_t>& background, double cw, double ch) {
  RasterInfo cells;
  cells.cell_width = cw;
  cells.cell_height = ch;
  const auto table = edge_depths_in_cells(cells, metres);
  const int32_t boundary =
      edge_depth_boundary_class(*table, std::vector<int32_t>(background.begin(), background.end()));
  const size_t k = codes.size();
  std::vector<int> d(k * (k + 1));
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j <= k; ++j)
      d[i * (k + 1) + j] = static_cast<int>(table->weight(codes[i], j < k ? codes[j] : boundary));
  return d;
}

class WindowRowWorker {
 public:
  WindowRowWorker(const WindowJobOptions& options, const WindowPlan& plan, const RowBand& band,
                  const WindowDistributions& from_patches, double cw, double ch)
      : options_(options), band_(band), counts_(plan.class_codes.size()), slider_(options.shape, band, counts_),
        metrics_(plan, options, cw, ch), distributions_(from_patches), n_bands_(plan.bands.size()), cw_(cw), ch_(ch),
        distribution_values_(from_patches.size()) {
    for (const WindowBand& b : plan.bands) needs_patches_ = needs_patches_ || window_metric_needs_patches(b.metric);
    // The core areas, where a band reads them.
    bool needs_core = from_patches.needs_core();
    for (const WindowBand& b : plan.bands)
      needs_core = needs_core || b.metric == "TCA" || b.metric == "CPLAND" || b.metric == "NDCA" || b.metric == "DCAD";
    core_rule_ = WindowCoreRule{needs_core ? options.edge_depth : 0, options.core_areas};
    if (needs_core && options.edge_depth_table) {
      pair_depths_ = pair_depths_by_class_index(*options.edge_depth_table, plan.class_codes, options.background, cw, ch);
      core_rule_.pair_depths = &pair_depths_;
      core_rule_.classes = plan.class_codes.size();
      core_rule_.depth = std::max(1, *std::max_element(pair_depths_.begin(), pair_depths_.end()));
    }
    // NP, PD, LPI, DIVISION, MESH and SPLIT read only each class's patch
    // count, largest patch and squared sizes: in a rectangular window these
    // come from merged column ranges (window_range_patches.h), without
    // labeling each window; the other patch bands need the labeler.
    bool needs_labeler = !distributions_.empty() || needs_core;
    for (const WindowBand& b : plan.bands) {
      needs_labeler = needs_labeler || b.metric == "COHESION";
      needs_joinings_ = needs_joinings_ || b.metric == "CONNECT";
    }
    needs_labeler = needs_labeler || needs_joinings_;
    const std::vector<int64_t>& halves = options.shape.half_widths;
    const bool rectangle = halves.front() >= 0 && std::all_of(halves.begin(), halves.end(),
                                                              [&](int64_t h) { return h == halves.front(); });
    by_ranges_ = needs_patches_ && !needs_labeler && rectangle;
    slider_.count_sides(metrics_.needs_sides());
  }

  // Row y's values (width x bands, cell-interleaved) into `out`; the band
  // holds the rows its windows cover.
  void row(int64_t y, int64_t width, int64_t height, double* out) {
    const WindowShape& shape = options_.shape;
    const int64_t reach = shape.reach(), half = shape.half_width();
    const int64_t grid_rows = 2 * reach + 1, grid_columns = 2 * half + 1;
    const bool rows_inside = y - reach >= 0 && y + reach < height;
    slider_.start_row(y);
    if (by_ranges_) {
      window_rows_.resize(static_cast<size_t>(grid_rows));
      for (int64_t i = 0; i < grid_rows; ++i) window_rows_[static_cast<size_t>(i)] = band_.row(y + i - reach);
      ranges_.start_row(window_rows_, width, grid_columns, options_.rule, metrics_.needs_patch_sizes());
    }
    for (int64_t x = 0; x < width; ++x) {
      if (x > 0) slider_.step(x - 1);
      double* values = out + static_cast<size_t>(x) * n_bands_;
      const bool whole = rows_inside && x - half >= 0 && x + half < width;
      if (band_.at(x, y) == kOutside || (options_.edge == WindowEdge::Skip && !whole)) {
        std::fill(values, values + n_bands_, std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      if (!needs_patches_ || by_ranges_) {
        metrics_.compute(counts_, by_ranges_ ? ranges_.at(x) : no_patches_, values);
        continue;
      }
      grid_.assign(static_cast<size_t>(grid_rows * grid_columns), kOutside);
      for (int64_t i = 0; i < grid_rows; ++i) {
        const int64_t h = shape.half_widths[static_cast<size_t>(i)];
        if (h < 0) continue;
        const int32_t* from = band_.row(y + i - reach) + x;
        std::copy(from - h, from + h + 1, grid_.begin() + (i * grid_columns + half - h));
      }
      const std::vector<WindowClassPatches>& patches =
          labeler_.label(grid_, grid_rows, grid_columns, options_.rule, distributions_.needs_runs() || needs_joinings_,
                         core_rule_);
      if (needs_joinings_) joinings_.count(labeler_, counts_.k, *options_.threshold_distance, cw_, ch_);
      if (!distributions_.empty())
        distributions_.compute(labeler_, grid_, grid_rows, grid_columns, distribution_values_.data());
      metrics_.compute(counts_, patches, values, needs_joinings_ ? &joinings_.by_class() : nullptr);
      for (size_t i = 0; i < distribution_values_.size(); ++i) values[distributions_.band(i)] = distribution_values_[i];
    }
  }

 private:
  const WindowJobOptions& options_;
  const RowBand& band_;
  WindowCounts counts_;
  WindowSlider slider_;
  WindowMetrics metrics_;
  WindowPatchLabeler labeler_;
  WindowRangePatches ranges_;
  std::vector<const int32_t*> window_rows_;
  WindowDistributions distributions_;
  size_t n_bands_;
  bool needs_patches_ = false, by_ranges_ = false, needs_joinings_ = false;
  WindowJoinings joinings_;
  double cw_, ch_;
  WindowCoreRule core_rule_;
  std::vector<int> pair_depths_;  // with an edge depth file: core_rule_.pair_depths
  std::vector<int32_t> grid_;
  std::vector<double> distribution_values_;
  const std::vector<WindowClassPatches> no_patches_;
};

// Focal rows per block: enough for every thread to take rows of its own, as
// many as the memory limit allows beside the band's reach (at least one).
int64_t rows_per_block(const WindowJobOptions& options, const WindowPlan& plan, int64_t width, int64_t rows, int threads) {
  const WindowShape& shape = options.shape;
  const double stride_bytes = static_cast<double>(width + 2 * shape.half_width() + 2) * 4;
  const double k = static_cast<double>(plan.class_codes.size());
  const double per_thread = (3 * k * k + k) * 8 + static_cast<double>(shape.cells()) * 4;
  // Two blocks of values: one computed while the sink writes the other.
  const double row_values = 2 * static_cast<double>(width) * static_cast<double>(plan.bands.size()) * 8;
  int64_t block = std::min<int64_t>(rows, 4 * static_cast<int64_t>(threads));
  while (block > 1 && static_cast<double>(2 * shape.reach() + block) * stride_bytes + threads * per_thread +
                              static_cast<double>(block) * row_values >
                          static_cast<double>(options.memory_limit))
    block /= 2;
  return std::max<int64_t>(1, block);
}

// The rows on the GPUs: blocks of focal rows with their reach, as class
// indices of one byte, through the count pass. Two blocks are in flight: the
// GPUs compute one while this thread reads and converts the next, then hands
// that one's rows to the sink while the GPUs compute the next.
void run_window_rows_on(WindowCountPass& pass, ClassRasterSource& source, const WindowJobOptions& options,
                        const WindowPlan& plan, int64_t first_row, int64_t rows, WindowRowSink& sink,
                        const ProgressFn& progress) {
  const RasterInfo info = source.info();
  const int64_t reach = options.shape.reach(), half = options.shape.half_width(), width = info.width,
                stride = width + 2 * half;
  const std::vector<int32_t> half_widths(options.shape.half_widths.begin(), options.shape.half_widths.end());
  const WindowSpans spans{half_widths.data(), static_cast<int32_t>(reach), static_cast<int32_t>(half),
                          options.shape.cells()};
  const WindowCountProgram counts(plan, options, info.cell_width, info.cell_height, {});
  if (counts.program().band_count != plan.bands.size())
    throw Error(ErrorKind::Internal, "a GPU window band without a count formula");
  // Focal rows per block: up to 1024, within the memory limit (the band of
  // rows as read, as class indices of 4 bytes and, twice, of 1; twice the
  // block's values).
  // Two blocks of values: one computed while the sink writes the other.
  const double row_values = 2 * static_cast<double>(width) * static_cast<double>(plan.bands.size()) * 8;
  const auto block_bytes = [&](int64_t b) {
    return static_cast<double>(b + 2 * reach) * static_cast<double>(stride + 2) * 10 + 2 * static_cast<double>(b) * row_values;
  };
  int64_t block = std::min<int64_t>(std::max<int64_t>(rows, 1), 1024);
  while (block > 1 && block_bytes(block) > static_cast<double>(options.memory_limit)) block /= 2;
  RowBand band(source, plan.class_codes, 2 * reach + block, half + 1);
  const size_t row_count = static_cast<size_t>(width) * plan.bands.size();
  struct Block {
    int64_t y0 = 0, n = 0;
    std::vector<uint8_t> indices;
    std::vector<double> values;
    std::future<void> computed;
  };
  Block blocks[2];
  for (Block& b : blocks) {
    b.indices.resize(static_cast<size_t>(block + 2 * reach) * static_cast<size_t>(stride));
    b.values.resize(static_cast<size_t>(block) * row_count);
  }
  const auto deliver = [&](Block& b) {
    for (int64_t i = 0; i < b.n; ++i) sink.write_row(b.y0 + i, &b.values[static_cast<size_t>(i) * row_count]);
    if (progress && !progress(static_cast<double>(b.y0 + b.n - first_row) / static_cast<double>(rows)))
      throw Error(ErrorKind::Io, "interrupted");
  };
  try {
    int current = 0;
    for (int64_t y0 = first_row; y0 < first_row + rows; y0 += block, current ^= 1) {
      Block& b = blocks[current];
      b.y0 = y0;
      b.n = std::min(block, first_row + rows - y0);
      band.hold(y0 - reach, y0 + b.n - 1 + reach);
#pragma omp parallel for schedule(static)
      for (int64_t j = 0; j < b.n + 2 * reach; ++j) {
        const int32_t* from = band.row(y0 - reach + j);
        uint8_t* to = &b.indices[static_cast<size_t>(j) * static_cast<size_t>(stride)];
        for (int64_t x = -half; x < width + half; ++x)
          to[x + half] = from[x] == kOutside ? kWindowOutsideIndex : static_cast<uint8_t>(from[x]);
      }
      // The pass computes one block at a time (its buffers are its own).
      Block& previous = blocks[current ^ 1];
      const bool pending = previous.computed.valid();
      if (pending) previous.computed.get();
      const WindowBlockPlace place{y0, info.height, options.edge == WindowEdge::Skip};
      b.computed = std::async(std::launch::async, [&pass, &counts, &spans, &b, width, place] {
        pass.run(counts.program(), spans, b.indices.data(), width, b.n, place, b.values.data());
      });
      if (pending) deliver(previous);
    }
    Block& last = blocks[current ^ 1];
    if (last.computed.valid()) {
      last.computed.get();
      deliver(last);
    }
  } catch (...) {
    for (Block& b : blocks)  // no block may outlive its buffers
      if (b.computed.valid()) b.computed.wait();
    throw;
  }
}

}  // namespace

void run_window_rows(ClassRasterSource& source, const WindowJobOptions& options, const WindowPlan& plan,
                     int64_t first_row, int64_t rows, WindowRowSink& sink, const ProgressFn& progress) {
  const RasterInfo info = source.info();
  if (first_row < 0 || rows < 0 || first_row + rows > info.height)
    throw Error(ErrorKind::Internal, "window rows beyond the raster");
  if (options.backend != Backend::Cpu && window_runs_on_gpu(plan, options))
    if (const std::unique_ptr<WindowCountPass> pass = make_window_count_pass(options.backend)) {
      const WindowCountProgram counts(plan, options, info.cell_width, info.cell_height, {});
      // Under auto, a GPU without room for this many classes' counts leaves the run to the CPU.
      if (options.backend == Backend::Cuda || pass->takes(counts.program()))
        return run_window_rows_on(*pass, source, options, plan, first_row, rows, sink, progress);
    }
  const WindowShape& shape = options.shape;
  const int64_t reach = shape.reach(), half = shape.half_width();
  const int threads = std::max(1, omp_get_max_threads());
  const int64_t block = rows_per_block(options, plan, info.width, std::max<int64_t>(rows, 1), threads);
  RowBand band(source, plan.class_codes, 2 * reach + block, half + 1);
  const WindowDistributions from_patches(plan, options, info.cell_width, info.cell_height);
  std::vector<std::unique_ptr<WindowRowWorker>> workers;
  for (int t = 0; t < threads; ++t)
    workers.push_back(std::make_unique<WindowRowWorker>(options, plan, band, from_patches, info.cell_width, info.cell_height));
  const size_t row_values = static_cast<size_t>(info.width) * plan.bands.size();
  // Two blocks of values: one thread of the team writes the previous block
  // into the sink (a GeoTIFF's encoding is serial) while the others start
  // the next one's rows, then joins them.
  std::array<std::vector<double>, 2> values;
  for (auto& v : values) v.resize(static_cast<size_t>(block) * row_values);
  int64_t written_y0 = 0, written_n = 0;  // the block waiting for the sink, in the other slot
  int slot = 0;
  const auto write_block = [&](const std::vector<double>& from) {
    for (int64_t i = 0; i < written_n; ++i) sink.write_row(written_y0 + i, &from[static_cast<size_t>(i) * row_values]);
  };
  for (int64_t y0 = first_row; y0 < first_row + rows; y0 += block, slot ^= 1) {
    const int64_t n = std::min(block, first_row + rows - y0);
    band.hold(y0 - reach, y0 + n - 1 + reach);
    std::vector<double>& out = values[static_cast<size_t>(slot)];
    const std::vector<double>& previous = values[static_cast<size_t>(slot ^ 1)];
    std::exception_ptr failure;
#pragma omp parallel num_threads(threads)
    {
#pragma omp single nowait
      try {
        write_block(previous);
      } catch (...) {
#pragma omp critical(window_failure)
        failure = std::current_exception();
      }
#pragma omp for schedule(dynamic, 1)
      for (int64_t i = 0; i < n; ++i) {
        try {
          workers[static_cast<size_t>(omp_get_thread_num())]->row(y0 + i, info.width, info.height,
                                                                   &out[static_cast<size_t>(i) * row_values]);
        } catch (...) {
#pragma omp critical(window_failure)
          failure = std::current_exception();
        }
      }
    }
    if (failure) std::rethrow_exception(failure);
    written_y0 = y0;
    written_n = n;
    const bool last = y0 + n == first_row + rows;  // its progress once written
    if (progress && !last && !progress(static_cast<double>(y0 + n - first_row) / static_cast<double>(rows)))
      throw Error(ErrorKind::Io, "interrupted");
  }
  write_block(values[static_cast<size_t>(slot ^ 1)]);
  if (progress && !progress(1.0)) throw Error(ErrorKind::Io, "interrupted");
}

}  // namespace lsm
