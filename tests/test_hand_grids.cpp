// Hand-made grids with answers worked out by hand (see the comments).
#include "fragstats_metrics.h"
#include "patch_row_metrics.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// The tables of the product's area/edge path: lsm metrics with only the
// scan's records (no second pass).
FragstatsMetrics tables(const PatchTable& t) {
  return compute_fragstats_metrics(t, records_only_row_results(t), MetricOptions{});
}

// Column `column` of row `row` of `table`.
double at(const MetricTable& table, size_t row, const std::string& column) {
  const auto c = std::find(table.columns.begin(), table.columns.end(), column);
  EXPECT_NE(c, table.columns.end()) << column;
  return table.rows.at(row).values.at(static_cast<size_t>(c - table.columns.begin()));
}

PatchStats stats(int32_t cls, uint64_t first, uint64_t cells, uint64_t ph, uint64_t pv, uint64_t ch, uint64_t cv) {
  PatchStats p;
  p.class_code = cls;
  p.first_cell = first;
  p.cells = cells;
  p.perim_edges_h = ph;
  p.perim_edges_v = pv;
  p.class_edges_h = ch;
  p.class_edges_v = cv;
  return p;
}

// The area/edge counts of a record, without the coordinate sums and the
// bounding box (checked separately).
PatchStats area_edge(PatchStats p) {
  const PatchStats empty;
  p.sum_col = p.sum_row = 0;
  p.col_min = empty.col_min;
  p.col_max = empty.col_max;
  p.row_min = empty.row_min;
  p.row_max = empty.row_max;
  return p;
}

// 1 1 2
// 1 2 2
// 3 3 2
// Class 1: 3 cells, sides not bordering class 1: top 1 (raster), (0,1) top+bottom,
// (1,0) bottom -> 4 horizontal (2 to other classes); left 2 (raster), right of (0,1)
// and (1,0) -> 4 vertical (2 to other classes).
TEST(HandGrids, ThreeClassesKnownCounts) {
  auto g = grid({"112", "122", "332"});
  for (NeighbourRule rule : {NeighbourRule::Eight, NeighbourRule::Four}) {
    const PatchTable t = scan(g, rule);
    ASSERT_EQ(t.patches.size(), 3u);
    EXPECT_EQ(area_edge(t.patches[0]), stats(1, 0, 3, 4, 4, 2, 2));
    EXPECT_EQ(area_edge(t.patches[1]), stats(2, 2, 4, 4, 6, 2, 3));
    EXPECT_EQ(area_edge(t.patches[2]), stats(3, 6, 2, 4, 2, 2, 1));
    // Coordinate sums (for centroids): class 1 at (0,0),(1,0),(0,1); class 3 at (0,2),(1,2).
    EXPECT_EQ(t.patches[0].sum_col, 1u);
    EXPECT_EQ(t.patches[0].sum_row, 1u);
    EXPECT_EQ(t.patches[2].sum_col, 1u);
    EXPECT_EQ(t.patches[2].sum_row, 4u);
    // Bounding boxes: class 2 spans columns 1-2, rows 0-2; class 3 columns 0-1, row 2.
    EXPECT_EQ(t.patches[1].col_min, 1u);
    EXPECT_EQ(t.patches[1].col_max, 2u);
    EXPECT_EQ(t.patches[1].row_min, 0u);
    EXPECT_EQ(t.patches[1].row_max, 2u);
    EXPECT_EQ(t.patches[2].col_min, 0u);
    EXPECT_EQ(t.patches[2].col_max, 1u);
    EXPECT_EQ(t.patches[2].row_min, 2u);
    EXPECT_EQ(t.patches[2].row_max, 2u);
    const FragstatsMetrics m = tables(t);
    EXPECT_DOUBLE_EQ(at(m.land, 0, "TE"), 6.0);  // 1|2 three sides, 1|3 one, 2|3 two
    EXPECT_DOUBLE_EQ(at(m.cls, 0, "TE"), 4.0);
    EXPECT_DOUBLE_EQ(at(m.cls, 1, "TE"), 5.0);
    EXPECT_DOUBLE_EQ(at(m.cls, 2, "TE"), 3.0);
  }
}

