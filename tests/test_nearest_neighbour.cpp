// ENN (enn_sweep.h, and on the GPU cuda/nearest_patch_cuda.h) against brute
// force: every pair of cells of one class in different patches, on random
// landscapes and on grids built to break a sweep: patches thousands of rows
// apart, long diagonal gaps, ties, many classes, non-square cells, rasters
// one cell wide or high, and a patch with a long edge far from its only
// neighbour. Both neighbour rules, every second-pass path (the GPU's where
// CUDA is available), several tile sizes.
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "cell_neighbourhood.h"
#include "patch_row_metrics.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// ENN per PID-1 by comparing every pair of same-class cells of different patches.
std::vector<double> brute_enn(const MemoryClassRaster& r, const std::vector<uint32_t>& ids, size_t n_patches) {
  const int64_t w = r.info().width, h = r.info().height;
  std::map<int32_t, std::vector<int64_t>> cells_of_class;
  for (int64_t i = 0; i < w * h; ++i)
    if (ids[i]) cells_of_class[r.cells()[i]].push_back(i);
  std::vector<double> best(n_patches, std::numeric_limits<double>::infinity());
  for (const auto& [code, cells] : cells_of_class) {
    bool several = false;
    for (int64_t c : cells) several = several || ids[c] != ids[cells[0]];
    if (!several) continue;  // one patch: ENN undefined
    for (size_t a = 0; a < cells.size(); ++a)
      for (size_t b = a + 1; b < cells.size(); ++b) {
        const int64_t i = cells[a], j = cells[b];
        if (ids[i] == ids[j]) continue;
        const double dx = double(i % w - j % w) * r.info().cell_width, dy = double(i / w - j / w) * r.info().cell_height;
        const double d = std::sqrt(dx * dx + dy * dy);
        best[ids[i] - 1] = std::min(best[ids[i] - 1], d);
        best[ids[j] - 1] = std::min(best[ids[j] - 1], d);
      }
  }
  for (double& b : best)
    if (std::isinf(b)) b = std::nan("");
  return best;
}

// The second pass's paths: the labels relabeled, kept in memory, or kept with
// the CUDA neighbourhood counter (which searches ENN on the GPU).
enum class SecondPath { Relabel, InMemory, InMemoryCuda };

// ENN of every patch through the engine, for one tile size and second-pass path.
std::vector<double> engine_enn(MemoryClassRaster& raster, NeighbourRule rule, int64_t tile, SecondPath path) {
  const bool labels_in_memory = path != SecondPath::Relabel;
  auto labeler = make_cpu_labeler();
  ScanOptions o;
  o.rule = rule;
  o.tile_width = o.tile_height = tile;
  o.keep_patch_ids = true;
  o.keep_labels_max_bytes = labels_in_memory ? int64_t(1) << 40 : 0;
  const PatchTable t = scan_patches(raster, *labeler, o);
  RowMetricOptions ro;
  std::unique_ptr<NeighbourhoodCounter> counter;
  if (path == SecondPath::InMemoryCuda) {
    counter = make_neighbourhood_counter(Backend::Cuda);
    ro.counter = counter.get();
  }
  const PatchRowResults rows = compute_patch_row_metrics(raster, *labeler, t, ro);
  std::vector<double> enn;
  for (const PatchShape& s : rows.patches) enn.push_back(s.enn_m);
  return enn;
}

void expect_brute_force_enn(MemoryClassRaster raster, const std::string& what) {
  for (const NeighbourRule rule : {NeighbourRule::Four, NeighbourRule::Eight}) {
    const Reference ref = brute_force(raster, rule);
    const std::vector<double> expected = brute_enn(raster, ref.labels, ref.patches.size());
    std::vector<std::pair<int64_t, SecondPath>> paths{
        {0, SecondPath::Relabel}, {17, SecondPath::Relabel}, {0, SecondPath::InMemory}, {5, SecondPath::InMemory}};
    if (cuda_available()) {
      paths.emplace_back(0, SecondPath::InMemoryCuda);
      paths.emplace_back(5, SecondPath::InMemoryCuda);
    }
    for (const auto& [tile, path] : paths) {
      const std::vector<double> enn = engine_enn(raster, rule, tile, path);
      ASSERT_EQ(enn.size(), expected.size()) << what;
      size_t bad = 0;
      for (size_t i = 0; i < enn.size(); ++i) {
        const bool equal = std::isnan(expected[i]) ? std::isnan(enn[i]) : enn[i] == expected[i];
        if (!equal && ++bad <= 3)
          ADD_FAILURE() << what << ", rule " << int(rule) << ", tile " << tile << ", path " << int(path)
                        << ": PID " << i + 1 << " ENN " << enn[i] << ", brute force " << expected[i];
      }
    }
  }
}

// A field of `fill` with the listed cells set to other classes.
MemoryClassRaster field(int64_t w, int64_t h, int32_t fill, const std::vector<std::tuple<int64_t, int64_t, int32_t>>& cells,
                        double cw = 1.0, double ch = 1.0) {
  std::vector<int32_t> v(static_cast<size_t>(w * h), fill);
  for (const auto& [x, y, c] : cells) v[static_cast<size_t>(y * w + x)] = c;
  return MemoryClassRaster(w, h, std::move(v), cw, ch);
}

