// lsm hog, lsm pyramid, lsm gradient: scikit-image's HOG references on the
// astronaut photo, descriptor rasters and their georeferencing, pyramid
// levels and their cells, gradient bands, the pedestrian photos end to end,
// and one clear error line for bad input.
#include <gdal_priv.h>

#include <cmath>

#include "cli_fixture.h"
#include "npy_file.h"
#include "shared_data.h"

namespace lsm::test {
namespace {

class CliImage : public CliFixture {
 protected:
  static double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
    EXPECT_EQ(a.size(), b.size());
    double worst = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
    return worst;
  }
};

// skimage's test_hog.py references: hog(rgb2gray(astronaut), 9, (8, 8), (3, 3)).
TEST_F(CliImage, HogEqualsScikitImageOnTheAstronaut) {
  const std::string dir = shared_data_dir() + "/photos/hog_reference/";
  LSM_REQUIRE_SHARED_FILE(dir + "astronaut.png");
  for (const std::string norm : {"L1", "L2-Hys"}) {
    ASSERT_EQ(run_lsm("hog " + dir + "astronaut.png " + path(norm + ".npy") + " --norm " + norm +
                      " --cell 8 --block 3 --bins 9 -q --backend cpu --tile-size 5")
                  .code,
              0);
    const NpyArray ours = read_npy(path(norm + ".npy"));
    EXPECT_EQ(ours.shape, (std::vector<int64_t>{62, 62, 3, 3, 9}));
    const NpyArray reference = read_npy(dir + "astronaut_GRAY_hog_" + norm + ".npy");
    ASSERT_EQ(reference.values.size(), 311364u);
    EXPECT_LE(max_difference(ours.values, reference.values), 1e-5) << norm;
  }
}

// A raster of descriptors: one band per element, one cell per block
// position, cells `cell` times the input's.
TEST_F(CliImage, HogRasterMatchesTheNpyAndIsGeoreferenced) {
  const std::string in =
      make_raster("in.tif", 50, 37, 1, [](int x, int y, int) { return float(std::sin(x * 0.3) * std::cos(y * 0.2) * 100); });
  ASSERT_EQ(run_lsm("hog " + in + " " + path("h.tif") + " --cell 6 --block 2 --bins 5 --signed -q").code, 0);
  ASSERT_EQ(run_lsm("hog " + in + " " + path("h.npy") + " --cell 6 --block 2 --bins 5 --signed -q").code, 0);
  const Raster r = read(path("h.tif"));
  const NpyArray n = read_npy(path("h.npy"));
  ASSERT_EQ(n.shape, (std::vector<int64_t>{5, 7, 2, 2, 5}));  // 37 / 6 = 6 cell rows, 50 / 6 = 8 columns
  ASSERT_EQ(r.bands, 20);
  EXPECT_EQ(r.width, 7);
  EXPECT_EQ(r.height, 5);
  EXPECT_EQ(r.gt[0], 600000);
  EXPECT_EQ(r.gt[1], 60);
  EXPECT_EQ(r.gt[5], -60);
  EXPECT_EQ(r.names[6], "cell 0,1 bin 1");
  for (int e = 0; e < 20; ++e)
    for (int k = 0; k < 35; ++k) EXPECT_EQ(r.band[e][k], float(n.values[k * 20 + e])) << e << " " << k;
}

TEST_F(CliImage, HogOnEveryPyramidLevel) {
  const std::string dir = shared_data_dir() + "/photos/hog_reference/";
  LSM_REQUIRE_SHARED_FILE(dir + "astronaut.png");
  ASSERT_EQ(run_lsm("hog " + dir + "astronaut.png " + path("p.npy") + " --pyramid 3,1.5 -q").code, 0);
  EXPECT_EQ(files(), (std::vector<std::string>{"p_level_00.npy", "p_level_01.npy", "p_level_02.npy"}));
  EXPECT_EQ(read_npy(path("p_level_01.npy")).shape, (std::vector<int64_t>{40, 40, 3, 3, 9}));  // 341 / 8 = 42 cells
  EXPECT_EQ(read_npy(path("p_level_02.npy")).shape, (std::vector<int64_t>{26, 26, 3, 3, 9}));  // 228 / 8 = 28
  // Level 0 is the photo itself.
  const NpyArray reference = read_npy(dir + "astronaut_GRAY_hog_L2-Hys.npy");
  EXPECT_LE(max_difference(read_npy(path("p_level_00.npy")).values, reference.values), 1e-5);
  // 512 / 1.5^7 = 30 pixels hold a 24-pixel block; 512 / 1.5^8 = 20 do not.
  const auto before = files();
  expect_clean_failure(run_lsm("hog " + dir + "astronaut.png " + path("q.npy") + " --pyramid 12,1.5 -q"),
                       "level 8 (20 x 20) is smaller than one HOG block; use at most 8 levels", before);
}

// --variant dalal-triggs against OpenCV's HOGDescriptor (gamma correction
// off, one window over the whole photo, blocks one cell apart) on a colour
// pedestrian frame. OpenCV's cartToPolar approximates atan2, which moves a
// normalised value by up to a few 1e-4; the exact arithmetic is tested
// against the direct sums in test_hog_dalal_triggs.cpp.
TEST_F(CliImage, HogDalalTriggsEqualsOpenCv) {
  const std::string photo = shared_data_dir() + "/photos/pedestrian/opencv_vtest_pets2009_frame100.png";
  LSM_REQUIRE_SHARED_FILE(photo);
  const std::string script = std::string(LSM_SOURCE_DIR) + "/tests/opencv_hog_reference.py";
  struct Case {
    const char* opencv;  // cell block bins signed
    const char* lsm;
  };
  for (const Case& c : {Case{"8 2 9 0", "--block 2"}, Case{"8 3 9 0", "--block 3 --tile-size 7"},
                        Case{"6 2 12 1", "--cell 6 --block 2 --bins 12 --signed --backend cpu"}}) {
    const CliRun reference = run_shell("/usr/bin/python3 " + script + " " + photo + " " + path("cv.npy") + " " + c.opencv);
    if (reference.code == 3) GTEST_SKIP() << "OpenCV's Python bindings (Debian: python3-opencv) are missing";
    ASSERT_EQ(reference.code, 0) << reference.err;
    ASSERT_EQ(run_lsm("hog " + photo + " " + path("dt.npy") + " --variant dalal-triggs -q " + c.lsm).code, 0);
    const NpyArray ours = read_npy(path("dt.npy")), theirs = read_npy(path("cv.npy"));
    ASSERT_EQ(ours.shape, theirs.shape) << c.lsm;
    double mean = 0;
    for (size_t i = 0; i < ours.values.size(); ++i) mean += std::fabs(ours.values[i] - theirs.values[i]);
    mean /= double(ours.values.size());
    EXPECT_LE(max_difference(ours.values, theirs.values), 1e-3) << c.lsm;
    EXPECT_LE(mean, 5e-5) << c.lsm;
  }
}

TEST_F(CliImage, PyramidLevelsAndTheirCells) {
  const std::string in = make_raster("in.tif", 40, 30, 2, [](int x, int y, int b) { return float(x + 100 * y + 1000 * b); });
  ASSERT_EQ(run_lsm("pyramid " + in + " " + path("pyr") + " --levels 4 --scale 1.5 -q --tile-size 7").code, 0);
  const int widths[4] = {40, 27, 18, 12}, heights[4] = {30, 20, 13, 9};  // round(40 / 1.5^l), round(30 / 1.5^l)
  for (int l = 0; l < 4; ++l) {
    const Raster r = read(path("pyr/level_0" + std::to_string(l) + ".tif"));
    EXPECT_EQ(r.width, widths[l]);
    EXPECT_EQ(r.height, heights[l]);
    EXPECT_EQ(r.bands, 2);
    EXPECT_DOUBLE_EQ(r.gt[1], 10.0 * 40 / widths[l]);
    EXPECT_DOUBLE_EQ(r.gt[5], -10.0 * 30 / heights[l]);
    EXPECT_EQ(r.gt[3], 5100000);
    // A linear ramp stays linear under bilinear resampling away from the clamped edges:
    // value at level pixel (x, y) = u + 100 v (+1000 in band 2), u = (x + 0.5) sx - 0.5.
    const double sx = 40.0 / widths[l], sy = 30.0 / heights[l];
    const int x = widths[l] / 2, y = heights[l] / 2;
    EXPECT_NEAR(r.band[1][y * r.width + x], ((x + 0.5) * sx - 0.5) + 100 * ((y + 0.5) * sy - 0.5) + 1000, 1e-3);
  }
  EXPECT_EQ(read(path("pyr/level_00.tif")).band, read(in).band);
  // From the previous level: level 1 is the same, level 2 comes from level 1.
  ASSERT_EQ(run_lsm("pyramid " + in + " " + path("prev") + " --levels 3 --scale 1.5 --from previous -q --backend cpu").code, 0);
  EXPECT_EQ(read(path("prev/level_01.tif")).band, read(path("pyr/level_01.tif")).band);
  EXPECT_EQ(read(path("prev/level_02.tif")).width, 18);
  const auto before = files();
  expect_clean_failure(run_lsm("pyramid " + in + " " + path("bad") + " --levels 12 --scale 1.5 -q"),
                       "smaller than one pixel", before);
  expect_clean_failure(run_lsm("pyramid " + in + " " + path("bad") + " --scale 1 -q"), "--scale must be", before);
  expect_clean_failure(run_lsm("pyramid " + in + " " + path("bad") + " --resampling cubic -q"), "bilinear, area or gaussian",
                       before);
}

TEST_F(CliImage, GradientBands) {
  const std::string in = make_raster("ramp.tif", 30, 20, 1, [](int x, int, int) { return 2.0f * x; });
  ASSERT_EQ(run_lsm("gradient " + in + " " + path("g.tif") + " -q --tile-size 3").code, 0);
  const Raster r = read(path("g.tif"));
  ASSERT_EQ(r.bands, 4);
  EXPECT_EQ(r.names, (std::vector<std::string>{"gx", "gy", "magnitude", "orientation"}));
  EXPECT_EQ(r.gt[1], 10);
  for (int y = 0; y < 20; ++y)
    for (int x = 3; x < 27; ++x) {
      EXPECT_NEAR(r.band[0][y * 30 + x], 2.0f, 1e-5) << x << "," << y;
      EXPECT_NEAR(r.band[1][y * 30 + x], 0.0f, 1e-5);
      EXPECT_NEAR(r.band[3][y * 30 + x], 0.0f, 1e-5);
    }
  const std::string rgb = make_raster("rgb.tif", 30, 20, 3, [](int x, int y, int b) { return float(b == 1 ? x : y); });
  ASSERT_EQ(run_lsm("gradient " + rgb + " " + path("grey.tif") + " --grey -q").code, 0);
  // grey = 0.2125 y + 0.7154 x + 0.0721 y: gx = 0.7154, gy = 0.2846 inside.
  const Raster g = read(path("grey.tif"));
  EXPECT_NEAR(g.band[0][10 * 30 + 15], 0.7154f, 1e-5);
  EXPECT_NEAR(g.band[1][10 * 30 + 15], 0.2846f, 1e-5);
  const auto before = files();
  expect_clean_failure(run_lsm("gradient " + rgb + " " + path("x.tif") + " --grey --band 2 -q"), "exclude", before);
  expect_clean_failure(run_lsm("gradient " + in + " " + path("x.tif") + " --radius 40 -q"), "--radius", before);
  expect_clean_failure(run_lsm("gradient " + path("missing.tif") + " " + path("x.tif") + " -q"), "missing.tif", before);
}

TEST_F(CliImage, HogBadInput) {
  const std::string in = make_raster("small.tif", 20, 40, 1, [](int x, int y, int) { return float(x * y); });
  const auto before = files();
  expect_clean_failure(run_lsm("hog " + in + " " + path("h.npy") + " -q"), "smaller than one HOG block", before);
  expect_clean_failure(run_lsm("hog " + in + " " + path("h.npy") + " --cell 4 --norm L3 -q"), "--norm", before);
  expect_clean_failure(run_lsm("hog " + in + " " + path("h.npy") + " --cell 4 --variant other -q"), "--variant", before);
  expect_clean_failure(run_lsm("hog " + in + " " + path("h.npy") + " --cell 4 --variant dalal-triggs --window-sigma -2 -q"),
                       "--window-sigma", before);
  expect_clean_failure(run_lsm("hog " + in + " " + path("h.npy") + " --cell 4 --pyramid 3 -q"), "LEVELS,SCALE", before);
}

// The pedestrian frames through all three commands, HOG on all 31 levels.
TEST_F(CliImage, PedestrianPhotosEndToEnd) {
  const std::string dir = shared_data_dir() + "/photos/pedestrian/";
  LSM_REQUIRE_SHARED_FILE(dir + "opencv_vtest_pets2009_frame100.png");
  for (const std::string frame : {"opencv_vtest_pets2009_frame100.png", "opencv_vtest_pets2009_frame500.png"}) {
    const std::string photo = dir + frame;
    ASSERT_EQ(run_lsm("gradient " + photo + " " + path("g.tif") + " --grey -q").code, 0);
    ASSERT_EQ(run_lsm("pyramid " + photo + " " + path("pyr") + " -q").code, 0);
    ASSERT_EQ(run_lsm("hog " + photo + " " + path("h.npy") + " --pyramid 31,1.05 -q").code, 0);
    const Raster last = read(path("pyr/level_30.tif"));
    EXPECT_EQ(last.width, 178);  // 768 / 1.05^30
    EXPECT_EQ(last.height, 133);
    const NpyArray top = read_npy(path("h_level_30.npy"));
    EXPECT_EQ(top.shape, (std::vector<int64_t>{14, 20, 3, 3, 9}));  // 133 / 8 = 16, 178 / 8 = 22 cells
    double sum = 0;
    for (double v : top.values) {
      ASSERT_TRUE(v >= 0 && v <= 1) << v;
      sum += v;
    }
    // Unit-norm blocks of 81 values average 1/9 when flat and less when
    // peaked; a textured street scene is far from the empty image's 0.
    EXPECT_GT(sum, 0.05 * top.values.size());
    const Raster g = read(path("g.tif"));
    double magnitude = 0;
    for (float m : g.band[2]) magnitude += m;
    EXPECT_GT(magnitude / g.band[2].size(), 1.0) << frame;
  }
}

// lsm pyramid --overviews: the same overviews as gdaladdo -ro on copies of
// the same raster (mode on a categorical raster of odd size; average on
// Float32 with nodata, odd size: identical floats), and clear refusals.
TEST_F(CliImage, OverviewsEqualGdaladdo) {
  struct Case {
    const char* method;
    GDALDataType type;
  };
  for (const Case& c : {Case{"mode", GDT_Byte}, Case{"average", GDT_Float32}}) {
    const std::string ours = path(std::string(c.method) + "_lsm.tif"), theirs = path(std::string(c.method) + "_gdal.tif");
    for (const std::string& file : {ours, theirs}) {
      GDALAllRegister();
      GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(file.c_str(), 1001, 611, 1, c.type, nullptr);
      std::vector<float> v(1001 * 611);
      for (size_t i = 0; i < v.size(); ++i) {
        const size_t x = i % 1001, y = i / 1001;
        v[i] = c.type == GDT_Byte ? static_cast<float>((x / 7 + y / 5 + (x * y) % 3) % 6)
                                  : ((x * 31 + y * 17) % 23 == 0 ? -9999.0f : std::sin(0.01f * x) * 50.0f + 0.1f * y);
      }
      d->GetRasterBand(1)->SetNoDataValue(c.type == GDT_Byte ? 0.0 : -9999.0);
      EXPECT_EQ(d->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 1001, 611, v.data(), 1001, 611, GDT_Float32, 0, 0), CE_None);
      GDALClose(d);
    }
    const CliRun r = run_lsm("pyramid " + ours + " --overviews " + c.method + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_EQ(run_shell("gdaladdo -q -ro -r " + std::string(c.method) + " " + theirs + " 2 4").code, 0);
    GDALDataset* a = static_cast<GDALDataset*>(GDALOpen(ours.c_str(), GA_ReadOnly));
    GDALDataset* b = static_cast<GDALDataset*>(GDALOpen(theirs.c_str(), GA_ReadOnly));
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->GetRasterBand(1)->GetOverviewCount(), 2) << c.method;  // 501 x 306, 251 x 153
    for (int k = 0; k < 2; ++k) {
      GDALRasterBand* oa = a->GetRasterBand(1)->GetOverview(k);
      GDALRasterBand* ob = b->GetRasterBand(1)->GetOverview(k);
      ASSERT_EQ(oa->GetXSize(), ob->GetXSize());
      std::vector<float> va(static_cast<size_t>(oa->GetXSize()) * oa->GetYSize()), vb(va.size());
      EXPECT_EQ(oa->RasterIO(GF_Read, 0, 0, oa->GetXSize(), oa->GetYSize(), va.data(), oa->GetXSize(), oa->GetYSize(),
                             GDT_Float32, 0, 0), CE_None);
      EXPECT_EQ(ob->RasterIO(GF_Read, 0, 0, ob->GetXSize(), ob->GetYSize(), vb.data(), ob->GetXSize(), ob->GetYSize(),
                             GDT_Float32, 0, 0), CE_None);
      // Mode: identical. Average: GDAL sums its weighted terms in another
      // order in double, which can move the rounded float by one ulp.
      int64_t differing = 0;
      double worst = 0;
      for (size_t i = 0; i < va.size(); ++i)
        if (va[i] != vb[i]) {
          ++differing;
          worst = std::max(worst, std::fabs(double(va[i]) - vb[i]) / std::max(1.0, std::fabs(double(vb[i]))));
        }
      if (c.type == GDT_Byte) EXPECT_EQ(differing, 0) << c.method << " level " << k;
      EXPECT_LE(worst, 1.2e-7) << c.method << " level " << k;
      EXPECT_LE(differing, static_cast<int64_t>(va.size() / 100)) << c.method << " level " << k;
    }
    GDALClose(a);
    GDALClose(b);
  }
  const auto before = files();
  const std::string m = path("mode_lsm.tif");
  expect_clean_failure(run_lsm("pyramid " + m + " --overviews mode"), "already has overviews", before);
  expect_clean_failure(run_lsm("pyramid " + path("average_gdal.tif") + " --overviews average"), "already has overviews", before);
  expect_clean_failure(run_lsm("pyramid " + m + " " + path("dir") + " --overviews mode"), "give --output or --overviews (one of the two)", before);
  expect_clean_failure(run_lsm("pyramid " + m + " --overviews nearest"), "average or mode", before);
  expect_clean_failure(run_lsm("pyramid " + m), "give --output or --overviews (one of the two)", before);
  const std::string small = make_raster("small.tif", 200, 100, 1, [](int x, int, int) { return float(x); });
  const CliRun none = run_lsm("pyramid " + small + " --overviews average");
  EXPECT_EQ(none.code, 0);
  EXPECT_NE(none.out.find("no overviews needed"), std::string::npos);
}

}  // namespace
}  // namespace lsm::test
