// lsm fuzzy: hand-made images with known objects, seeds from a mask, the
// real CT volumes end to end (the phantom's insert segmented; every backend
// equal to the sequential kFOE), and one clear error line for bad input.
#include <gdal_priv.h>

#include <cmath>
#include <cstring>

#include "cli_fixture.h"
#include "shared_data.h"

namespace lsm::test {
namespace {

class CliFuzzy : public CliFixture {
 protected:
  // Two 100-valued squares on a 0 background, one with a nodata hole: the
  // seed's square is the object.
  std::string two_squares() {
    return make_raster("squares.tif", 30, 20, 1, [](int x, int y, int) {
      if (x == 5 && y == 5) return NAN;
      const bool left = x >= 2 && x < 10 && y >= 3 && y < 15, right = x >= 15 && x < 28 && y >= 3 && y < 15;
      return left || right ? 100.0f + static_cast<float>((x * 7 + y * 3) % 5) : 0.0f;
    });
  }
  static bool in_left_square(int x, int y) { return x >= 2 && x < 10 && y >= 3 && y < 15; }

  // A volume segmented by the CPU backend (with its mask at `threshold`) and
  // by the sequential kFOE, with the same `options`.
  struct BothBackends {
    Raster cpu, reference, mask;
  };
  BothBackends run_cpu_and_reference(const std::string& volume, const std::string& options, double threshold,
                                     int slices) {
    const std::string common = "fuzzy " + volume + " ";
    EXPECT_EQ(run_lsm(common + path("cpu.tif") + " --volume " + options + " --threshold " + std::to_string(threshold) +
                      " -q --backend cpu").code, 0);
    EXPECT_EQ(run_lsm(common + path("ref.tif") + " --volume " + options + " -q --backend reference").code, 0);
    BothBackends runs{read(path("cpu.tif")), read(path("ref.tif")), read(path("cpu_mask.tif"))};
    EXPECT_EQ(runs.cpu.bands, slices);
    EXPECT_EQ(runs.reference.bands, slices);
    EXPECT_EQ(runs.mask.bands, slices);
    return runs;
  }
};

TEST_F(CliFuzzy, SegmentsTheSeedsObjectInAnImage) {
  const std::string in = two_squares();
  const CliRun r = run_lsm("fuzzy " + in + " " + path("scene.tif") + " --seed 6,9 --threshold 0.5 -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const Raster scene = read(path("scene.tif")), mask = read(path("scene_mask.tif"));
  ASSERT_EQ(scene.bands, 1);
  EXPECT_EQ(scene.gt[0], 600000);  // georeferencing follows the input
  EXPECT_EQ(scene.gt[1], 10);
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 30; ++x) {
      const float k = scene.band[0][y * 30 + x], m = mask.band[0][y * 30 + x];
      if (x == 5 && y == 5) {
        EXPECT_TRUE(std::isnan(k));  // nodata stays nodata
        EXPECT_EQ(m, 255);
      } else if (in_left_square(x, y)) {
        EXPECT_GT(k, 0.5f) << x << "," << y;
        EXPECT_LE(k, 1.0f);
        EXPECT_EQ(m, 1);
      } else {
        EXPECT_EQ(k, 0.0f) << x << "," << y;  // across a background gap of 0: affinity underflows
        EXPECT_EQ(m, 0);
      }
    }
  EXPECT_EQ(scene.band[0][9 * 30 + 6], 1.0f);  // the seed
  // The same scene from every backend, and from the mask as seeds (every
  // voxel of the object a seed: connectivity 1 on the whole object).
  for (const char* backend : {"cpu", "reference"}) {
    ASSERT_EQ(run_lsm("fuzzy " + in + " " + path(std::string(backend) + ".tif") + " --seed 6,9 -q --backend " + backend).code, 0);
    const std::vector<float> other = read(path(std::string(backend) + ".tif")).band[0];
    ASSERT_EQ(other.size(), scene.band[0].size());
    EXPECT_EQ(std::memcmp(other.data(), scene.band[0].data(), other.size() * sizeof(float)), 0) << backend;
  }
  ASSERT_EQ(run_lsm("fuzzy " + in + " " + path("from_mask.tif") + " --seeds-from " + path("scene_mask.tif") +
                    " --mean 102 --sd 2 --sd-diff 2 -q").code, 0);
  const Raster from_mask = read(path("from_mask.tif"));
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 30; ++x)
      if (in_left_square(x, y) && !(x == 5 && y == 5)) EXPECT_EQ(from_mask.band[0][y * 30 + x], 1.0f);
}

TEST_F(CliFuzzy, ObjectStatisticsCanBeGiven) {
  const std::string in = two_squares();
  // With a wide SD of differences the background gap still blocks (g1 of
  // x1 = 50 is tiny for sigma = 2), but a wide object SD lets it through.
  ASSERT_EQ(run_lsm("fuzzy " + in + " " + path("wide.tif") + " --seed 6,9 --mean 50 --sd 1000 --sd-diff 1000 --adjacency 8 -q").code, 0);
  const Raster wide = read(path("wide.tif"));
  EXPECT_GT(wide.band[0][10 * 30 + 20], 0.9f);  // in the right square: reached across the background
  const CliRun r = run_lsm("fuzzy " + in + " " + path("x.tif") + " --seed 6,9 -q");
  ASSERT_EQ(r.code, 0);
  const CliRun verbose = run_lsm("fuzzy " + in + " " + path("y.tif") + " --seed 6,9");
  EXPECT_NE(verbose.err.find("100 - done."), std::string::npos);
  EXPECT_NE(verbose.out.find("object: mean "), std::string::npos);
}

// Relative fuzzy connectedness: a uniform bar with a weaker column at x = 20;
// the object seed's side (x < 20) is the object, the barrier a tie (not object).
TEST_F(CliFuzzy, RelativeSplitsBetweenCompetingSeeds) {
  const std::string in = make_raster("ramp.tif", 40, 5, 1, [](int x, int, int) { return x == 20 ? 80.0f : 100.0f; });
  ASSERT_EQ(run_lsm("fuzzy " + in + " " + path("abs.tif") + " --seed 2,2 --mean 100 --sd 30 --sd-diff 5 -q").code, 0);
  ASSERT_EQ(run_lsm("fuzzy " + in + " " + path("bg.tif") + " --seed 37,2 --mean 100 --sd 30 --sd-diff 5 -q").code, 0);
  ASSERT_EQ(run_lsm("fuzzy " + in + " " + path("rel.tif") + " --seed 2,2 --relative --background-seed 37,2 "
                    "--mean 100 --sd 30 --sd-diff 5 --threshold 0.0001 -q").code, 0);
  const Raster absolute = read(path("abs.tif")), background = read(path("bg.tif")), rel = read(path("rel.tif")),
               mask = read(path("rel_mask.tif"));
  int object = 0;
  for (size_t i = 0; i < rel.band[0].size(); ++i) {
    const float ko = absolute.band[0][i], kb = background.band[0][i];
    EXPECT_EQ(rel.band[0][i], ko > kb ? ko : 0.0f) << i;
    EXPECT_EQ(mask.band[0][i], ko > kb ? 1 : 0) << i;
    object += ko > kb;
  }
  EXPECT_EQ(object, 20 * 5);
  for (int y = 0; y < 5; ++y) EXPECT_EQ(mask.band[0][y * 40 + 19], 1);
  const auto before = files();
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 2,2 --relative"), "--relative needs --background-cell", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 2,2 --background-seed 3,3"), "--background-cell needs --relative", before);
}

