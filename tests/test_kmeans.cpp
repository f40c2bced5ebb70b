// K-means (image_algos/kmeans.h): hand-computed Lloyd steps, known blob
// centres, nodata, bad options, tile-size and resident/streamed invariance,
// and CPU/CUDA parity (skipped without a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "error.h"
#include "binary_morphology.h"
#include "kmeans.h"
#include "kmeans_update.h"
#include "vegetation_mask.h"
#include "test_helpers.h"

namespace lsm {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Fit {
  KMeansResult result;
  std::vector<uint16_t> labels;
};

Fit fit(MemoryFeatureRaster& raster, const KMeansOptions& o, Backend backend = Backend::Cpu) {
  auto pass = make_kmeans_pass(backend);
  Fit f;
  const auto info = raster.info();
  f.labels.assign(static_cast<size_t>(info.width * info.height), 9999);
  f.result = run_kmeans(raster, o, *pass, [&](const Window& w, const uint16_t* l) {
    std::copy(l, l + w.width * w.height, f.labels.begin() + w.y0 * info.width);
  });
  return f;
}

// A 3-band raster of smooth random blobs with 5% nodata.
MemoryFeatureRaster random_features(int64_t w, int64_t h, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> f(static_cast<size_t>(w * h * 3));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      float* c = f.data() + (y * w + x) * 3;
      c[0] = float(50 + 40 * std::sin(x * 0.05) + (rng() % 1000) * 0.01);
      c[1] = float(-20 + 30 * std::cos(y * 0.07) + (rng() % 1000) * 0.013);
      c[2] = float((x * y) % 97) * 0.5f;
      if (rng() % 20 == 0) c[0] = kNaN;
    }
  return MemoryFeatureRaster(w, h, 3, std::move(f));
}

TEST(LabColour, KnownValues) {
  float lab[3];
  srgb8_to_lab(255, 255, 255, lab);
  EXPECT_NEAR(lab[0], 100.0, 1e-3);
  EXPECT_NEAR(lab[1], 0.0, 1e-3);
  EXPECT_NEAR(lab[2], 0.0, 1e-3);
  srgb8_to_lab(0, 0, 0, lab);
  EXPECT_NEAR(lab[0], 0.0, 1e-6);
  srgb8_to_lab(255, 0, 0, lab);  // sRGB red: L* 53.24, a* 80.09, b* 67.20 (CIE/Lindbloom tables)
  EXPECT_NEAR(lab[0], 53.2408, 2e-3);
  EXPECT_NEAR(lab[1], 80.0925, 2e-3);
  EXPECT_NEAR(lab[2], 67.2032, 2e-3);
  srgb8_to_lab(0, 255, 0, lab);  // green: a* strongly negative
  EXPECT_NEAR(lab[0], 87.7347, 2e-3);
  EXPECT_NEAR(lab[1], -86.1827, 2e-3);
  EXPECT_NEAR(lab[2], 83.1793, 2e-3);
}

TEST(LabColour, WrapperNeedsThreeBands) {
  MemoryFeatureRaster two(1, 1, 2, {1, 2});
  EXPECT_THROW(LabFeatureRaster lab(two), Error);
}

// Two bands, initial centres (0,0) and (10,0): cells (0,0) (2,0) (4,0) go to
// the first, (7,0) (10,2) (13,4) to the second, so one Lloyd step gives
// (2,0) and (10,2). Against those, inertia = 4+0+4 + 13+0+13 = 34.
TEST(KMeans, InitReproducesHandComputedLloydStep) {
  MemoryFeatureRaster r(3, 2, 2, {0, 0, 2, 0, 4, 0, 7, 0, 10, 2, 13, 4});
  KMeansOptions o;
  o.k = 2;
  o.max_iter = 1;
  o.init = {0, 0, 10, 0};
  const Fit f = fit(r, o);
  EXPECT_EQ(f.result.centres, (std::vector<double>{2, 0, 10, 2}));
  EXPECT_EQ(f.result.counts, (std::vector<int64_t>{3, 3}));
  EXPECT_DOUBLE_EQ(f.result.inertia, 34.0);
  EXPECT_EQ(f.result.iterations, 1);
  EXPECT_FALSE(f.result.converged);
  EXPECT_EQ(f.labels, (std::vector<uint16_t>{1, 1, 1, 2, 2, 2}));
  // Left to run, the next step changes nothing: converged after 2 iterations.
  o.max_iter = 50;
  const Fit g = fit(r, o);
  EXPECT_EQ(g.result.centres, (std::vector<double>{2, 0, 10, 2}));
  EXPECT_TRUE(g.result.converged);
  EXPECT_EQ(g.result.iterations, 2);
}

