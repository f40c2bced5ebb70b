#include "fragstats_metrics.h"

#include "landscape_border.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>
#include <map>
#include <numeric>

#include "cell_geometry.h"
#include "class_value_columns.h"
#include "class_pair_table.h"
#include "error.h"
#include "families/metric_families.h"
#include "landscape_border.h"
#include "metric_catalogue.h"
#include "metric_selection.h"
#include "patch_columns.h"
#include "patch_records.h"
#include "streamed_distribution.h"
#include "serial_thresholds.h"
#include "window_count_formulas.h"

namespace lsm {
namespace {

const double kNaN = std::nan("");

// The distributions of the class and landscape tables, in FRAGSTATS' column
// order (the families print them in these groups); DCORE's values are the
// disjunct core areas, the others patch columns (patch_columns.h).
const char* const kAreaEdgeDistributions[] = {"AREA", "GYRATE", "SHAPE", "FRAC", "PARA", "CIRCLE", "CONTIG"};
const char* const kCoreDistributions[] = {"CORE", "DCORE", "CAI"};
using families::ClassSums;
using families::RowBuilder;

}  // namespace

// One source with the window formulas, which the GPU evaluates too.
uint64_t min_perimeter_sides(uint64_t a) {
  return static_cast<uint64_t>(window_formulas::min_perimeter(static_cast<int64_t>(a)));
}

uint64_t max_like_adjacencies(uint64_t a) {
  return static_cast<uint64_t>(window_formulas::max_like(static_cast<int64_t>(a)));
}

Distribution distribution(const std::vector<double>& v, const std::vector<double>& w) {
  if (v.empty()) return {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  const double n = static_cast<double>(v.size());
  const double mn = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double wsum = 0, wv = 0, ss = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    wsum += w[i];
    wv += w[i] * v[i];
    ss += (v[i] - mn) * (v[i] - mn);
  }
  // The median by selection, not a full sort: a million patches' values took
  // longer to sort than to label.
  std::vector<double> part = v;
  const size_t h = part.size() / 2;
  std::nth_element(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(h), part.end());
  const double upper = part[h];
  const double md = part.size() % 2 ? upper : (*std::max_element(part.begin(), part.begin() + h) + upper) / 2;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double sd = std::sqrt(ss / n);  // FRAGSTATS: population SD
  return {mn, wsum > 0 ? wv / wsum : kNaN, md, *hi - *lo, sd, mn != 0 ? sd / mn * 100 : kNaN};
}

FragstatsMetrics compute_fragstats_metrics(const PatchTable& table, const PatchRowResults& rows,
                                           const MetricOptions& options, const PatchRowSink& sink) {
  if (!(options.boundary_edge >= 0 && options.boundary_edge <= 1))
    throw Error(ErrorKind::BadInput, "boundary edge proportion must be between 0 and 1");
  const RasterInfo& r = table.raster;
  const CellGeometry geometry(r);
  const bool geodesic = geometry.geodesic();
  if (!rows.second_pass && (geodesic || !options.background.empty()))
    throw Error(ErrorKind::Internal, "metrics of geographic rasters or with a background need the second pass");
  const double cw = r.cell_width, ch = r.cell_height;
  // A patch's size: its cell count, or for geographic rasters its area in m2
  // on the ellipsoid. Areas in ha are size x unit / 10000: for projected
  // rasters cells x cell area, exact for whole-hectare totals (9 x 900 m2 = 0.81 ha).
  const double unit_m2 = geodesic ? 1 : cw * ch;
  auto ha = [unit_m2](double size) { return size * unit_m2 / 10000; };
  // Patch i's size (record p), as above.
  auto size_of = [&](size_t i, const PatchStats& p) {
    return geodesic ? rows.geodesic[i].area_m2 : static_cast<double>(p.cells);
  };
  // Perimeter and the part of it on the landscape boundary (raster edge, nodata), in m.
  auto perim_m = [&](size_t i, const PatchStats& p) {
    return geodesic ? rows.geodesic[i].perim_m
                    : static_cast<double>(p.perim_edges_h) * cw + static_cast<double>(p.perim_edges_v) * ch;
  };
  auto boundary_m = [&](size_t i, const PatchStats& p) {
    return geodesic ? rows.geodesic[i].boundary_m
                    : static_cast<double>(p.perim_edges_h - p.class_edges_h) * cw +
                          static_cast<double>(p.perim_edges_v - p.class_edges_v) * ch;
  };
  const ClassAdjacency& adj = rows.adjacency;
  const std::vector<int32_t>& codes = adj.class_codes;
  const size_t kc = codes.size();
  auto is_background = [&](int32_t code) { return options.background.count(code) > 0; };
  auto class_index = [&](int32_t code) {
    return static_cast<size_t>(std::lower_bound(codes.begin(), codes.end(), code) - codes.begin());
  };

  // Landscape totals (background cells included: they are inside the landscape).
  uint64_t z = 0, landscape_boundary_sides = 0;
  double total = 0;  // landscape size (cells or m2, as `size`)
  // Patch records are read a block at a time: they may be on a scratch file (patch_records.h).
  constexpr size_t kBlock = size_t(1) << 16;
  for_each_patch_block(table, kBlock, [&](size_t first, const PatchStats* records, size_t count) {
    for (size_t j = 0; j < count; ++j) {
      const PatchStats& p = records[j];
      z += p.cells;
      total += size_of(first + j, p);
      landscape_boundary_sides += (p.perim_edges_h - p.class_edges_h) + (p.perim_edges_v - p.class_edges_v);
    }
  });
  const double ta = ha(total);

  // ---- Patch level, and each class's sums ----
  // Patches are computed a block at a time (in parallel), handed to `sink`
  // (or kept in out.patch) in PID order, added to their class's sums and
  // their distributed values to `columns` (a scratch file): memory does not
  // grow with the number of patches. Each sum adds its class's patches in
  // PID order, whatever the block size.
  FragstatsMetrics out;
  out.patch.columns = patch_metric_columns();  // the catalogue's order
  const PatchShape records_only{};  // without the second pass: zeros, and those columns become NaN below
  std::vector<size_t> second_pass_columns;  // patch columns that are NaN without the second pass
  if (!rows.second_pass)
    for (size_t c = 0; c < out.patch.columns.size(); ++c)
      if (!from_patch_records(out.patch.columns[c])) second_pass_columns.push_back(c);
  // A patch's columns, by the formulas of its catalogue columns (patch_columns.h).
  const std::vector<PatchFormula>& formulas = patch_column_formulas();
  const size_t n_columns = formulas.size();
  auto patch_values = [&](size_t i, const PatchStats& p, double* values) {
    PatchInputs in;
    in.record = &p;
    in.shape = rows.second_pass ? &rows.patches[i] : &records_only;
    in.geodesic = geodesic ? &rows.geodesic[i] : nullptr;
    in.contrast = rows.contrast.empty() ? nullptr : &rows.contrast[i];
    in.proximity = rows.proximity.empty() ? nullptr : &rows.proximity[i];
    in.similarity = rows.similarity.empty() ? nullptr : &rows.similarity[i];
    in.cell_width = cw;
    in.cell_height = ch;
    in.size = size_of(i, p);
    in.unit_m2 = unit_m2;
    for (size_t c = 0; c < n_columns; ++c) values[c] = formulas[c](in);
  };
  const size_t kArea = patch_column("AREA"), kPerim = patch_column("PERIM"), kCore = patch_column("CORE"),
               kNcore = patch_column("NCORE");

  std::vector<ClassSums> sums(kc);
  auto wanted = [&](const std::string& column) { return !options.wanted || options.wanted(column); };
  auto distribution_wanted = [&](const std::string& metric) {
    for (const std::string& stat : distribution_statistics())
      if (wanted(metric + "_" + stat)) return true;
    return false;
  };
  // The per-patch values the distributions and PAFRAC read back, per class,
  // one column per patch column; only those something will read are stored
  // (AREA: the weights of every distribution; PERIM: PAFRAC's).
  std::vector<bool> kept(n_columns, false);
  const std::vector<std::string> column_names = patch_metric_columns();
  for (size_t c = 0; c < n_columns; ++c) {
    const MetricInfo* m = find_metric(column_names[c]);
    kept[c] = m && m->distributed && distribution_wanted(column_names[c]);
  }
  // N/A without their table or distance: no distribution reads them.
  if (rows.contrast.empty()) kept[patch_column("ECON")] = false;
  if (rows.proximity.empty()) kept[patch_column("PROX")] = false;
  if (rows.similarity.empty()) kept[patch_column("SIMI")] = false;
  kept[kPerim] = wanted("PAFRAC");
  kept[kArea] = std::find(kept.begin(), kept.end(), true) != kept.end();
  ClassValueColumns columns(kc, n_columns, options.temp_dir, options.memory_limit / 8, kept);
  std::vector<double> block;  // n x n_columns values of a block of patches
  constexpr size_t kNoRow = SIZE_MAX;
  std::vector<size_t> row_of;  // each patch's row in the batch, kNoRow for background
  MetricTable batch;
  batch.columns = out.patch.columns;
  for_each_patch_block(table, kBlock, [&](size_t first, const PatchStats* records, size_t n) {
    const int64_t count = static_cast<int64_t>(n);
    block.resize(n * n_columns);
#pragma omp parallel for schedule(static) if (count > kSerialRows)
    for (int64_t j = 0; j < count; ++j)
      patch_values(first + static_cast<size_t>(j), records[j], &block[static_cast<size_t>(j) * n_columns]);
    // The block's rows (background patches have none), filled on the cores;
    // the batch's rows are reused block after block, their values' memory too.
    row_of.resize(n);
    size_t rows_used = 0;
    for (size_t j = 0; j < n; ++j) row_of[j] = is_background(records[j].class_code) ? kNoRow : rows_used++;
    if (batch.rows.size() < rows_used) batch.rows.resize(rows_used);
#pragma omp parallel for schedule(static) if (count > kSerialRows)
    for (int64_t j = 0; j < count; ++j) {
      if (row_of[static_cast<size_t>(j)] == kNoRow) continue;
      MetricTable::Row& row = batch.rows[row_of[static_cast<size_t>(j)]];
      const double* v = &block[static_cast<size_t>(j) * n_columns];
      row.type = records[j].class_code;
      row.pid = static_cast<uint32_t>(first + static_cast<size_t>(j) + 1);
      row.values.assign(v, v + n_columns);
      for (size_t c : second_pass_columns) row.values[c] = kNaN;
    }
    // The class sums and value columns in PID order: their sums' bits depend on it.
    for (int64_t j = 0; j < count; ++j) {
      const size_t i = first + static_cast<size_t>(j);
      const PatchStats& p = records[j];
      const double* v = &block[static_cast<size_t>(j) * n_columns];
      const size_t k = class_index(p.class_code);
      ClassSums& c = sums[k];
      const uint64_t perim = p.perim_edges_h + p.perim_edges_v;
      const double size = size_of(i, p);
      ++c.patches;
      c.cells += p.cells;
      c.perim_sides += perim;
      c.boundary_sides += (p.perim_edges_h - p.class_edges_h) + (p.perim_edges_v - p.class_edges_v);
      c.size += size;
      c.largest = std::max(c.largest, size);
      c.edge_m += geodesic ? perim_m(i, p) - boundary_m(i, p)
                           : static_cast<double>(p.class_edges_h) * cw + static_cast<double>(p.class_edges_v) * ch;
      c.boundary_m += boundary_m(i, p);
      c.core_ha += v[kCore];
      c.ncore += v[kNcore];
      c.sp += static_cast<double>(perim);
      c.spa += static_cast<double>(perim) * std::sqrt(static_cast<double>(p.cells));
      c.sa2 += size * size;
      columns.add(k, v);
    }
    batch.rows.resize(rows_used);
    if (sink) {
      sink(batch);
    } else {  // kept: moved on the cores (the next block's rows get new memory)
      const size_t at = out.patch.rows.size();
      out.patch.rows.resize(at + rows_used);
#pragma omp parallel for schedule(static) if (rows_used > static_cast<size_t>(kSerialRows))
      for (int64_t r = 0; r < static_cast<int64_t>(rows_used); ++r)
        out.patch.rows[at + static_cast<size_t>(r)] = std::move(batch.rows[static_cast<size_t>(r)]);
    }
    release_paged_memory();  // the second pass's results, when on scratch files, are read once in this order
  });
  columns.finish_adding();  // the distributions below replay the columns on several threads
  if (rows.core_areas) rows.core_areas->finish_adding();
  std::vector<size_t> classes;  // class indices that are classes (not background)
  for (size_t k = 0; k < kc; ++k)
    if (!is_background(codes[k])) classes.push_back(k);
  const double m_classes = static_cast<double>(classes.size());

  const Distribution not_computed{kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  // Up to this many values of one distribution are gathered in memory (16
  // bytes each, values and weights); more are computed in passes over the
  // scratch file (streamed_distribution.h). Either gives the same numbers.
  const uint64_t max_gathered = std::max<uint64_t>(1, options.memory_limit / 4 / 16);
  // The values of column m (with AREA as weights) of the patches of `ids`
  // (class indices), class by class, each in PID order.
  auto replay = [&](const std::vector<size_t>& ids, size_t m) -> PairReplay {
    return [&columns, &ids, m, kArea](const std::function<void(double, double)>& fn) {
      for (size_t k : ids) columns.for_each(k, m, kArea, fn);
    };
  };
  // DCORE: the disjunct core areas of the classes `ids` (ha; weights the areas themselves).
  auto dcore_replay = [&](const std::vector<size_t>& ids) -> PairReplay {
    return [&rows, &ids, geodesic, ha](const std::function<void(double, double)>& fn) {
      for (size_t k : ids)
        rows.core_areas->for_each(k, geodesic ? 1 : 0, geodesic ? 1 : 0, [&](double v, double) {
          const double area_ha = geodesic ? v / 10000 : ha(v);
          fn(area_ha, area_ha);
        });
    };
  };
  auto distributions = [&](RowBuilder& b, const std::vector<size_t>& ids, bool area_edge_part) {
    auto one = [&](const std::string& metric) {
      if (!distribution_wanted(metric)) return not_computed;
      if (metric == "DCORE")  // the disjunct core areas, not a patch column
        return rows.core_areas ? streamed_distribution(dcore_replay(ids), false, max_gathered) : not_computed;
      return streamed_distribution(replay(ids, patch_column(metric)), false, max_gathered);
    };
    const char* const* metrics = area_edge_part ? std::begin(kAreaEdgeDistributions) : std::begin(kCoreDistributions);
    const int64_t n = area_edge_part ? std::size(kAreaEdgeDistributions) : std::size(kCoreDistributions);
    uint64_t patches = 0;
    for (size_t k : ids) patches += sums[k].patches;
    // Each metric's statistics replay its own column: side by side on the
    // cores (a landscape of millions of patches spent a second here on one),
    // added in the families' order.
    std::vector<Distribution> found(static_cast<size_t>(n), not_computed);
    std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) if (patches > static_cast<uint64_t>(kSerialRows))
    for (int64_t i = 0; i < n; ++i) {
      try {
        found[static_cast<size_t>(i)] = one(metrics[i]);
      } catch (...) {
#pragma omp critical(lsm_distribution_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    for (int64_t i = 0; i < n; ++i) b.add_distribution(metrics[i], found[static_cast<size_t>(i)]);
  };
  // ENN, ECON, PROX, SIMI: over the patches with a value (a patch alone in its
  // class has no ENN); N/A where the column was not kept (not wanted, or no
  // table or distance).
  auto patch_distribution = [&](RowBuilder& b, const std::string& metric, const std::vector<size_t>& ids) {
    const size_t column = patch_column(metric);
    b.add_distribution(metric, kept[column] ? streamed_distribution(replay(ids, column), true, max_gathered)
                                            : not_computed);
  };
  // PAFRAC: 2 / slope of ln(area m2) regressed on ln(perimeter m); undefined under 10 patches.
  auto pafrac = [&](const std::vector<size_t>& ids) {
    uint64_t patches = 0;
    for (size_t k : ids) patches += sums[k].patches;
    if (patches < 10 || !wanted("PAFRAC")) return kNaN;
    double sx = 0, sy = 0;
    for (size_t k : ids)
      columns.for_each(k, kPerim, kArea, [&](double perim, double area) {
        sx += std::log(perim);
        sy += std::log(area * 10000);
      });
    const double n = static_cast<double>(patches), mx = sx / n, my = sy / n;
    double sxy = 0, sxx = 0;
    for (size_t k : ids)
      columns.for_each(k, kPerim, kArea, [&](double perim, double area) {
        const double dx = std::log(perim) - mx, dy = std::log(area * 10000) - my;
        sxy += dx * dy;
        sxx += dx * dx;
      });
    return sxx > 0 && sxy != 0 ? 2 / (sxy / sxx) : kNaN;
  };

  // ---- Class and landscape levels: the families (families/metric_families.h) ----
  families::LevelContext level;
  level.options = &options;
  level.adjacency = &adj;
  level.sums = &sums;
  level.classes = classes;
  level.m_classes = m_classes;
  level.total = total;
  level.ta = ta;
  level.z = z;
  level.class_total = total;  // the same sum, in the same order, where nothing is background
  level.class_cells = z;
  if (classes.size() < kc) {
    level.class_total = 0;
    level.class_cells = 0;
    for (size_t k : classes) {
      level.class_total += sums[k].size;
      level.class_cells += sums[k].cells;
    }
  }
  level.landscape_boundary_sides = landscape_boundary_sides;
  level.cw = cw;
  level.ch = ch;
  level.unit_m2 = unit_m2;
  level.background.resize(kc);
  for (size_t k = 0; k < kc; ++k) level.background[k] = is_background(codes[k]);
  if (options.contrast) {  // every edge needs its weight: a class the table lacks is the user's to fix
    std::vector<int32_t> listed(codes.begin(), codes.end());
    if (options.border)  // the border's classes weigh the boundary beside it
      for (int32_t b : options.border->classes()) listed.push_back(b);
    check_contrast_classes(*options.contrast, listed);
    boundary_class(*options.contrast, std::vector<int32_t>(options.background.begin(), options.background.end()));
  }
  level.joinings = rows.joinings.empty() ? nullptr : &rows.joinings;
  level.distributions = distributions;
  level.patch_distribution = patch_distribution;
  level.pafrac = pafrac;
  for (size_t k : classes) {
    RowBuilder b;
    families::add_class_area_edge(b, level, k);
    families::add_class_shape(b, level, k);
    families::add_class_core_area(b, level, k);
    families::add_class_contrast(b, level, k);
    families::add_class_isolation(b, level, k);
    families::add_class_aggregation(b, level, k);
    if (out.cls.columns.empty()) out.cls.columns = b.names;
    out.cls.rows.push_back({codes[k], 0, b.values});
  }
  if (out.cls.columns.empty()) {  // no class: the header still lists every metric
    RowBuilder b;
    for (const char* n : {"CA", "PLAND", "NP", "PD", "LPI", "TE", "ED", "LSI"}) b.add(n, 0);
    out.cls.columns = b.names;
  }
  RowBuilder b;
  families::add_landscape_area_edge(b, level);
  families::add_landscape_shape(b, level);
  families::add_landscape_core_area(b, level);
  families::add_landscape_contrast(b, level);
  families::add_landscape_isolation(b, level);
  families::add_landscape_aggregation(b, level);
  families::add_landscape_diversity(b, level);
  families::add_landscape_ai(b, level);
  families::add_landscape_information(b, level);
  out.land.columns = b.names;
  out.land.rows.push_back({0, 0, b.values});
  if (!rows.second_pass)
    for (MetricTable* t : {&out.cls, &out.land}) {
      std::vector<size_t> missing;
      for (size_t i = 0; i < t->columns.size(); ++i)
        if (!from_patch_records(t->columns[i])) missing.push_back(i);
#pragma omp parallel for schedule(static) if (t->rows.size() > size_t(kSerialRows))
      for (int64_t r = 0; r < static_cast<int64_t>(t->rows.size()); ++r)
        for (size_t i : missing) t->rows[static_cast<size_t>(r)].values[i] = kNaN;
    }
  return out;
}

}  // namespace lsm