// Diagonal cells join under the 8-cell rule only.
TEST(HandGrids, FourVersusEightRule) {
  auto g = grid({"12", "21"});
  const PatchTable eight = scan(g, NeighbourRule::Eight);
  ASSERT_EQ(eight.patches.size(), 2u);
  EXPECT_EQ(area_edge(eight.patches[0]), stats(1, 0, 2, 4, 4, 2, 2));
  EXPECT_EQ(area_edge(eight.patches[1]), stats(2, 1, 2, 4, 4, 2, 2));
  const PatchTable four = scan(g, NeighbourRule::Four);
  ASSERT_EQ(four.patches.size(), 4u);
  for (const PatchStats& p : four.patches) EXPECT_EQ(p.cells, 1u);
  EXPECT_EQ(area_edge(four.patches[3]), stats(1, 3, 1, 2, 2, 1, 1));
}

// . 1 1
// 1 . 1
// 1 1 .     (10 m cells)
// 8-cell rule: one patch through the corner (0,1)-(1,0); 4-cell rule: two.
// Perimeter sides: nodata and the raster's edge count, 16 sides = 160 m;
// there is no edge between two classes, so TE = 0.
TEST(HandGrids, NodataHolesAndBorders) {
  auto g = grid({".11", "1.1", "11."}, 10.0);
  const PatchTable eight = scan(g, NeighbourRule::Eight);
  ASSERT_EQ(eight.patches.size(), 1u);
  EXPECT_EQ(eight.patches[0].cells, 6u);
  EXPECT_DOUBLE_EQ(at(tables(eight).patch, 0, "PERIM"), 160.0);
  EXPECT_DOUBLE_EQ(at(tables(eight).patch, 0, "AREA"), 0.06);
  const FragstatsMetrics m = tables(eight);
  EXPECT_DOUBLE_EQ(at(m.land, 0, "TA"), 0.06);
  EXPECT_DOUBLE_EQ(at(m.land, 0, "TE"), 0.0);
  EXPECT_DOUBLE_EQ(at(m.land, 0, "LPI"), 100.0);
  EXPECT_NEAR(at(m.land, 0, "PD"), 100.0 / 0.06, 1e-9);

  const PatchTable four = scan(g, NeighbourRule::Four);
  ASSERT_EQ(four.patches.size(), 2u);
  EXPECT_EQ(area_edge(four.patches[0]), stats(1, 1, 3, 4, 4, 0, 0));  // (0,1),(0,2),(1,2)
  EXPECT_EQ(area_edge(four.patches[1]), stats(1, 3, 3, 4, 4, 0, 0));  // (1,0),(2,0),(2,1)
}

TEST(HandGrids, OneCellPatch) {
  auto g = grid({"111", "121", "111"}, 2.0);
  const PatchTable t = scan(g, NeighbourRule::Eight);
  ASSERT_EQ(t.patches.size(), 2u);
  EXPECT_EQ(area_edge(t.patches[1]), stats(2, 4, 1, 2, 2, 2, 2));
  EXPECT_DOUBLE_EQ(at(tables(t).patch, 1, "PERIM"), 8.0);
  // The ring: 12 outer sides on the raster edge plus 4 inner sides.
  EXPECT_EQ(area_edge(t.patches[0]), stats(1, 0, 8, 8, 8, 2, 2));
}

// 4 x 4 checkerboard: two patches under the 8-cell rule, sixteen under the
// 4-cell rule; 24 class edges inside (12 across rows, 12 across columns).
TEST(HandGrids, Checkerboard) {
  auto g = grid({"1212", "2121", "1212", "2121"});
  const PatchTable eight = scan(g, NeighbourRule::Eight);
  ASSERT_EQ(eight.patches.size(), 2u);
  EXPECT_EQ(eight.patches[0].cells, 8u);
  EXPECT_EQ(eight.patches[0].perim_edges_h + eight.patches[0].perim_edges_v, 32u);
  EXPECT_EQ(scan(g, NeighbourRule::Four).patches.size(), 16u);
  const FragstatsMetrics m = tables(eight);
  EXPECT_DOUBLE_EQ(at(m.land, 0, "TE"), 24.0);
  EXPECT_DOUBLE_EQ(at(m.cls, 0, "TE"), 24.0);
  for (int64_t tile : {1, 2, 3}) EXPECT_EQ(scan(g, NeighbourRule::Eight, tile, tile).patches, eight.patches);
}

