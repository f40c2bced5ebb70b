// The landscape job (metrics/jobs/landscape_job.h) called as a library: its
// plan, its tables on hand grids with known answers, and the same numbers
// whatever the budget, the tile grid, the sinks or the path of the second pass.
#include <cmath>
#include <sstream>

#include "cell_neighbourhood.h"
#include "error.h"
#include "fragstats_tables.h"
#include "landscape_job.h"
#include "metric_catalogue.h"
#include "patch_columns.h"
#include "tile_labeler.h"
#include "memory_raster.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// Column `name` of row `row` of `table`.
double value(const MetricTable& table, size_t row, const std::string& name) {
  for (size_t c = 0; c < table.columns.size(); ++c)
    if (table.columns[c] == name) return table.rows.at(row).values[c];
  ADD_FAILURE() << "no column " << name;
  return std::nan("");
}

std::string csv(const MetricTable& table, MetricLevel level) {
  std::ostringstream out;
  write_table_csv(out, table, level);
  return out.str();
}

LandscapeJobOptions cpu_options() {
  LandscapeJobOptions o;
  o.backend = Backend::Cpu;
  return o;
}

// Two patches under the 8-cell rule (each class's blocks touch at a corner),
// four under the 4-cell rule: known areas, counts and the class adjacency.
TEST(LandscapeJob, HandGridKnownValues) {
  MemoryClassRaster raster = grid({"1122",
                                   "1122",
                                   "2211"}, 10.0);  // 10 m cells: 0.01 ha each
  LandscapeResults r = run_landscape_job(raster, cpu_options());
  ASSERT_EQ(r.metrics.patch.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(value(r.metrics.patch, 0, "AREA"), 0.06);  // 6 cells of 100 m2
  EXPECT_EQ(r.metrics.patch.rows[0].type, 1);
  EXPECT_EQ(r.metrics.patch.rows[0].pid, 1u);
  ASSERT_EQ(r.metrics.cls.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(value(r.metrics.cls, 0, "NP"), 1);
  EXPECT_DOUBLE_EQ(value(r.metrics.land, 0, "TA"), 0.12);
  EXPECT_TRUE(r.plan.second_pass);  // every metric: shape, core, ENN need it
  EXPECT_TRUE(r.plan.labels_kept);
  // Sides shared by classes 1 and 2 (3 in rows, 4 between rows 1 and 2),
  // entered from both cells (FRAGSTATS .adj); like sides twice on the diagonal.
  const ClassAdjacency& adj = r.rows.adjacency;
  ASSERT_EQ(adj.class_codes, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(adj.at(0, 1), 7u);
  EXPECT_EQ(adj.at(1, 0), 7u);
  EXPECT_EQ(adj.at(0, 0), 2u * 5u);  // class 1: four sides inside the 2 x 2 block, one in the bottom pair
  // Under the 4-cell rule as well: the corner-touching patches stay apart.
  LandscapeJobOptions four = cpu_options();
  four.rule = NeighbourRule::Four;
  const LandscapeResults r4 = run_landscape_job(raster, four);
  ASSERT_EQ(r4.metrics.patch.rows.size(), 4u);
  EXPECT_DOUBLE_EQ(value(r4.metrics.patch, 0, "AREA"), 0.04);
  EXPECT_DOUBLE_EQ(value(r4.metrics.cls, 0, "NP"), 2);
}

// Metrics of the patch records alone need no second pass; a background class
// or ENN does.
TEST(LandscapeJob, PlanFollowsTheSelection) {
  RasterInfo info;
  info.width = 1000;
  info.height = 1000;
  LandscapeJobOptions o = cpu_options();
  o.selection = MetricSelection("AREA,CA,NP,TE,SHDI");
  EXPECT_FALSE(plan_landscape_job(info, o).second_pass);
  o.background = {3};
  EXPECT_TRUE(plan_landscape_job(info, o).second_pass);
  o.background.clear();
  o.selection = MetricSelection("ENN");
  const LandscapePlan enn = plan_landscape_job(info, o);
  EXPECT_TRUE(enn.second_pass);
  EXPECT_TRUE(enn.enn);
  EXPECT_FALSE(plan_landscape_job(info, [&] { auto c = o; c.selection = MetricSelection("CONTIG"); return c; }()).enn);
}

// The budget's shares decide the plan: 4 bytes a cell must fit a quarter of
// the memory for the labels to be kept; records an eighth, arrays a sixteenth.
TEST(LandscapeJob, BudgetSharesDecideThePlan) {
  RasterInfo info;
  info.width = 1024;
  info.height = 1024;  // 4 MiB of labels
  LandscapeJobOptions o = cpu_options();
  o.budget.memory_bytes = uint64_t(16) << 20;
  LandscapePlan p = plan_landscape_job(info, o);
  EXPECT_TRUE(p.labels_kept);
  EXPECT_EQ(p.kept_labels_bytes, int64_t(4) << 20);
  EXPECT_EQ(p.record_bytes, uint64_t(2) << 20);
  EXPECT_EQ(p.patch_array_bytes, uint64_t(1) << 20);
  EXPECT_EQ(p.table_bytes, uint64_t(4) << 20);
  o.budget.memory_bytes = (uint64_t(16) << 20) - 1;
  EXPECT_FALSE(plan_landscape_job(info, o).labels_kept);
  const auto shares = o.budget.shares();
  ASSERT_EQ(shares.size(), 5u);
  EXPECT_EQ(RunBudget{}.strip_cells(), int64_t(16) << 20);  // the default 1G: the scheduler's own largest strip
  EXPECT_STREQ(share_name(shares[0].first), "kept-labels");
}

// One raster, many ways to run it: labels kept or relabeled (budget), paged
// arrays and scratch files (1 MiB), odd tiles, the patch table through a
// sink: the same tables, byte for byte.
TEST(LandscapeJob, SameTablesWhateverTheBudgetTilesAndSinks) {
  MemoryClassRaster raster = random_landscape(300, 220, 5, 7, 0.05);
  const LandscapeResults reference = run_landscape_job(raster, cpu_options());
  ASSERT_TRUE(reference.plan.labels_kept);
  ASSERT_GT(reference.metrics.patch.rows.size(), 100u);

  LandscapeJobOptions tight = cpu_options();
  tight.budget.memory_bytes = uint64_t(1) << 20;  // 264 000 bytes of labels do not fit a quarter
  tight.tile_width = 64;
  tight.tile_height = 17;
  MetricTable streamed;
  LandscapeSinks sinks;
  sinks.patch_rows = [&](const MetricTable& block) {
    streamed.columns = block.columns;
    streamed.rows.insert(streamed.rows.end(), block.rows.begin(), block.rows.end());
  };
  MemoryLabelRaster ids(raster.info().width, raster.info().height);
  sinks.patch_ids = &ids;
  const LandscapeResults r = run_landscape_job(raster, tight, sinks);
  EXPECT_FALSE(r.plan.labels_kept);
  EXPECT_TRUE(r.metrics.patch.rows.empty());  // they went to the sink
  EXPECT_EQ(csv(streamed, MetricLevel::Patch), csv(reference.metrics.patch, MetricLevel::Patch));
  EXPECT_EQ(csv(r.metrics.cls, MetricLevel::Class), csv(reference.metrics.cls, MetricLevel::Class));
  EXPECT_EQ(csv(r.metrics.land, MetricLevel::Landscape), csv(reference.metrics.land, MetricLevel::Landscape));
  EXPECT_EQ(r.rows.adjacency.sides_h, reference.rows.adjacency.sides_h);
  // The patch IDs are the PIDs of the table: the brute-force labeling's.
  EXPECT_EQ(ids.labels(), brute_force(raster, NeighbourRule::Eight).labels);
}

// The CUDA backend (labels, per-cell tests, ENN, GYRATE and CIRCLE's rows on
// the GPU) gives the CPU's tables byte for byte through the job, with the
// labels kept and with the raster labeled again.
TEST(LandscapeJob, CudaGivesTheCpuTables) {
  LSM_REQUIRE_CUDA();
  MemoryClassRaster raster = random_landscape(700, 500, 6, 17, 0.03);
  const LandscapeResults cpu = run_landscape_job(raster, cpu_options());
  for (const uint64_t memory : {uint64_t(1) << 30, uint64_t(1) << 20}) {
    LandscapeJobOptions o;
    o.backend = Backend::Cuda;
    o.budget.memory_bytes = memory;
    const LandscapeResults gpu = run_landscape_job(raster, o);
    EXPECT_EQ(gpu.plan.labels_kept, memory > (uint64_t(1) << 20));
    EXPECT_EQ(csv(gpu.metrics.patch, MetricLevel::Patch), csv(cpu.metrics.patch, MetricLevel::Patch)) << memory;
    EXPECT_EQ(csv(gpu.metrics.cls, MetricLevel::Class), csv(cpu.metrics.cls, MetricLevel::Class)) << memory;
    EXPECT_EQ(csv(gpu.metrics.land, MetricLevel::Landscape), csv(cpu.metrics.land, MetricLevel::Landscape)) << memory;
    EXPECT_EQ(gpu.rows.adjacency.sides_v, cpu.rows.adjacency.sides_v) << memory;
  }
  // GYRATE's centroid rule and every 8-connected core area: the plan keeps
  // CIRCLE and the core areas in row visitors, on the GPU's core mask.
  LandscapeJobOptions other = cpu_options();
  other.gyrate = GyrateRule::Centroid;
  other.core_areas = CoreAreaRule::All;
  const LandscapeResults cpu_other = run_landscape_job(raster, other);
  other.backend = Backend::Cuda;
  const LandscapeResults gpu_other = run_landscape_job(raster, other);
  EXPECT_EQ(gpu_other.rows.plan.core_areas, StageRun::Rows);
  EXPECT_EQ(gpu_other.rows.plan.neighbourhood, StageRun::Device);
  EXPECT_EQ(csv(gpu_other.metrics.patch, MetricLevel::Patch), csv(cpu_other.metrics.patch, MetricLevel::Patch));
  EXPECT_EQ(csv(gpu_other.metrics.cls, MetricLevel::Class), csv(cpu_other.metrics.cls, MetricLevel::Class));
}

// A selection restricts every table; disabled classes leave the class table
// only; the patch table keeps PID and TYPE.
TEST(LandscapeJob, SelectionAndDisabledClasses) {
  MemoryClassRaster raster = random_landscape(120, 90, 4, 3, 0.0);
  const LandscapeResults all = run_landscape_job(raster, cpu_options());
  LandscapeJobOptions o = cpu_options();
  o.selection = MetricSelection("AREA,NP,SHDI");
  o.disabled_classes = {all.metrics.cls.rows[0].type};
  const LandscapeResults some = run_landscape_job(raster, o);
  EXPECT_FALSE(some.plan.second_pass);
  EXPECT_FALSE(some.rows.second_pass);
  EXPECT_EQ(some.metrics.cls.rows.size(), all.metrics.cls.rows.size() - 1);
  EXPECT_DOUBLE_EQ(value(some.metrics.cls, 0, "NP"), value(all.metrics.cls, 1, "NP"));
  EXPECT_DOUBLE_EQ(value(some.metrics.land, 0, "SHDI"), value(all.metrics.land, 0, "SHDI"));
  for (const MetricTable* t : {&some.metrics.patch, &some.metrics.cls, &some.metrics.land})
    for (const std::string& c : t->columns) EXPECT_TRUE(c == "AREA" || c.rfind("AREA_", 0) == 0 || c == "NP" || c == "SHDI") << c;
  ASSERT_EQ(some.metrics.patch.rows.size(), all.metrics.patch.rows.size());
  EXPECT_DOUBLE_EQ(value(some.metrics.patch, 5, "AREA"), value(all.metrics.patch, 5, "AREA"));
}

// The caller's check after the scan stops the job before the second pass;
// bad options are refused with the problem named.
TEST(LandscapeJob, AfterScanCheckAndBadOptions) {
  MemoryClassRaster raster = grid({"123", "456"});
  LandscapeJobOptions o = cpu_options();
  size_t classes = 0;
  o.after_scan = [&](const PatchTable& records) {
    classes = class_codes(records).size();
    throw Error(ErrorKind::BadInput, "too many classes");
  };
  EXPECT_THROW(run_landscape_job(raster, o), Error);
  EXPECT_EQ(classes, 6u);
  LandscapeJobOptions bad = cpu_options();
  bad.edge_depth = 0;
  try {
    run_landscape_job(raster, bad);
    FAIL() << "an edge depth of 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("edge depth"), std::string::npos) << e.what();
  }
  bad = cpu_options();
  bad.boundary_edge = 2;
  EXPECT_THROW(run_landscape_job(raster, bad), Error);
}

// Stopping through the progress function stops the job with "interrupted".
TEST(LandscapeJob, ProgressCanStopIt) {
  MemoryClassRaster raster = random_landscape(200, 200, 4, 1, 0.0);
  double last = 0;
  int calls = 0;
  const ProgressFn progress = [&](double f) {
    EXPECT_GE(f, last - 1e-12);
    last = f;
    return ++calls < 2;
  };
  LandscapeJobOptions o = cpu_options();
  o.tile_width = o.tile_height = 32;
  try {
    run_landscape_job(raster, o, {}, progress);
    FAIL() << "the job did not stop";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
  }
}

// The second pass's stages follow their plan: with the patch IDs in memory a
// counter takes the per-cell stages it can (the CPU reference has no GYRATE
// or ENN kernel), streamed every stage is a row visitor, and every plan
// gives the same per-patch values.
TEST(LandscapeJob, SecondPassStagesFollowTheirPlan) {
  MemoryClassRaster raster = random_landscape(230, 170, 5, 11, 0.04);
  const std::unique_ptr<TileLabeler> labeler = make_labeler(Backend::Cpu);
  ScanOptions scan;
  scan.keep_patch_ids = true;
  scan.tile_width = scan.tile_height = 64;
  const PatchTable streamed = scan_patches(raster, *labeler, scan);
  scan.keep_labels_max_bytes = int64_t(1) << 30;
  const PatchTable kept = scan_patches(raster, *labeler, scan);
  const std::unique_ptr<NeighbourhoodCounter> counter = make_neighbourhood_counter(Backend::Cpu);

  RowMetricOptions o;
  SecondPassPlan p = plan_second_pass(kept, o, false);
  EXPECT_TRUE(p.ids_in_memory);
  for (StageRun r : {p.neighbourhood, p.circle, p.gyrate, p.core_areas, p.enn}) EXPECT_EQ(r, StageRun::Rows);
  EXPECT_EQ(p.geodesic, StageRun::Skipped);  // a projected raster
  o.counter = counter.get();
  p = plan_second_pass(kept, o, false);
  EXPECT_EQ(p.neighbourhood, StageRun::Device);
  EXPECT_EQ(p.circle, StageRun::Device);      // from the counter's row extents
  EXPECT_EQ(p.gyrate, StageRun::Rows);        // the CPU counter has no GYRATE kernel
  EXPECT_EQ(p.enn, StageRun::Rows);
  EXPECT_EQ(p.core_areas, StageRun::Patches);  // FRAGSTATS' core areas after the mask
  EXPECT_EQ(p.contrast, StageRun::Skipped);     // no edge contrast weights
  EXPECT_EQ(p.describe(), "neighbourhood device, circle device, gyrate rows, core areas patches, enn rows, "
                          "geodesic skipped, contrast skipped, connectance skipped, proximity skipped (patch IDs in memory)");
  EXPECT_FALSE(plan_second_pass(streamed, o, false).ids_in_memory);  // relabeled: no counter
  EXPECT_EQ(plan_second_pass(streamed, o, false).neighbourhood, StageRun::Rows);
  EXPECT_FALSE(plan_second_pass(kept, o, true).ids_in_memory);  // the IDs also written: streamed
  RowMetricOptions centroid = o;
  centroid.gyrate = GyrateRule::Centroid;
  centroid.core_areas = CoreAreaRule::All;
  centroid.want_enn = false;
  p = plan_second_pass(kept, centroid, false);
  EXPECT_EQ(p.circle, StageRun::Rows);  // the shape visitor runs for the centroid rule and builds the hulls
  EXPECT_EQ(p.core_areas, StageRun::Rows);
  EXPECT_EQ(p.enn, StageRun::Skipped);
  // Edge contrast weights (codes 0..5 and the boundary's 999, symmetric):
  // ECON's weighted perimeters, row by row.
  auto weights = std::make_shared<ClassPairTable>();
  weights->codes = {0, 1, 2, 3, 4, 5, 999};
  for (int32_t a : weights->codes)
    for (int32_t b : weights->codes) weights->d.push_back(((a % 13 + 1) * (b % 13 + 1) % 7) / 7.0);
  RowMetricOptions contrast = o;
  contrast.contrast = weights;
  contrast.threshold_m = 75;      // and CONNECT's joined pairs
  contrast.search_radius_m = 95;  // and PROX
  contrast.similarity = weights;  // and SIMI (the same weights read as similarities)
  EXPECT_EQ(plan_second_pass(kept, contrast, false).contrast, StageRun::Rows);
  EXPECT_EQ(plan_second_pass(kept, contrast, false).connectance, StageRun::Rows);
  EXPECT_EQ(plan_second_pass(kept, contrast, false).proximity, StageRun::Rows);

  // Every plan, the same values.
  for (const RowMetricOptions& options : {RowMetricOptions{}, centroid, contrast}) {
    RowMetricOptions plain = options;
    plain.counter = nullptr;
    RowMetricOptions device = options;
    device.counter = counter.get();
    const PatchRowResults reference = compute_patch_row_metrics(raster, *labeler, streamed, plain);
    for (const PatchTable* table : {&kept, &streamed}) {
      SCOPED_TRACE(std::string(options.gyrate == GyrateRule::Centroid ? "centroid" : "fragstats") +
                   (table == &kept ? ", kept" : ", streamed"));
      const PatchRowResults r = compute_patch_row_metrics(raster, *labeler, *table, device);
      EXPECT_EQ(r.plan.ids_in_memory, table == &kept);
      ASSERT_EQ(r.patches.size(), reference.patches.size());
      for (size_t i = 0; i < r.patches.size(); ++i) {
        const PatchShape &a = r.patches[i], &b = reference.patches[i];
        ASSERT_EQ(a.gyrate_m, b.gyrate_m) << i;
        ASSERT_EQ(a.diagonal_pairs, b.diagonal_pairs) << i;
        ASSERT_EQ(a.circle_radius_m, b.circle_radius_m) << i;
        ASSERT_EQ(a.core_cells, b.core_cells) << i;
        ASSERT_EQ(a.core_areas, b.core_areas) << i;
        ASSERT_TRUE(a.enn_m == b.enn_m || (std::isnan(a.enn_m) && std::isnan(b.enn_m))) << i;
      }
      ASSERT_EQ(r.contrast.size(), options.contrast ? r.patches.size() : 0);
      ASSERT_EQ(reference.contrast.size(), r.contrast.size());
      EXPECT_EQ(r.joinings, reference.joinings);
      EXPECT_EQ(r.joinings.empty(), !options.threshold_m);
      ASSERT_EQ(r.proximity.size(), options.search_radius_m ? r.patches.size() : 0);
      for (size_t i = 0; i < r.proximity.size(); ++i) ASSERT_EQ(r.proximity[i], reference.proximity[i]) << i;
      ASSERT_EQ(r.similarity.size(), options.similarity ? r.patches.size() : 0);
      for (size_t i = 0; i < r.similarity.size(); ++i) ASSERT_EQ(r.similarity[i], reference.similarity[i]) << i;
      for (size_t i = 0; i < r.contrast.size(); ++i) {
        ASSERT_EQ(r.contrast[i].weights_h, reference.contrast[i].weights_h) << i;
        ASSERT_EQ(r.contrast[i].weights_v, reference.contrast[i].weights_v) << i;
      }
      EXPECT_EQ(r.adjacency.sides_h, reference.adjacency.sides_h);
      EXPECT_EQ(r.adjacency.sides_v, reference.adjacency.sides_v);
    }
  }
}

// Every patch metric of the catalogue has one formula (patch_columns.h), in
// the patch table's column order, and the formulas give the hand values.
TEST(LandscapeJob, EveryPatchColumnHasItsFormula) {
  const std::vector<std::string> columns = patch_metric_columns();
  ASSERT_EQ(patch_column_formulas().size(), columns.size());
  for (size_t c = 0; c < columns.size(); ++c) EXPECT_EQ(patch_column(columns[c]), c);
  EXPECT_THROW(patch_column("CA"), Error);  // a class metric
  // A 2 x 3 patch of 10 m cells, 2 diagonal pairs... as the second pass would give them.
  PatchStats record;
  record.cells = 6;
  record.perim_edges_h = 4;  // 2 top + 2 bottom sides
  record.perim_edges_v = 6;  // 3 left + 3 right
  PatchShape shape;
  shape.diagonal_pairs = 4;
  shape.core_cells = 0;
  shape.gyrate_m = 8.5;
  PatchInputs in;
  in.record = &record;
  in.shape = &shape;
  in.cell_width = in.cell_height = 10;
  in.size = 6;
  in.unit_m2 = 100;
  auto column = [&](const char* acronym) { return patch_column_formulas()[patch_column(acronym)](in); };
  EXPECT_DOUBLE_EQ(column("AREA"), 0.06);
  EXPECT_DOUBLE_EQ(column("PERIM"), 100);
  EXPECT_DOUBLE_EQ(column("PARA"), 100 / 0.06);
  EXPECT_DOUBLE_EQ(column("SHAPE"), 10.0 / 10.0);  // 6 cells: the most compact perimeter is 10 sides
  EXPECT_DOUBLE_EQ(column("GYRATE"), 8.5);
  EXPECT_DOUBLE_EQ(column("CAI"), 0);
  // CONTIG: 7 orthogonal pairs (weight 2, counted twice) and 4 diagonal pairs (weight 1, twice).
  EXPECT_DOUBLE_EQ(column("CONTIG"), ((6 + 4 * 7 + 2 * 4) / 6.0 - 1) / 12);
}

}  // namespace
}  // namespace lsm::test

namespace lsm::test {
namespace {

// The edge depth as a distance (FRAGSTATS asks for metres): a whole number
// of square cells, else refused with the nearest distances that are.
TEST(LandscapeJob, EdgeDistanceIsAWholeNumberOfSquareCells) {
  RasterInfo info;
  info.width = info.height = 10;
  info.cell_width = info.cell_height = 30;
  LandscapeJobOptions o;
  o.edge_depth = 5;
  EXPECT_EQ(edge_depth_cells(info, o), 5);  // no distance: the depth in cells
  o.edge_distance = 90;
  EXPECT_EQ(edge_depth_cells(info, o), 3);
  o.edge_distance = 30;
  EXPECT_EQ(edge_depth_cells(info, o), 1);
  const auto refused = [&](double d, const std::string& words) {
    o.edge_distance = d;
    try {
      edge_depth_cells(info, o);
      ADD_FAILURE() << d << " m was taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused(100, "is not a whole number of the raster's 30 m cells (FRAGSTATS' edge depth on them is a multiple of "
               "the cell size, 1 to 1000 cells): give 90 or 120 m");
  refused(10, "give 30 or 60 m");
  refused(0, "give 30 or 60 m");
  refused(30 * 1001, "1 to 1000 cells");
  info.cell_height = 30.02;  // square to 0.1 %: taken
  o.edge_distance = 60;
  EXPECT_EQ(edge_depth_cells(info, o), 2);
  info.cell_height = 31;
  refused(60, "needs square cells; these are 30 x 31 m");
  info.cell_height = 30;
  info.geodesic = std::make_shared<GeodesicRows>();
  refused(60, "needs a projected raster");
}

TEST(LandscapeJob, EdgeDistanceGivesTheTablesOfItsDepthInCells) {
  MemoryClassRaster raster = random_landscape(60, 45, 3, 21, 0.02);
  LandscapeJobOptions by_cells = cpu_options(), by_distance = cpu_options();
  by_cells.edge_depth = 2;
  by_distance.edge_distance = 60.0;  // random_landscape has 30 m cells
  const LandscapeResults a = run_landscape_job(raster, by_cells), b = run_landscape_job(raster, by_distance);
  EXPECT_EQ(csv(a.metrics.cls, MetricLevel::Class), csv(b.metrics.cls, MetricLevel::Class));
  EXPECT_EQ(csv(a.metrics.land, MetricLevel::Landscape), csv(b.metrics.land, MetricLevel::Landscape));
  LandscapeJobOptions depth_one = cpu_options();
  EXPECT_NE(csv(run_landscape_job(raster, depth_one).metrics.cls, MetricLevel::Class),
            csv(a.metrics.cls, MetricLevel::Class));  // the depth mattered
}

}  // namespace
}  // namespace lsm::test
