// The CSV tables: layouts, units, full precision, undefined values, selection.
#include <cmath>
#include <sstream>

#include "csv_fields.h"
#include "error.h"
#include "fragstats_tables.h"
#include "metric_selection.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// Class names with commas and quotes survive a write and a read back.
TEST(Tables, CsvFieldsQuoteAndSplitBack) {
  const std::vector<std::string> fields = {"2", "Grass, dry", "say \"hi\"", "", "plain"};
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + quote_csv_field(fields[i]);
  EXPECT_EQ(line, "2,\"Grass, dry\",\"say \"\"hi\"\"\",,plain");
  EXPECT_EQ(split_csv_line(line), fields);
  EXPECT_EQ(split_csv_line("a,,"), (std::vector<std::string>{"a", "", ""}));
}

TEST(Tables, FullPrecisionRoundTrips) {
  for (double v : {0.09, 37.44, 1.0 / 3.0, 63.842738281931, 5485470.0, 1e-7}) {
    const std::string text = format_value(v);
    EXPECT_EQ(std::stod(text), v) << text;
  }
  EXPECT_EQ(format_value(37.44), "37.44");
  EXPECT_EQ(format_value(5485470.0), "5485470");
  EXPECT_EQ(format_value(std::nan("")), "");  // FRAGSTATS N/A
}

FragstatsMetrics metrics_of(const MemoryClassRaster& g, PatchRowResults* rows_out = nullptr) {
  MemoryClassRaster copy = g;  // sources are read through a non-const interface
  auto labeler = make_cpu_labeler();
  ScanOptions o;
  o.keep_patch_ids = true;
  const PatchTable t = scan_patches(copy, *labeler, o);
  PatchRowResults rows = compute_patch_row_metrics(copy, *labeler, t, RowMetricOptions{});
  FragstatsMetrics m = compute_fragstats_metrics(t, rows, MetricOptions{});
  if (rows_out) *rows_out = std::move(rows);
  return m;
}

// 30 m cells: one cell = 0.09 ha, one side = 30 m.
TEST(Tables, FragstatsLayoutAndUnits) {
  auto g = grid({"112", "122", "332"}, 30.0);
  PatchRowResults rows;
  const FragstatsMetrics m = metrics_of(g, &rows);
  const MetricSelection sel("CA,NP,TE,TA");
  std::ostringstream patch, cls, land, adj;
  write_table_csv(patch, MetricSelection("AREA,PERIM").apply(m.patch), MetricLevel::Patch);
  write_table_csv(cls, sel.apply(m.cls), MetricLevel::Class);
  write_table_csv(land, sel.apply(m.land), MetricLevel::Landscape);
  write_adjacency_csv(adj, rows.adjacency);
  EXPECT_EQ(patch.str(), "PID,TYPE,AREA,PERIM\n1,1,0.27,240\n2,2,0.36,300\n3,3,0.18,180\n");
  // TE of class 1: 4 sides to other classes = 120 m.
  EXPECT_EQ(cls.str(), "TYPE,CA,NP,TE\n1,0.27,1,120\n2,0.36,1,150\n3,0.18,1,90\n");
  EXPECT_EQ(land.str(), "TA,NP,TE\n0.81,3,180\n");
  // Double count: like 1-1 pairs: 2 (x2); 1-2: (1,0)-(2,0), (1,0)-(1,1), (0,1)-(1,1): 3;
  // 1-3: (0,1)-(0,2): 1; 2-2: 3 pairs (x2); 2-3: (1,1)-(1,2), (2,2)-(1,2): 2; 3-3: 1 pair (x2).
  EXPECT_EQ(adj.str(), "TYPE,1,2,3\n1,4,3,1\n2,3,6,2\n3,1,2,2\n");
}

TEST(Tables, TidyLayout) {
  auto g = grid({"12"}, 10.0);
  const FragstatsMetrics all = metrics_of(g);
  FragstatsMetrics m;
  const MetricSelection sel("NP,SHDI");
  m.patch = MetricSelection("AREA").apply(all.patch);
  m.cls = sel.apply(all.cls);
  m.land = sel.apply(all.land);
  std::ostringstream out;
  write_tidy_csv(out, m, MetricLevels{});
  EXPECT_EQ(out.str(),
            "level,class,id,metric,value\n"
            "patch,1,1,AREA,0.01\npatch,2,2,AREA,0.01\n"
            "class,1,,NP,1\nclass,2,,NP,1\n"
            "landscape,,,NP,2\nlandscape,,,SHDI," + format_value(std::log(2.0)) + "\n");
}

