// lsm window (issue 48): the output's bands, names and georeferencing; its
// values against `lsm metrics` on the window cut out with gdal_translate;
// window sizes in map units and cells; bad input refused before any output.
#include <cmath>
#include <fstream>

#include "cli_fixture.h"

namespace lsm::test {
namespace {

class CliWindow : public CliFixture {};

const std::string kSample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";  // 30 m cells, classes 1-5

// Column `name` of the second line of a FRAGSTATS table (the landscape row,
// or the class row of `type`).
double table_value(const std::string& csv, const std::string& name, const std::string& type = "") {
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> columns;
  std::stringstream h(header);
  for (std::string c; std::getline(h, c, ',');) columns.push_back(c);
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream l(line);
    for (std::string f; std::getline(l, f, ',');) fields.push_back(f);
    if (!type.empty() && fields.at(0) != type) continue;
    for (size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return fields.at(i).empty() ? std::nan("") : std::stod(fields.at(i));
  }
  return std::nan("");
}

TEST_F(CliWindow, ValuesEqualMetricsOnTheWindowCutOut) {
  const CliRun r = run_lsm("window " + kSample + " " + path("w.tif") + " --metrics SHDI,PLAND,CONTAG,ED,NP --level class,land --window-size 150 -q");
  ASSERT_EQ(r.code, 0) << r.err;
  GDALAllRegister();
  GDALDataset* out = static_cast<GDALDataset*>(GDALOpen(path("w.tif").c_str(), GA_ReadOnly));
  ASSERT_NE(out, nullptr);
  // PLAND, ED and NP of classes 1-5, then SHDI, CONTAG, ED and NP of the landscape (the order asked).
  ASSERT_EQ(out->GetRasterCount(), 19);
  EXPECT_STREQ(out->GetRasterBand(1)->GetDescription(), "PLAND class 1");
  EXPECT_STREQ(out->GetRasterBand(6)->GetDescription(), "ED class 1");
  EXPECT_STREQ(out->GetRasterBand(11)->GetDescription(), "NP class 1");
  EXPECT_STREQ(out->GetRasterBand(16)->GetDescription(), "SHDI");
  EXPECT_STREQ(out->GetRasterBand(18)->GetDescription(), "ED");
  EXPECT_STREQ(out->GetRasterBand(19)->GetDescription(), "NP");
  EXPECT_EQ(out->GetRasterBand(1)->GetRasterDataType(), GDT_Float32);
  double in_gt[6], out_gt[6];
  GDALDataset* in = static_cast<GDALDataset*>(GDALOpen(kSample.c_str(), GA_ReadOnly));
  in->GetGeoTransform(in_gt);
  out->GetGeoTransform(out_gt);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(in_gt[i], out_gt[i]);
  GDALClose(in);
  // 150 m at 30 m cells: 5 x 5. Three focal cells, each window cut out as its own raster.
  for (const auto& [x, y] : std::vector<std::pair<int, int>>{{100, 100}, {37, 250}, {399, 0}}) {
    const int x0 = std::max(0, x - 2), y0 = std::max(0, y - 2), x1 = std::min(399, x + 2), y1 = std::min(299, y + 2);
    const std::string cut = path("cut_" + std::to_string(x) + ".tif");
    ASSERT_EQ(std::system(("gdal_translate -q -srcwin " + std::to_string(x0) + " " + std::to_string(y0) + " " +
                           std::to_string(x1 - x0 + 1) + " " + std::to_string(y1 - y0 + 1) + " " + kSample + " " + cut)
                              .c_str()),
              0);
    const std::string prefix = path("cut_" + std::to_string(x));
    ASSERT_EQ(run_lsm("metrics " + cut + " --out " + prefix + " --level class,land --metrics SHDI,PLAND,CONTAG,ED,NP -q").code, 0);
    const std::string land = slurp(prefix + ".land.csv"), cls = slurp(prefix + ".class.csv");
    auto band = [&](int b) {
      float v = 0;
      EXPECT_EQ(out->GetRasterBand(b)->RasterIO(GF_Read, x, y, 1, 1, &v, 1, 1, GDT_Float32, 0, 0), CE_None);
      return static_cast<double>(v);
    };
    const std::string where = "focal cell " + std::to_string(x) + "," + std::to_string(y);
    EXPECT_NEAR(band(16), table_value(land, "SHDI"), 1e-5) << where;
    EXPECT_NEAR(band(18), table_value(land, "ED"), 1e-3) << where;
    EXPECT_EQ(band(19), table_value(land, "NP")) << where;
    const double contag = table_value(land, "CONTAG");  // empty for a window of one class
    if (std::isnan(contag)) EXPECT_TRUE(std::isnan(band(17))) << where;
    else EXPECT_NEAR(band(17), contag, 1e-4) << where;
    for (int c = 1; c <= 5; ++c) {  // a class absent from the window: no row, and 0 in the raster
      const double pland = table_value(cls, "PLAND", std::to_string(c)), np = table_value(cls, "NP", std::to_string(c));
      EXPECT_NEAR(band(c), std::isnan(pland) ? 0.0 : pland, 1e-4) << where << " class " << c;
      EXPECT_EQ(band(10 + c), std::isnan(np) ? 0.0 : np) << where << " class " << c;
    }
  }
  GDALClose(out);
}

TEST_F(CliWindow, SizesInCellsAndRoundWindows) {
  ASSERT_EQ(run_lsm("window " + kSample + " " + path("a.tif") + " --metrics SHDI --window-size 150 -q").code, 0);
  ASSERT_EQ(run_lsm("window " + kSample + " " + path("b.tif") + " --metrics SHDI --window-cells 5 -q").code, 0);
  EXPECT_EQ(slurp(path("a.tif")), slurp(path("b.tif")));  // 150 m at 30 m is 5 cells
  const CliRun round = run_lsm("window " + kSample + " " + path("c.tif") + " --metrics SHDI --window-size 100 --window-shape circle");
  ASSERT_EQ(round.code, 0) << round.err;
  EXPECT_NE(round.err.find("the window holds 37 cells (7 x 7, round); 1 band"), std::string::npos) << round.err;
  const CliRun skip = run_lsm("window " + kSample + " " + path("d.tif") + " --metrics PR --window-cells 5 --window-edge skip -q");
  ASSERT_EQ(skip.code, 0) << skip.err;
  GDALAllRegister();
  GDALDataset* d = static_cast<GDALDataset*>(GDALOpen(path("d.tif").c_str(), GA_ReadOnly));
  float corner = 0, inside = 0;
  ASSERT_EQ(d->GetRasterBand(1)->RasterIO(GF_Read, 1, 1, 1, 1, &corner, 1, 1, GDT_Float32, 0, 0), CE_None);
  ASSERT_EQ(d->GetRasterBand(1)->RasterIO(GF_Read, 2, 2, 1, 1, &inside, 1, 1, GDT_Float32, 0, 0), CE_None);
  GDALClose(d);
  EXPECT_TRUE(std::isnan(corner)) << "a window that leaves the raster has no value with --window-edge skip";
  EXPECT_GE(inside, 1);
}

// An edge depth file in windows: one depth of 60 m (2 cells) for every pair
// gives the bytes of --edge-depth 2; a file that lacks a class of the raster,
// or a depth that is no whole number of cells, is refused before any output.
TEST_F(CliWindow, EdgeDepthFile) {
  const auto fdt = [&](const std::string& name, const std::string& classes, int n, const std::string& depth) {
    std::string text = "FSQ_TABLE\nCLASS_LIST_NUMERIC(" + classes + ")\n";
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) text += (j ? "," : "") + depth;
      text += "\n";
    }
    std::ofstream(path(name)) << text;
    return path(name);
  };
  const std::string all = fdt("all.fdt", "1,2,3,4,5,999", 6, "60");
  const std::string run = "window " + kSample + " ";
  const std::string metrics = " --metrics TCA,CPLAND,NDCA --level class,land --window-cells 9 -q";
  ASSERT_EQ(run_lsm(run + path("t.tif") + metrics + " --edge-depth-table " + all).code, 0);
  ASSERT_EQ(run_lsm(run + path("d.tif") + metrics + " --edge-depth 2").code, 0);
  EXPECT_EQ(slurp(path("t.tif")), slurp(path("d.tif")));
  const std::string few = fdt("few.fdt", "1,2,999", 3, "30"), odd = fdt("odd.fdt", "1,2,3,4,5,999", 6, "45");
  const auto before = files();
  expect_clean_failure(run_lsm(run + path("o.tif") + metrics + " --edge-depth-table " + few),
                       "lists no class 3, which is in the raster", before);
  expect_clean_failure(run_lsm(run + path("o.tif") + metrics + " --edge-depth-table " + odd),
                       "is not a whole number of the raster's 30 m cells", before);
  expect_clean_failure(run_lsm(run + path("o.tif") + metrics + " --edge-depth 3 --edge-depth-table " + all),
                       "exclude each other", before);
}