TEST_F(CliFuzzy, BadInputGivesOneClearLine) {
  const std::string in = two_squares();
  const auto before = files();
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 5,5"), "seed 5,5 lies on nodata", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 30,1"), "outside the 30 x 20 image", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif")), "give --seed-cell or --seeds-from (one of the two)", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 6,9,1"), "expected X,Y", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 6,9 --adjacency 6"), "4 or 8", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 6,9 --threshold 2"), "--threshold", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 20,19"), "uniform", before);
  expect_clean_failure(run_lsm("fuzzy " + in + " " + path("o.tif") + " --seed 6,9 --sd -1"), "SD must be positive", before);
  expect_clean_failure(run_lsm("fuzzy " + path("none.tif") + " " + path("o.tif") + " --seed 6,9"), "none.tif", before);
}

// The head phantom: a seed in the large ~90 HU insert segments it, and the
// CPU backend's scene equals the sequential kFOE's voxel for voxel.
TEST_F(CliFuzzy, HeadPhantomInsert) {
  const std::string ct = shared_data_dir() + "/volumes/ct_head_phantom_philips_512x512x140.tif";
  LSM_REQUIRE_SHARED_FILE(ct);
  const BothBackends runs = run_cpu_and_reference(ct, "--seed 254,267,52", 0.5, 140);
  const Raster &cpu = runs.cpu, &ref = runs.reference, &mask = runs.mask;
  ASSERT_EQ(mask.bands, 140);
  int64_t differing = 0, object = 0;
  GDALDataset* d = static_cast<GDALDataset*>(GDALOpen(ct.c_str(), GA_ReadOnly));
  ASSERT_NE(d, nullptr);
  GDALDatasetH out = GDALOpen(path("cpu.tif").c_str(), GA_ReadOnly);
  ASSERT_NE(out, nullptr);
  EXPECT_STREQ(GDALGetMetadataItem(out, "VOXEL_SIZE_MM", nullptr), "0.451171875 0.451171875 1");
  GDALClose(out);
  std::vector<float> hu(512 * 512);
  double sum = 0;
  float lowest = 1e9f, highest = -1e9f;
  for (int z = 0; z < 140; ++z) {
    ASSERT_EQ(d->GetRasterBand(z + 1)->RasterIO(GF_Read, 0, 0, 512, 512, hu.data(), 512, 512, GDT_Float32, 0, 0), CE_None);
    for (int i = 0; i < 512 * 512; ++i) {
      differing += cpu.band[z][i] != ref.band[z][i];
      if (mask.band[z][i] == 1) {
        ++object;
        sum += hu[i];
        lowest = std::min(lowest, hu[i]);
        highest = std::max(highest, hu[i]);
      }
    }
  }
  GDALClose(d);
  EXPECT_EQ(differing, 0);
  EXPECT_EQ(mask.band[52][267 * 512 + 254], 1);
  EXPECT_GT(object, 400000);  // the insert spans about 0.43 M voxels of ~90 HU
  EXPECT_LT(object, 700000);
  EXPECT_NEAR(sum / object, 90.0, 5.0);
  EXPECT_GE(lowest, 40.0f);   // nothing of the skull (700+ HU) or the air (-1000 HU)
  EXPECT_LE(highest, 140.0f);
}

TEST_F(CliFuzzy, AbdomenCtEndToEnd) {
  const std::string ct = shared_data_dir() + "/volumes/totalseg_example_ct_abdomen.tif";
  LSM_REQUIRE_SHARED_FILE(ct);
  const BothBackends runs = run_cpu_and_reference(ct, "--seed 57,82,93 --adjacency 26", 0.3, 112);
  const Raster &cpu = runs.cpu, &ref = runs.reference, &mask = runs.mask;
  ASSERT_EQ(mask.bands, 112);
  int64_t differing = 0, object = 0;
  for (int z = 0; z < 112; ++z)
    for (size_t i = 0; i < cpu.band[z].size(); ++i) {
      differing += cpu.band[z][i] != ref.band[z][i];
      object += mask.band[z][i] == 1;
    }
  EXPECT_EQ(differing, 0);
  EXPECT_GT(object, 1000);  // soft tissue around the seed
  EXPECT_LT(object, 122 * 101 * 112 / 2);
}

}  // namespace
}  // namespace lsm::test
