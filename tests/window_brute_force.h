#pragma once
// The moving window's brute-force reference, for the engine's tests (random
// and hand grids: test_window_job.cpp) and the GDAL ones (crops of real
// rasters: test_window_real_rasters.cpp): every band of every focal cell
// against the landscape job run on that window cut out as its own raster.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "class_pair_table.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "window_job.h"

namespace lsm::test {

// The window_job tests' helpers live in an inline namespace of this header
// so that both test binaries define them once each.
inline namespace window_reference {

// Every row the job writes, kept.
class KeptRows final : public WindowRowSink {
 public:
  void begin(const WindowPlan& plan) override { bands = plan.bands.size(); }
  void write_row(int64_t y, const double* values) override {
    EXPECT_EQ(y, static_cast<int64_t>(rows.size()));
    rows.emplace_back(values, values + width * bands);
  }
  int64_t width = 0;
  size_t bands = 0;
  std::vector<std::vector<double>> rows;
  double at(int64_t x, int64_t y, size_t band) const {
    return rows.at(static_cast<size_t>(y)).at(static_cast<size_t>(x) * bands + band);
  }
};

inline KeptRows run(MemoryClassRaster& raster, const WindowJobOptions& o, WindowPlan* plan = nullptr) {
  KeptRows kept;
  kept.width = raster.info().width;
  const WindowPlan p = run_window_job(raster, o, kept);
  if (plan) *plan = p;
  return kept;
}

// The landscape job's value of band `band` for the landscape `cells`.
inline double reference_value(const MetricTable& cls, const MetricTable& land, const WindowBand& band) {
  const MetricTable& table = band.class_code ? cls : land;
  // A window of background and nodata alone has no class row (and its
  // class table no columns): the class is absent, as below.
  const bool has_row = std::any_of(table.rows.begin(), table.rows.end(), [&](const MetricTable::Row& row) {
    return !band.class_code || row.type == *band.class_code;
  });
  size_t column = table.columns.size();
  for (size_t c = 0; c < table.columns.size(); ++c)
    if (table.columns[c] == band.metric) column = c;
  if (column == table.columns.size() && has_row) {
    ADD_FAILURE() << "no column " << band.metric;
    return 0;
  }
  for (const MetricTable::Row& row : table.rows)
    if (!band.class_code || row.type == *band.class_code) return row.values[column];
  // The class is not in the window: no row. It covers none of it and has no
  // edge (0); its other metrics are N/A.
  const bool zero = band.metric == "CA" || band.metric == "PLAND" || band.metric == "NP" || band.metric == "PD" ||
                    band.metric == "LPI" || band.metric == "TE" || band.metric == "ED";
  return zero ? 0 : std::nan("");
}

inline bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;  // infinities too (CLUMPY of a class with no like adjacency in a tiny window)
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// Brute force: for every focal cell, the window cut out (its bounding box,
// cells outside the window nodata) through the landscape job.
inline void expect_equal_to_cut_out_windows(const std::vector<int32_t>& cells, int64_t width, int64_t height, double cell,
                                     const WindowJobOptions& o, const std::string& what) {
  MemoryClassRaster raster(width, height, cells, cell, cell);
  WindowPlan plan;
  const KeptRows kept = run(raster, o, &plan);
  ASSERT_EQ(kept.rows.size(), static_cast<size_t>(height));
  const WindowShape& shape = o.shape;
  const int64_t r = shape.reach(), half = shape.half_width();
  int checked = 0, mismatches = 0;
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x) {
      const bool nodata = cells[static_cast<size_t>(y * width + x)] == kNoClass;
      const bool whole = y - r >= 0 && y + r < height && x - half >= 0 && x + half < width;
      if (nodata || (o.edge == WindowEdge::Skip && !whole)) {
        for (size_t b = 0; b < plan.bands.size(); ++b)
          EXPECT_TRUE(std::isnan(kept.at(x, y, b))) << what << " (" << x << "," << y << ") band " << b;
        continue;
      }
      const int64_t x0 = std::max<int64_t>(0, x - half), x1 = std::min(width - 1, x + half);
      const int64_t y0 = std::max<int64_t>(0, y - r), y1 = std::min(height - 1, y + r);
      std::vector<int32_t> cut;
      for (int64_t yy = y0; yy <= y1; ++yy)
        for (int64_t xx = x0; xx <= x1; ++xx) {
          const int64_t h = shape.half_widths[static_cast<size_t>(yy - y + r)];
          cut.push_back(std::abs(xx - x) <= h ? cells[static_cast<size_t>(yy * width + xx)] : kNoClass);
        }
      MemoryClassRaster window(x1 - x0 + 1, y1 - y0 + 1, cut, cell, cell);
      LandscapeJobOptions lo;
      lo.backend = Backend::Cpu;
      lo.rule = o.rule;
      lo.background = o.background;
      lo.boundary_edge = o.boundary_edge;
      lo.max_richness = o.max_richness;
      lo.edge_depth = o.edge_depth;
      lo.core_areas = o.core_areas;
      lo.edge_depth_table = o.edge_depth_table;
      lo.contrast = o.contrast;
      lo.threshold_distance = o.threshold_distance;
      lo.search_radius = o.search_radius;
      lo.similarity = o.similarity;
      const LandscapeResults ref = run_landscape_job(window, lo);
      for (size_t b = 0; b < plan.bands.size(); ++b) {
        const double expected = reference_value(ref.metrics.cls, ref.metrics.land, plan.bands[b]);
        ++checked;
        if (!same(kept.at(x, y, b), expected) && ++mismatches <= 5)
          ADD_FAILURE() << what << ": focal cell (" << x << "," << y << ") " << plan.bands[b].description()
                        << " = " << kept.at(x, y, b) << ", the cut-out window gives " << expected;
      }
    }
  EXPECT_EQ(mismatches, 0) << what << ": of " << checked;
  EXPECT_GT(checked, 0) << what;
}

// Edge contrast weights for every class of `cells` and FRAGSTATS'
// background value 999 (symmetric, 0 on the diagonal, tenths from a fixed
// rule), so that CWED and TECI run among every metric.
inline std::shared_ptr<const ClassPairTable> contrast_table_for(const std::vector<int32_t>& cells) {
  std::set<int32_t> codes(cells.begin(), cells.end());
  codes.erase(kNoClass);
  codes.insert(kFragstatsBackgroundValue);
  auto t = std::make_shared<ClassPairTable>();
  t->codes.assign(codes.begin(), codes.end());
  t->path = "the test's weights";
  const size_t n = t->codes.size();
  t->d.resize(n * n);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k) t->d[i * n + k] = i == k ? 0 : static_cast<double>((i + 1) * (k + 1) * 37 % 11) / 10;
  return t;
}