TEST(KMeans, OneClusterIsTheMean) {
  MemoryFeatureRaster r(4, 1, 1, {1, 2, 3, 10});
  KMeansOptions o;
  o.k = 1;
  const Fit f = fit(r, o);
  EXPECT_DOUBLE_EQ(f.result.centres[0], 4.0);
  EXPECT_EQ(f.result.counts[0], 4);
  EXPECT_DOUBLE_EQ(f.result.inertia, 9 + 4 + 1 + 36);
  EXPECT_TRUE(f.result.converged);
}

// Three blobs of 25 cells, each a 5x5 pattern of offsets around its centre
// that sums to zero: the fitted centres are the blob centres exactly.
TEST(KMeans, FindsKnownBlobCentres) {
  const float centres[3][2] = {{10, 10}, {-30, 5}, {0, 60}};
  std::vector<float> f;
  for (int blob = 0; blob < 3; ++blob)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        f.push_back(centres[blob][0] + dx);
        f.push_back(centres[blob][1] + dy * 0.5f);
      }
  MemoryFeatureRaster r(25, 3, 2, f);
  KMeansOptions o;
  o.k = 3;
  o.seed = 11;
  o.n_init = 3;
  const Fit fitted = fit(r, o);
  ASSERT_TRUE(fitted.result.converged);
  for (int blob = 0; blob < 3; ++blob) {
    const int j = fitted.labels[blob * 25] - 1;  // the cluster of the blob's first cell
    EXPECT_DOUBLE_EQ(fitted.result.centres[j * 2], centres[blob][0]) << "blob " << blob;
    EXPECT_DOUBLE_EQ(fitted.result.centres[j * 2 + 1], centres[blob][1]) << "blob " << blob;
    EXPECT_EQ(fitted.result.counts[j], 25);
    for (int c = 0; c < 25; ++c) EXPECT_EQ(fitted.labels[blob * 25 + c], j + 1);
  }
  // Per blob: x offsets 5 x (4+1+0+1+4) = 50, y offsets 5 x 0.25 x 10 = 12.5.
  EXPECT_NEAR(fitted.result.inertia, 3 * 62.5, 1e-4);
}

TEST(KMeans, NodataCellsAreExcluded) {
  // The NaN cell's second band would pull the mean far away if counted.
  MemoryFeatureRaster r(3, 1, 2, {1, 1, kNaN, 1000, 3, 5});
  KMeansOptions o;
  o.k = 1;
  const Fit f = fit(r, o);
  EXPECT_EQ(f.result.valid_cells, 2);
  EXPECT_EQ(f.result.counts[0], 2);
  EXPECT_EQ(f.result.centres, (std::vector<double>{2, 3}));
  EXPECT_EQ(f.labels, (std::vector<uint16_t>{1, 0, 1}));
}

TEST(KMeans, MoreClustersThanDistinctValuesIsAnError) {
  MemoryFeatureRaster r(6, 1, 1, {1, 1, 2, 2, 3, 3});
  KMeansOptions o;
  o.k = 5;
  try {
    fit(r, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    EXPECT_NE(std::string(e.what()).find("3 distinct"), std::string::npos) << e.what();
  }
  o.k = 3;  // as many as there are: every value its own cluster
  const Fit f = fit(r, o);
  EXPECT_DOUBLE_EQ(f.result.inertia, 0.0);
}

TEST(KMeans, EmptyClusterKeepsItsCentre) {
  MemoryFeatureRaster r(4, 1, 1, {0, 1, 2, 3});
  KMeansOptions o;
  o.k = 2;
  o.init = {1.5f, 100};  // nothing is nearer to 100
  const Fit f = fit(r, o);
  EXPECT_EQ(f.result.centres, (std::vector<double>{1.5, 100}));
  EXPECT_EQ(f.result.counts, (std::vector<int64_t>{4, 0}));
}

TEST(KMeans, BadOptions) {
  MemoryFeatureRaster r(2, 1, 1, {0, 1});
  auto expect_bad = [&](KMeansOptions o, const char* what) {
    try {
      fit(r, o);
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput) << what;
    }
  };
  KMeansOptions o;
  o.k = 0;
  expect_bad(o, "k = 0");
  o.k = -3;
  expect_bad(o, "k < 0");
  o.k = 2;
  o.max_iter = 0;
  expect_bad(o, "max_iter = 0");
  o.max_iter = 10;
  o.init = {1, 2, 3};
  expect_bad(o, "init of the wrong size");
  o.init.clear();
  o.n_init = 0;
  expect_bad(o, "n_init = 0");
  MemoryFeatureRaster empty(2, 1, 1, {kNaN, kNaN});
  KMeansOptions one;
  one.k = 1;
  auto pass = make_cpu_kmeans_pass();
  EXPECT_THROW(run_kmeans(empty, one, *pass), Error);
}

