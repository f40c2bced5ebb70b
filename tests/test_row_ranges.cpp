// The first pass in row ranges (row_ranges.h): the ranges' summaries,
// through their bytes and merged in row order, give scan_patches()'
// PatchTable bit for bit — records, PIDs and fragment links (the patch-ID
// raster written from the merged table is the brute force's) — for 1 to 5
// ranges, both neighbour rules, adversarial grids (a spiral and a U
// crossing every range border, one patch spanning every range, a range of
// nodata alone, more ranges than tile rows), and the landscape job with the
// ranges as its scan gives the one-process tables.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "metric_table_checks.h"
#include "row_ranges.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// The scan in `ranks` row ranges, each summary through its bytes, merged.
PatchTable scan_in_ranges(ClassRasterSource& source, TileLabeler& labeler, const ScanOptions& options, int ranks) {
  const TileGrid grid = plan_tiles(source.info(), options.tile_width, options.tile_height, options.max_strip_cells);
  std::vector<RowRangeSummary> summaries;
  for (const auto& [first, end] : tile_row_ranges(grid, ranks))
    summaries.push_back(deserialize_summary(
        serialize_summary(scan_row_range(source, labeler, options, grid, first, end))));
  return merge_row_ranges(source.info(), options.rule, grid, std::move(summaries));
}

// A spiral of class 1 in class 2, one cell wide, winding to the centre.
MemoryClassRaster spiral(int64_t n) {
  std::vector<int32_t> c(static_cast<size_t>(n * n), 2);
  int64_t top = 0, left = 0, bottom = n - 1, right = n - 1;
  while (top <= bottom && left <= right) {
    for (int64_t x = left; x <= right; ++x) c[static_cast<size_t>(top * n + x)] = 1;
    for (int64_t y = top; y <= bottom; ++y) c[static_cast<size_t>(y * n + right)] = 1;
    if (bottom > top + 1)
      for (int64_t x = left; x <= right; ++x) c[static_cast<size_t>(bottom * n + x)] = 1;
    if (right > left + 1 && bottom - 2 >= top + 2)
      for (int64_t y = top + 2; y <= bottom; ++y) c[static_cast<size_t>(y * n + left)] = 1;
    top += 2;
    left += 2;
    bottom -= 2;
    right -= 2;
  }
  return MemoryClassRaster(n, n, c, 10, 10);
}

// A U of class 3 whose arms cross every range border and join at the bottom,
// nodata rows in the middle of one range, the rest random.
MemoryClassRaster u_shape(int64_t w, int64_t h) {
  std::vector<int32_t> c = random_landscape(w, h, 2, 5, 0.05).cells();
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      int32_t& v = c[static_cast<size_t>(y * w + x)];
      if (x == 3 || x == w - 4 || (y == h - 2 && x >= 3 && x <= w - 4)) v = 3;
      else if (v == 3) v = 1;
    }
  return MemoryClassRaster(w, h, c, 10, 10);
}

void expect_same_scan(MemoryClassRaster& raster, NeighbourRule rule, int64_t tile, const std::string& what) {
  auto labeler = make_labeler(Backend::Cpu);
  ScanOptions o;
  o.rule = rule;
  o.tile_width = 16;
  o.tile_height = tile;
  o.keep_patch_ids = true;
  const PatchTable one = scan_patches(raster, *labeler, o);
  const Reference ref = brute_force(raster, rule);
  for (int ranks = 1; ranks <= 5; ++ranks) {
    SCOPED_TRACE(what + ", " + std::to_string(ranks) + " ranges");
    const PatchTable merged = scan_in_ranges(raster, *labeler, o, ranks);
    EXPECT_EQ(merged.patches, one.patches);
    EXPECT_EQ(merged.patches, ref.patches);
    EXPECT_EQ(merged.tile_fragment_base, one.tile_fragment_base);
    ASSERT_EQ(merged.fragment_pid.size(), one.fragment_pid.size());
    EXPECT_TRUE(std::equal(merged.fragment_pid.begin(), merged.fragment_pid.end(), one.fragment_pid.begin()));
    MemoryLabelRaster ids(raster.info().width, raster.info().height);
    write_patch_ids(raster, *labeler, merged, ids);
    EXPECT_EQ(ids.labels(), ref.labels);
  }
}

TEST(RowRanges, MergedSummariesAreTheOneProcessScan) {
  for (const NeighbourRule rule : {NeighbourRule::Eight, NeighbourRule::Four}) {
    const std::string r = rule == NeighbourRule::Eight ? "8 cells" : "4 cells";
    MemoryClassRaster random = random_landscape(61, 47, 5, 3, 0.08);
    expect_same_scan(random, rule, 5, "random, " + r);
    MemoryClassRaster s = spiral(41);
    expect_same_scan(s, rule, 4, "spiral, " + r);
    MemoryClassRaster u = u_shape(37, 45);
    expect_same_scan(u, rule, 6, "U, " + r);
    // One patch over every range, a range of nodata alone (rows 12..17 with
    // tiles of 6 rows), two tile rows for up to five ranges.
    std::vector<int32_t> one(40 * 30, 7);
    for (int64_t y = 12; y < 18; ++y)
      for (int64_t x = 0; x < 40; ++x) one[static_cast<size_t>(y * 40 + x)] = x == 20 ? 7 : kNoClass;
    MemoryClassRaster spanning(40, 30, one, 10, 10);
    expect_same_scan(spanning, rule, 6, "one patch, " + r);
    expect_same_scan(spanning, rule, 15, "two tile rows, " + r);
  }
}

// A failed range's message travels; bytes that are no summary are refused.
TEST(RowRanges, SummaryBytes) {
  EXPECT_THROW(deserialize_summary({1, 2, 3}), Error);
  RowRangeSummary s;
  s.error = "rank 2: cannot read";
  EXPECT_EQ(deserialize_summary(serialize_summary(s)).error, "rank 2: cannot read");
}

// The landscape job with its first pass in ranges: the one-process tables,
// to the bit, second pass and all.
TEST(RowRanges, LandscapeJobInRangesGivesTheOneProcessTables) {
  MemoryClassRaster raster = random_landscape(90, 70, 4, 21, 0.05);
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  o.tile_width = 32;
  o.tile_height = 8;
  o.background = {4};
  const FragstatsMetrics one = run_landscape_job(raster, o).metrics;
  for (int ranks : {2, 3, 7}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranges");
    o.scan = [ranks](ClassRasterSource& source, TileLabeler& labeler, const ScanOptions& options, const ProgressFn&) {
      return scan_in_ranges(source, labeler, options, ranks);
    };
    expect_same_tables(run_landscape_job(raster, o).metrics, one);
  }
}

}  // namespace
}  // namespace lsm::test