// Similarity weights for every class of `cells` (not symmetric, some 0,
// quarters from a fixed rule), so that SIMI's distributions run.
inline std::shared_ptr<const ClassPairTable> similarity_table_for(const std::vector<int32_t>& cells) {
  std::set<int32_t> codes(cells.begin(), cells.end());
  codes.erase(kNoClass);
  auto t = std::make_shared<ClassPairTable>();
  t->codes.assign(codes.begin(), codes.end());
  t->path = "the test's similarities";
  const size_t n = t->codes.size();
  t->d.resize(n * n);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k) t->d[i * n + k] = i == k ? 1 : static_cast<double>((i + 2) * (k + 1) * 13 % 5) / 4;
  return t;
}

// Every metric a window computes, with contrast weights for the classes of
// `cells` and CONNECT's threshold distance: 2.5 cells of `cell` m (patches
// diagonal to each other or one cell apart are joined, two cells apart too).
inline WindowJobOptions every_metric(const std::vector<int32_t>& cells, double cell = 10) {
  WindowJobOptions o;
  o.contrast = contrast_table_for(cells);
  o.threshold_distance = 2.5 * cell;
  o.search_radius = 3 * cell;
  o.similarity = similarity_table_for(cells);
  o.class_metrics = window_class_metrics();
  o.landscape_metrics = window_landscape_metrics();
  o.max_richness = 6;
  return o;
}

}  // namespace window_reference

}  // namespace lsm::test