TEST(KMeans, RestartsKeepTheLowestInertia) {
  MemoryFeatureRaster r = random_features(120, 90, 3);
  KMeansOptions o;
  o.k = 6;
  o.n_init = 4;
  o.seed = 5;
  const Fit f = fit(r, o);
  ASSERT_EQ(f.result.run_inertia.size(), 4u);
  for (double i : f.result.run_inertia) EXPECT_LE(f.result.inertia, i);
  EXPECT_EQ(f.result.inertia, f.result.run_inertia[f.result.best_run]);
}

void expect_same(const Fit& a, const Fit& b, const std::string& what) {
  EXPECT_EQ(a.result.centres, b.result.centres) << what;
  EXPECT_EQ(a.result.counts, b.result.counts) << what;
  EXPECT_EQ(a.result.inertia, b.result.inertia) << what;
  EXPECT_EQ(a.result.iterations, b.result.iterations) << what;
  EXPECT_EQ(a.result.converged, b.result.converged) << what;
  EXPECT_EQ(a.labels, b.labels) << what;
}

TEST(KMeans, ResultDoesNotDependOnStripsOrResidency) {
  MemoryFeatureRaster r = random_features(301, 203, 17);
  KMeansOptions o;
  o.k = 5;
  o.seed = 7;
  o.n_init = 2;
  const Fit reference = fit(r, o);
  EXPECT_TRUE(reference.result.resident);
  for (int64_t rows : {1, 7, 64, 1000}) {
    for (bool resident : {true, false}) {
      KMeansOptions t = o;
      t.strip_rows = rows;
      t.resident_bytes = resident ? t.resident_bytes : 0;
      const Fit f = fit(r, t);
      EXPECT_EQ(f.result.resident, resident);
      expect_same(reference, f, "strip rows " + std::to_string(rows) + (resident ? " resident" : " streamed"));
    }
  }
}

TEST(KMeansCuda, SameAssignmentsAndCentresAsCpu) {
  LSM_REQUIRE_CUDA();
  MemoryFeatureRaster r = random_features(517, 333, 23);
  for (int k : {1, 4, 13}) {
    KMeansOptions o;
    o.k = k;
    o.seed = 3;
    const Fit cpu = fit(r, o, Backend::Cpu);
    for (bool resident : {true, false}) {
      KMeansOptions t = o;
      t.resident_bytes = resident ? t.resident_bytes : 0;
      t.strip_rows = resident ? 0 : 50;
      expect_same(cpu, fit(r, t, Backend::Cuda), "k " + std::to_string(k) + (resident ? " resident" : " streamed"));
    }
  }
}

// Larger k needs larger tables of sums: k = 300 no longer fits a table per
// warp in shared memory (one per block, shared atomics), k = 3000 not even
// one per block (global atomics). Every variant gives the CPU's result.
TEST(KMeansCuda, LargeKTablesGiveTheSameResult) {
  LSM_REQUIRE_CUDA();
  MemoryFeatureRaster r = random_features(200, 150, 29);
  for (int k : {300, 3000}) {
    KMeansOptions o;
    o.k = k;
    o.max_iter = 3;
    for (int j = 0; j < o.k; ++j) {  // centres on a lattice spanning the data
      o.init.push_back(float(10 + (j % 30) * 3));
      o.init.push_back(float(-50 + ((j / 30) % 10) * 9));
      o.init.push_back(float((j / 300) * 5));
    }
    const Fit cpu = fit(r, o, Backend::Cpu);
    expect_same(cpu, fit(r, o, Backend::Cuda), "k " + std::to_string(k));
  }
}

// A resident raster runs Lloyd's loop on the device: with 3 bands in one
// cooperative launch, with 5 as a launch per pass whose step the host reads
// every few passes. Either must stop at the host loop's iteration, whether
// it ends by max_iter (inside a batch or on its edge), by tol, or by
// unchanged centres.
MemoryFeatureRaster five_band_features(int64_t w, int64_t h, uint64_t seed) {
  MemoryFeatureRaster three = random_features(w, h, seed);
  std::vector<float> three_f(static_cast<size_t>(w * h * 3)), f(static_cast<size_t>(w * h * 5));
  three.read(Window{0, 0, w, h}, three_f.data());
  for (int64_t i = 0; i < w * h; ++i) {
    for (int b = 0; b < 3; ++b) f[i * 5 + b] = three_f[i * 3 + b];
    f[i * 5 + 3] = float(i % 13);
    f[i * 5 + 4] = float((i / w) % 7) * 2.5f;
  }
  return MemoryFeatureRaster(w, h, 5, std::move(f));
}