TEST(Tables, SelectionAndLevels) {
  const MetricSelection gyrate("gyrate");
  EXPECT_TRUE(gyrate.selects("GYRATE"));
  EXPECT_TRUE(gyrate.selects("GYRATE_MN"));
  EXPECT_TRUE(gyrate.selects("GYRATE_CV"));
  EXPECT_FALSE(gyrate.selects("AREA"));
  EXPECT_FALSE(gyrate.wants_enn());
  EXPECT_TRUE(MetricSelection("ENN_SD").wants_enn());
  EXPECT_TRUE(MetricSelection().wants_enn());
  EXPECT_THROW(MetricSelection("AREA,NOPE"), Error);
  EXPECT_THROW(MetricSelection(","), Error);
  const MetricLevels l = MetricLevels::parse("class,land");
  EXPECT_FALSE(l.patch);
  EXPECT_TRUE(l.cls && l.land);
  EXPECT_THROW(MetricLevels::parse("patches"), Error);
  EXPECT_THROW(parse_table_format("xml"), Error);
}

// Without a second pass the metrics of the patch records keep their exact
// values and every other metric is missing: a metric wrongly listed in
// from_patch_records() (AI from zero adjacency counts, say) would differ here.
TEST(Tables, RecordsOnlyMetricsEqualTheFullRun) {
  MemoryClassRaster g = random_landscape(97, 61, 5, 7, 0.1);
  const FragstatsMetrics full = metrics_of(g);
  auto labeler = make_cpu_labeler();
  const PatchTable t = scan_patches(g, *labeler, ScanOptions{});
  const PatchRowResults rows = records_only_row_results(t);
  EXPECT_FALSE(rows.second_pass);
  const FragstatsMetrics part = compute_fragstats_metrics(t, rows, MetricOptions{});
  size_t kept = 0, missing = 0;
  for (auto [a, b] : {std::pair{&full.patch, &part.patch}, {&full.cls, &part.cls}, {&full.land, &part.land}}) {
    ASSERT_EQ(a->columns, b->columns);
    ASSERT_EQ(a->rows.size(), b->rows.size());
    for (size_t c = 0; c < a->columns.size(); ++c) {
      const bool records = from_patch_records(a->columns[c]);
      (records ? kept : missing) += 1;
      for (size_t r = 0; r < a->rows.size(); ++r) {
        const double want = a->rows[r].values[c], got = b->rows[r].values[c];
        if (records) EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want))) << a->columns[c];
        else EXPECT_TRUE(std::isnan(got)) << a->columns[c] << " without the second pass";
      }
    }
  }
  // Patch: AREA, PERIM, PARA, SHAPE, FRAC. Class: 8 (CA..LSI) + 24 distributions of AREA, SHAPE,
  // FRAC, PARA + 6 (PAFRAC, COHESION..SPLIT, NLSI). Landscape: 7 + 24 + 5 + PR, PRD, RPR + 6 diversity.
  EXPECT_EQ(kept, 5u + (8u + 24u + 6u) + (7u + 24u + 5u + 3u + 6u));
  EXPECT_GT(missing, 50u);
  MetricOptions with_background;
  with_background.background = {1};
  EXPECT_THROW(compute_fragstats_metrics(t, rows, with_background), Error);
}

TEST(Tables, WhichSelectionsNeedTheSecondPass) {
  EXPECT_FALSE(MetricSelection("AREA,PERIM,CA,NP,TE").needs_second_pass());
  EXPECT_FALSE(MetricSelection("shape_am,lsi,shdi,mesh,pafrac").needs_second_pass());
  EXPECT_TRUE(MetricSelection().needs_second_pass());
  for (const char* m : {"GYRATE", "CIRCLE_MN", "CONTIG", "CORE", "NCORE", "DCORE_SD", "ENN", "TCA", "CLUMPY", "PLADJ",
                        "IJI", "AI", "CONTAG"})
    EXPECT_TRUE(MetricSelection(std::string("AREA,") + m).needs_second_pass()) << m;
}

TEST(Tables, NonSquareCells) {
  std::vector<int32_t> cells = {1, 2};
  MemoryClassRaster r(2, 1, cells, 100.0, 50.0);
  const FragstatsMetrics m = metrics_of(r);
  // Each cell: top and bottom sides 100 m, left and right sides 50 m.
  EXPECT_DOUBLE_EQ(m.patch.rows[0].values[1], 300.0);  // PERIM
  EXPECT_DOUBLE_EQ(m.patch.rows[0].values[0], 0.5);    // AREA
  EXPECT_DOUBLE_EQ(m.land.rows[0].values[4], 50.0);    // TE
}

}  // namespace
}  // namespace lsm::test