// A U whose arms meet only in the last row: the arms are separate fragments
// in every tile above and must merge when the bottom row arrives.
TEST(HandGrids, UShapeAcrossSeams) {
  auto g = grid({"1001", "1001", "1001", "1111"});
  const PatchTable whole = scan(g, NeighbourRule::Four);
  ASSERT_EQ(whole.patches.size(), 2u);
  EXPECT_EQ(whole.patches[0].cells, 10u);
  EXPECT_EQ(whole.patches[1].cells, 6u);
  for (auto [tw, th] : {std::pair{1, 1}, {2, 2}, {3, 1}, {1, 3}, {4, 1}, {2, 3}}) {
    EXPECT_EQ(scan(g, NeighbourRule::Four, tw, th).patches, whole.patches) << tw << "x" << th;
    EXPECT_EQ(patch_ids(g, NeighbourRule::Four, tw, th), brute_force(g, NeighbourRule::Four).labels);
  }
}

// A spiral corridor of class 1 in class 2: one long patch crossing every seam.
TEST(HandGrids, SpiralAcrossSeams) {
  auto g = grid({"1111111",
                 "2222221",
                 "1111121",
                 "1222121",
                 "1211121",
                 "1222221",
                 "1111111"});
  const Reference ref = brute_force(g, NeighbourRule::Four);
  const PatchTable whole = scan(g, NeighbourRule::Four);
  ASSERT_EQ(whole.patches.size(), ref.patches.size());
  EXPECT_EQ(whole.patches, ref.patches);
  EXPECT_EQ(whole.patches[0].cells, 31u);  // 7+1+6+3+5+2+7 cells of class 1
  for (int64_t tile : {1, 2, 3, 4}) {
    EXPECT_EQ(scan(g, NeighbourRule::Four, tile, tile).patches, ref.patches) << "tile " << tile;
    EXPECT_EQ(scan(g, NeighbourRule::Eight, tile, tile).patches, brute_force(g, NeighbourRule::Eight).patches);
    EXPECT_EQ(patch_ids(g, NeighbourRule::Four, tile, tile), ref.labels);
  }
}

TEST(HandGrids, OneRowAndOneColumnRasters) {
  auto row = grid({"1122.211"});
  const PatchTable r = scan(row, NeighbourRule::Eight);
  ASSERT_EQ(r.patches.size(), 4u);
  EXPECT_EQ(area_edge(r.patches[0]), stats(1, 0, 2, 4, 2, 0, 1));
  EXPECT_EQ(area_edge(r.patches[1]), stats(2, 2, 2, 4, 2, 0, 1));
  EXPECT_EQ(area_edge(r.patches[2]), stats(2, 5, 1, 2, 2, 0, 1));  // nodata on its left
  EXPECT_EQ(area_edge(r.patches[3]), stats(1, 6, 2, 4, 2, 0, 1));
  for (int64_t tile : {1, 2, 3}) EXPECT_EQ(scan(row, NeighbourRule::Eight, tile, 1).patches, r.patches);

  auto column = grid({"1", "1", "2", "2", ".", "2", "1", "1"});
  const PatchTable c = scan(column, NeighbourRule::Eight);
  ASSERT_EQ(c.patches.size(), 4u);
  EXPECT_EQ(area_edge(c.patches[0]), stats(1, 0, 2, 2, 4, 1, 0));
  EXPECT_EQ(area_edge(c.patches[2]), stats(2, 5, 1, 2, 2, 1, 0));
  for (int64_t tile : {1, 2, 3}) EXPECT_EQ(scan(column, NeighbourRule::Eight, 1, tile).patches, c.patches);
}

TEST(HandGrids, AllNodata) {
  auto g = grid({"...", "..."});
  const PatchTable t = scan(g, NeighbourRule::Eight);
  EXPECT_TRUE(t.patches.empty());
  const FragstatsMetrics m = tables(t);
  EXPECT_EQ(at(m.land, 0, "NP"), 0.0);
  EXPECT_EQ(at(m.land, 0, "TA"), 0.0);
  EXPECT_EQ(patch_ids(g, NeighbourRule::Eight, 2, 1), std::vector<uint32_t>(6, 0));
}

}  // namespace
}  // namespace lsm::test