TEST(KMeansCuda, DeviceLoopStopsWhereTheHostLoopStops) {
  LSM_REQUIRE_CUDA();
  MemoryFeatureRaster three = random_features(311, 207, 41), five = five_band_features(311, 207, 41);
  for (MemoryFeatureRaster* r : {&three, &five}) {
    for (double tol : {0.0, 0.05, 2.0}) {
      for (int max_iter : {1, 7, 8, 9, 300}) {
        KMeansOptions o;
        o.k = 6;
        o.seed = 12;
        o.tol = tol;
        o.max_iter = max_iter;
        const Fit cpu = fit(*r, o, Backend::Cpu);
        const Fit cuda = fit(*r, o, Backend::Cuda);
        ASSERT_TRUE(cuda.result.resident);
        expect_same(cpu, cuda, std::to_string(r->info().bands) + " bands, tol " + std::to_string(tol) +
                                   " max_iter " + std::to_string(max_iter));
      }
    }
  }
}

// Five bands take the kernel with the band count known only at run time.
TEST(KMeansCuda, AnyBandCountGivesTheSameResult) {
  LSM_REQUIRE_CUDA();
  std::mt19937_64 rng(8);
  std::vector<float> f(static_cast<size_t>(97 * 61 * 5));
  for (float& v : f) v = float(rng() % 5000) * 0.01f;
  MemoryFeatureRaster r(97, 61, 5, std::move(f));
  KMeansOptions o;
  o.k = 7;
  o.seed = 4;
  expect_same(fit(r, o, Backend::Cpu), fit(r, o, Backend::Cuda), "5 bands");
}

TEST(KMeansUpdate, FixedPointScaleIsTheLargestPowerOfTwoThatFits) {
  const double limit = std::ldexp(1.0, kmeans_update::kFixedBits);
  for (double max_abs : {255.0, 256.0, 100.0, 1e-3, 0.75, 3e7, 16777216.0, 16777217.0}) {
    const float s = kmeans_update::fixed_point_scale(max_abs);
    int e = 0;
    EXPECT_EQ(std::frexp(double(s), &e), 0.5) << max_abs;  // a power of two
    EXPECT_LE(max_abs * s, limit) << max_abs;
    EXPECT_GT(max_abs * s * 2, limit) << max_abs;
  }
  EXPECT_EQ(kmeans_update::fixed_point_scale(255.0), 32768.0f);
  EXPECT_EQ(kmeans_update::fixed_point_scale(256.0), 32768.0f);  // 256 x 2^15 = 2^23 exactly fits
  EXPECT_EQ(kmeans_update::fixed_point_scale(0.0), 1.0f);
}

TEST(Morphology, OpeningRemovesSpecksAndRoundsCorners) {
  BinaryMask m{9, 7, std::vector<uint8_t>(63, 0)};
  for (int y = 1; y <= 5; ++y)
    for (int x = 1; x <= 5; ++x) m.cells[y * 9 + x] = 1;  // a 5x5 square
  m.cells[3 * 9 + 7] = 1;                                 // a one-cell speck
  const BinaryMask opened = open_disk(m, 1);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 9; ++x) {
      const bool in_square = y >= 1 && y <= 5 && x >= 1 && x <= 5;
      const bool corner = (y == 1 || y == 5) && (x == 1 || x == 5);  // the radius-1 disk is a plus sign
      EXPECT_EQ(opened.cells[y * 9 + x], in_square && !corner ? 1 : 0) << x << "," << y;
    }
}

TEST(Morphology, ClosingFillsHolesAndEdgesDoNotErode) {
  BinaryMask m{5, 5, std::vector<uint8_t>(25, 1)};
  m.cells[2 * 5 + 2] = 0;  // a hole in a full raster
  const BinaryMask closed = close_disk(m, 1);
  for (uint8_t c : closed.cells) EXPECT_EQ(c, 1);  // hole filled, the raster's edge did not erode
  const BinaryMask eroded = erode_disk(m, 2);
  EXPECT_EQ(eroded.cells[0], 1);          // (0,0) is 2.83 cells from the hole: outside the disk
  EXPECT_EQ(eroded.cells[2 * 5 + 0], 0);  // (0,2) is 2 cells from the hole
  EXPECT_THROW(erode_disk(m, -1), Error);
}

TEST(VegetationMask, GreenestClusterAndCleaning) {
  KMeansResult r;
  r.k = 3;
  r.bands = 3;
  r.centres = {50, 10, 5, 40, -25, 20, 60, -5, 0};
  EXPECT_EQ(greenest_cluster(r), 1);
  r.bands = 2;
  EXPECT_THROW(greenest_cluster(r), Error);
  // Cluster 2 (index 1) everywhere but one speck of 1 and a nodata cell.
  std::vector<uint16_t> labels(25, 2);
  labels[12] = 1;
  labels[0] = 0;
  const std::vector<uint8_t> mask = cluster_mask(labels, 5, 5, 1, 0, 1);
  EXPECT_EQ(mask[0], kMaskNodata);
  EXPECT_EQ(mask[12], 1);  // closed
  EXPECT_EQ(mask[24], 1);
}

}  // namespace
}  // namespace lsm