TEST_F(CliWindow, BadInputIsRefusedBeforeAnyOutput) {
  const std::string run = "window " + kSample + " " + path("o.tif");
  const auto before = files();
  expect_clean_failure(run_lsm(run + " --metrics SHDI"), "--window-size or --window-cells", before);
  expect_clean_failure(run_lsm(run + " --metrics SHDI --window-size 150 --window-cells 5"), "--window-size", before);
  expect_clean_failure(run_lsm(run + " --metrics SHDI --window-cells 4"), "--window-cells must be odd for a square window", before);
  expect_clean_failure(run_lsm(run + " --metrics SHDI --window-cells 301"), "is larger than the raster (400 x 300)", before);
  expect_clean_failure(run_lsm(run + " --metrics SHDII --window-cells 5"), "did you mean SHDI?", before);
  expect_clean_failure(run_lsm(run + " --metrics GISFRAG --window-cells 5"), "GISFRAG is a FRAGSTATS metric that lsm does not compute yet", before);
  expect_clean_failure(run_lsm(run + " --metrics PROX_MN --window-cells 5"),
                       "PROX needs FRAGSTATS' search radius (--search-radius METRES)", before);
  expect_clean_failure(run_lsm(run + " --metrics CONNECT --window-cells 5"),
                       "CONNECT needs FRAGSTATS' threshold distance (--threshold-distance METRES)", before);
  expect_clean_failure(run_lsm(run + " --metrics CONNECT --window-cells 5 --threshold-distance 0"),
                       "--threshold-distance must be more than 0 m", before);
  expect_clean_failure(run_lsm(run + " --metrics PLAND --level land --window-cells 5"), "PLAND is not a landscape metric", before);
  expect_clean_failure(run_lsm(run + " --metrics PLAND --class-codes 9 --window-cells 5"), "class 9 is not in the raster", before);
  expect_clean_failure(run_lsm(run + " --metrics SHDI --window-size -3"), "--window-size", before);
  // The GPUs do not compute COHESION or NP in large windows yet: --backend cuda says so, GPU or not.
  expect_clean_failure(run_lsm(run + " --metrics COHESION --window-cells 5 --backend cuda"),
                       "the CUDA backend does not compute this moving window: COHESION (class level) is not computed on "
                       "the GPU yet",
                       before);
  expect_clean_failure(run_lsm(run + " --metrics NP --level land --window-cells 47 --backend cuda"),
                       "in windows of at most 2048 cells (45 x 45); this one has 2209", before);
  expect_clean_failure(run_lsm(run + " --metrics SHDI --window-cells 5 --backend gpu"), "--backend", before);
}

}  // namespace
}  // namespace lsm::test
