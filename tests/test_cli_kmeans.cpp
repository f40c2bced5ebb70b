// lsm kmeans: classes of a multiband GeoTIFF (georeferencing, nodata, --init),
// the vegetation segmentation of the carrot-weed photo against its mask
// (../shared/data), and one clear error line for bad input.
#include <gdal_priv.h>
#include <gdal_utils.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "shared_data.h"

namespace lsm::test {
namespace {

class CliKMeans : public CliFixture {
 protected:
  // A 4 x 2 three-band Byte GeoTIFF (UTM 32N, 10 m cells), nodata 0 on every band.
  std::string make_rgb(const std::string& name, const std::vector<uint8_t>& cells) {
    GDALAllRegister();
    GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path(name).c_str(), 4, 2, 3, GDT_Byte,
                                                                               nullptr);
    double gt[6] = {600000, 10, 0, 5100000, 0, -10};
    d->SetGeoTransform(gt);
    OGRSpatialReference srs;
    srs.importFromEPSG(32632);
    d->SetSpatialRef(&srs);
    for (int b = 1; b <= 3; ++b) d->GetRasterBand(b)->SetNoDataValue(0);
    std::vector<uint8_t> v = cells;  // pixel-interleaved
    EXPECT_EQ(d->RasterIO(GF_Write, 0, 0, 4, 2, v.data(), 4, 2, GDT_Byte, 3, nullptr, 3, 12, 1), CE_None);
    GDALClose(d);
    return path(name);
  }

  static std::vector<uint8_t> read_band(const std::string& file, int* w = nullptr, int* h = nullptr,
                                        double* gt = nullptr, GDALDataType* type = nullptr) {
    GDALDataset* d = static_cast<GDALDataset*>(GDALOpen(file.c_str(), GA_ReadOnly));
    EXPECT_NE(d, nullptr) << file;
    if (!d) return {};
    const int W = d->GetRasterXSize(), H = d->GetRasterYSize();
    std::vector<uint8_t> v(static_cast<size_t>(W) * H);
    EXPECT_EQ(d->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, W, H, v.data(), W, H, GDT_Byte, 0, 0), CE_None);
    if (w) *w = W;
    if (h) *h = H;
    if (gt) d->GetGeoTransform(gt);
    if (type) *type = d->GetRasterBand(1)->GetRasterDataType();
    GDALClose(d);
    return v;
  }

  static double json_number(const std::string& json, const std::string& key) {
    return nlohmann::json::parse(json).at(key).get<double>();
  }
};

// Two colours and a nodata cell; --init puts class 1 near the dark cells.
TEST_F(CliKMeans, ClassesOfAMultibandGeoTiff) {
  const std::string in = make_rgb("rgb.tif", {10, 10, 10, 12, 12, 12, 0, 0, 0, 11, 10, 12,  //
                                              200, 190, 180, 202, 190, 180, 10, 12, 11, 201, 191, 181});
  std::ofstream(path("init.txt")) << "# dark\n0 0 0\n255, 255, 255\n";
  ASSERT_EQ(run_lsm("kmeans " + in + " " + path("k.tif") + " --k 2 --init " + path("init.txt") + " --stats " +
                    path("k.json") + " -q --backend cpu")
                .code,
            0);
  int w = 0, h = 0;
  double gt[6] = {0};
  GDALDataType type = GDT_Unknown;
  EXPECT_EQ(read_band(path("k.tif"), &w, &h, gt, &type), (std::vector<uint8_t>{1, 1, 0, 1, 2, 2, 1, 2}));
  EXPECT_EQ(type, GDT_Byte);
  EXPECT_EQ(gt[0], 600000);
  EXPECT_EQ(gt[1], 10);
  const std::string json = slurp(path("k.json"));
  EXPECT_EQ(json_number(json, "valid_cells"), 7);
  // Dark cluster: (10,10,10) (12,12,12) (11,10,12) (10,12,11) -> mean (10.75, 11, 11.25).
  const nlohmann::json clusters = nlohmann::json::parse(json).at("clusters");
  ASSERT_EQ(clusters.size(), 2u) << json;
  EXPECT_EQ(clusters[0]["count"], 4);
  EXPECT_EQ(clusters[0]["centre"], (std::vector<double>{10.75, 11, 11.25}));
  EXPECT_EQ(clusters[1]["count"], 3);
  EXPECT_EQ(clusters[1]["centre"][0], 201);
  EXPECT_NEAR(clusters[1]["centre"][1].get<double>(), 190.3333, 1e-4);
}