TEST(NearestNeighbour, RandomLandscapes) {
  int seed = 1;
  for (const auto& [w, h, classes, nodata] : {std::tuple{61, 47, 3, 0.1}, std::tuple{120, 90, 8, 0.2},
                                              std::tuple{90, 120, 12, 0.0}, std::tuple{150, 40, 5, 0.5}})
    expect_brute_force_enn(random_landscape(w, h, classes, static_cast<uint64_t>(seed++), nodata),
                           "random " + std::to_string(w) + "x" + std::to_string(h));
}

TEST(NearestNeighbour, PatchesThousandsOfRowsApart) {
  // Two cells of class 1, 2999 rows apart; a third far to the side at the bottom.
  expect_brute_force_enn(field(7, 3000, 2, {{3, 0, 1}, {3, 2999, 1}}), "two cells 2999 rows apart");
  expect_brute_force_enn(field(7, 3000, 2, {{0, 0, 1}, {6, 2999, 1}, {6, 1500, 3}, {0, 1501, 3}}),
                         "diagonal gaps over 3000 rows");
  // Corners of a 400 x 400 field: long diagonal gaps, and a tie between the
  // bottom-right cell's two neighbours.
  expect_brute_force_enn(field(400, 400, 2, {{0, 0, 1}, {399, 399, 1}, {0, 399, 1}, {399, 0, 1}}), "corners");
}

TEST(NearestNeighbour, LongEdgeFarFromItsNeighbour) {
  // A comb of class 1 across the top (long edge, many edge cells), its only
  // other patch a single cell 250 rows below at the far right.
  std::vector<std::tuple<int64_t, int64_t, int32_t>> cells;
  for (int64_t x = 0; x < 300; ++x) cells.emplace_back(x, 0, 1);
  for (int64_t x = 0; x < 300; x += 2)
    for (int64_t y = 1; y < 20; ++y) cells.emplace_back(x, y, 1);
  cells.emplace_back(299, 269, 1);
  expect_brute_force_enn(field(300, 270, 2, cells), "comb");
}

TEST(NearestNeighbour, FarNeighboursAcrossManyColumns) {
  // Searches that run over many columns: sparse cells tens of columns apart
  // on a raster whose width is no power of two, a long bar whose own sites
  // fill the columns around its neighbours (each column's nearest site is of
  // the searching patch, so the second one counts), neighbours a whole row's
  // width apart, and ties 40 columns either side.
  for (const uint64_t seed : {3u, 4u}) {
    std::mt19937_64 random(seed);
    std::vector<std::tuple<int64_t, int64_t, int32_t>> cells;
    for (int64_t i = 0; i < 60; ++i)
      cells.emplace_back(int64_t(random() % 1000), int64_t(random() % 200), 1 + int32_t(random() % 2));
    for (int64_t x = 200; x <= 700; ++x) cells.emplace_back(x, 100, 1);
    cells.emplace_back(0, 0, 3);
    cells.emplace_back(999, 199, 3);
    cells.emplace_back(0, 50, 4);
    cells.emplace_back(999, 50, 4);
    cells.emplace_back(500, 20, 5);
    cells.emplace_back(460, 20, 5);
    cells.emplace_back(540, 20, 5);
    cells.emplace_back(500, 60, 5);
    expect_brute_force_enn(field(1000, 200, kNoClass, cells), "far neighbours, seed " + std::to_string(seed));
    expect_brute_force_enn(field(1000, 200, kNoClass, cells, 10.0, 27.5), "far neighbours, non-square cells");
  }
}

TEST(NearestNeighbour, TiesAndCheckerboards) {
  // A checkerboard: under the 4-cell rule every cell is its own patch, its
  // nearest at sqrt(2) cells (four ties); under the 8-cell rule one patch per class.
  std::vector<int32_t> v(64 * 48);
  for (int64_t i = 0; i < 64 * 48; ++i) v[static_cast<size_t>(i)] = ((i % 64) + (i / 64)) % 2 ? 1 : 2;
  expect_brute_force_enn(MemoryClassRaster(64, 48, v), "checkerboard");
  // Sparse single cells on a lattice: every nearest distance is tied several ways.
  std::vector<std::tuple<int64_t, int64_t, int32_t>> lattice;
  for (int64_t y = 2; y < 100; y += 5)
    for (int64_t x = 1; x < 100; x += 5) lattice.emplace_back(x, y, 1 + int32_t((x + y) % 3));
  expect_brute_force_enn(field(100, 100, 9, lattice), "lattice");
}

TEST(NearestNeighbour, ManyClassesAndNonSquareCells) {
  std::mt19937_64 random(7);
  std::vector<int32_t> v(140 * 110);
  for (int32_t& c : v) c = random() % 5 == 0 ? int32_t(random() % 200) : kNoClass;
  expect_brute_force_enn(MemoryClassRaster(140, 110, v), "200 sparse classes");
  expect_brute_force_enn(MemoryClassRaster(140, 110, v, 10.0, 27.5), "non-square cells");
  expect_brute_force_enn(MemoryClassRaster(140, 110, v, 30.0, 3.0), "wide cells");
}

TEST(NearestNeighbour, OneCellWideOrHigh) {
  std::vector<int32_t> line(501);
  for (size_t i = 0; i < line.size(); ++i) line[i] = (i % 7 == 0 || i % 11 == 0) ? 1 : 2;
  expect_brute_force_enn(MemoryClassRaster(501, 1, line), "one row");
  expect_brute_force_enn(MemoryClassRaster(1, 501, line), "one column");
}

}  // namespace
}  // namespace lsm::test