TEST_F(CliKMeans, BadInput) {
  const std::string rgb = make_rgb("rgb.tif", std::vector<uint8_t>(24, 7));
  const std::string one = write_4x3("one.tif", GDT_Byte, {0, 1, 0, 0, 0, -1}, 32632, std::vector<double>(12, 3));
  const auto before = files();
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k 0"), "--k must be in 2..65534", before);
  // One cluster would write a raster of one class: refused, and dialogs start at 2.
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k 1"), "--k must be in 2..65534", before);
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k -2"), "--k", before);
  expect_clean_failure(run_lsm("kmeans " + one + " " + path("o.tif") + " --k 2 --color-space lab"),
                       "--color-space lab needs 3 bands", before);
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k 2 --bands 1,5"),
                       "band 5 is out of range", before);
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k 2 --select greenest"),
                       "needs --color-space lab", before);
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k 2 --color-space hsv"),
                       "--color-space must be none or lab", before);
  expect_clean_failure(run_lsm("kmeans " + path("nothing.tif") + " " + path("o.tif") + " --k 2"), "no such file",
                       before);
  // One colour only: two clusters cannot be seeded.
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k 2 -q"), "distinct", before);
  // An unwritable --stats: neither output is left.
  const std::string varied = make_rgb("varied.tif", {0, 0, 0, 200, 200, 200, 10, 10, 10, 190, 190, 190,
                                                     5, 5, 5, 210, 210, 210, 0, 0, 0, 200, 200, 200});
  const auto with_varied = files();
  expect_clean_failure(run_lsm("kmeans " + varied + " " + path("o.tif") + " --k 2 --stats " + path("no/such.json") + " -q"),
                       "cannot write", with_varied);
}

TEST_F(CliKMeans, BadInitFile) {
  const std::string rgb = make_rgb("rgb.tif", std::vector<uint8_t>(24, 7));
  std::ofstream(path("init.txt")) << "1 2 3\n4 5\n";
  const auto before = files();
  expect_clean_failure(run_lsm("kmeans " + rgb + " " + path("o.tif") + " --k 2 --init " + path("init.txt")),
                       "init.txt:2: 2 values, expected one per band (3)", before);
}

// The seed paper's pipeline on a real field photo, downsampled 2x: L*a*b*,
// k = 4, the greenest cluster. A standard K-means reaches IoU ~0.88 with the
// hand-made vegetation mask.
TEST_F(CliKMeans, CarrotWeedVegetationMask) {
  const std::string photo = shared_data_dir() + "/photos/field/carrotweed_IMG_3445_upright.jpg";
  const std::string truth = shared_data_dir() + "/photos/field/carrotweed_IMG_3445_vegetation_mask.png";
  LSM_REQUIRE_SHARED_FILE(photo);
  LSM_REQUIRE_SHARED_FILE(truth);
  GDALAllRegister();
  {  // 2x downsampling by averaging, as gdal_translate -outsize 50% 50% -r average does
    GDALDatasetH src = GDALOpen(photo.c_str(), GA_ReadOnly);
    ASSERT_NE(src, nullptr);
    const char* argv[] = {"-outsize", "50%", "50%", "-r", "average", nullptr};
    GDALTranslateOptions* opt = GDALTranslateOptionsNew(const_cast<char**>(argv), nullptr);
    GDALDatasetH half = GDALTranslate(path("half.tif").c_str(), src, opt, nullptr);
    GDALTranslateOptionsFree(opt);
    ASSERT_NE(half, nullptr);
    GDALClose(half);
    GDALClose(src);
  }
  ASSERT_EQ(run_lsm("kmeans " + path("half.tif") + " " + path("veg.tif") +
                    " --k 4 --color-space lab --select greenest --stats " + path("one.json") + " -q")
                .code,
            0);
  int w = 0, h = 0;
  const std::vector<uint8_t> mask = read_band(path("veg.tif"), &w, &h);
  // The reference: vegetation where any of R, G, B > 0, at the 2x2 majority.
  GDALDataset* t = static_cast<GDALDataset*>(GDALOpen(truth.c_str(), GA_ReadOnly));
  ASSERT_NE(t, nullptr);
  const int TW = t->GetRasterXSize(), TH = t->GetRasterYSize();
  ASSERT_EQ(TW / 2, w);
  ASSERT_EQ(TH / 2, h);
  std::vector<uint8_t> rgb(static_cast<size_t>(TW) * TH * 3);
  ASSERT_EQ(t->RasterIO(GF_Read, 0, 0, TW, TH, rgb.data(), TW, TH, GDT_Byte, 3, nullptr, 3, 3 * TW, 1), CE_None);
  GDALClose(t);
  auto vegetation = [&](int x, int y) {
    const uint8_t* p = rgb.data() + (static_cast<size_t>(y) * TW + x) * 3;
    return p[0] > 0 || p[1] > 0 || p[2] > 0;
  };
  int64_t both = 0, either = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int votes = vegetation(2 * x, 2 * y) + vegetation(2 * x + 1, 2 * y) + vegetation(2 * x, 2 * y + 1) +
                        vegetation(2 * x + 1, 2 * y + 1);
      const bool ref = votes >= 2, ours = mask[static_cast<size_t>(y) * w + x] == 1;
      both += ref && ours;
      either += ref || ours;
    }
  const double iou = double(both) / double(either);
  EXPECT_GE(iou, 0.85);
  RecordProperty("IoU", std::to_string(iou));

  // The inertia of one run is within 1% of the best of several k-means++ restarts.
  ASSERT_EQ(run_lsm("kmeans " + path("half.tif") + " " + path("classes.tif") +
                    " --k 4 --color-space lab --n-init 6 --seed 9 --stats " + path("six.json") + " -q")
                .code,
            0);
  const double one_run = json_number(slurp(path("one.json")), "inertia");
  const double best = json_number(slurp(path("six.json")), "inertia");
  EXPECT_LE(one_run, best * 1.01);
  EXPECT_GT(one_run, 0);
}

}  // namespace
}  // namespace lsm::test
