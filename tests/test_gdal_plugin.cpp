// gdal_LSM.so through GDAL's own tools (issue 8): with GDAL_DRIVER_PATH at
// the build's plugin folder, gdalinfo lists the driver and documents its
// options, gdal_translate of LSM: connection strings equals the lsm CLI's
// outputs cell for cell, gdalinfo -stats reads a derived raster, and bad
// connection strings fail the GDAL way (an ERROR line, a non-zero exit).
#include <gdal_priv.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_fixture.h"
#include "shared_data.h"

namespace lsm::test {
namespace {

class GdalPlugin : public CliFixture {
 protected:
  // A GDAL tool with the plugin folder on GDAL_DRIVER_PATH.
  CliRun gdal(const std::string& tool_and_args) { return run_gdal_tool(tool_and_args); }
  std::string sample() const { return std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif"; }
  static bool same_bits(const Raster& a, const Raster& b) {
    if (a.bands != b.bands || a.band.size() != b.band.size()) return false;
    for (size_t i = 0; i < a.band.size(); ++i)
      if (a.band[i].size() != b.band[i].size() ||
          std::memcmp(a.band[i].data(), b.band[i].data(), a.band[i].size() * sizeof(float)) != 0)
        return false;
    return true;
  }
};

TEST_F(GdalPlugin, GdalinfoListsAndDocumentsTheDriver) {
  const CliRun formats = gdal("gdalinfo --formats");
  ASSERT_EQ(formats.code, 0) << formats.err;
  EXPECT_NE(formats.out.find("LSM -raster- (ro)"), std::string::npos) << formats.out;
  const CliRun format = gdal("gdalinfo --format LSM");
  ASSERT_EQ(format.code, 0) << format.err;
  EXPECT_NE(format.out.find("Connection prefix: LSM:"), std::string::npos);
  for (const char* option : {"NEIGHBORS", "SIGMA", "SEEDS", "VOLUME", "BACKEND"})
    EXPECT_NE(format.out.find(std::string("name=\"") + option + "\""), std::string::npos) << option;
}

TEST_F(GdalPlugin, TranslatedLabelsEqualLsmLabel) {
  for (const char* rule : {"4", "8"}) {
    ASSERT_EQ(run_lsm("label " + sample() + " " + path("cli.tif") + " --neighbors " + rule + " -q").code, 0);
    const CliRun r = gdal("gdal_translate -q LSM:label:neighbors=" + std::string(rule) + ":" + sample() + " " + path("drv.tif"));
    ASSERT_EQ(r.code, 0) << r.err;
    const Raster cli = read(path("cli.tif")), drv = read(path("drv.tif"));
    EXPECT_TRUE(same_bits(cli, drv)) << "neighbors=" << rule;
    EXPECT_GT(*std::max_element(drv.band[0].begin(), drv.band[0].end()), 100.0f);  // many patches
    for (int i = 0; i < 6; ++i) EXPECT_EQ(drv.gt[i], cli.gt[i]);
  }
  // The same through an open option.
  ASSERT_EQ(gdal("gdal_translate -q LSM:label:" + sample() + " -oo NEIGHBORS=4 " + path("oo.tif")).code, 0);
  ASSERT_EQ(run_lsm("label " + sample() + " " + path("cli4.tif") + " --neighbors 4 -q").code, 0);
  EXPECT_TRUE(same_bits(read(path("oo.tif")), read(path("cli4.tif"))));
}

// Ctrl-C (SIGINT) or SIGTERM while a GDAL tool reads an operation's raster
// ends the tool as before, and leaves nothing in the temporary folder: no
// half-written result, no finished one (issue 46 item 14). A read that ends
// normally leaves nothing either.
TEST_F(GdalPlugin, InterruptedReadsLeaveNoTemporaryFiles) {
  ASSERT_EQ(run_lsm("synth " + path("big.tif") + " --width 3000 --height 3000 --feature-size 4 -q").code, 0);
  std::filesystem::create_directories(path("tmp"));
  const std::string tmp = "CPL_TMPDIR=" + path("tmp") + " ";
  const std::string read_labels = "gdal_translate -q LSM:label:" + path("big.tif") + " ";
  for (const char* signal_name : {"INT", "TERM"}) {
    const CliRun killed = gdal(tmp + "timeout -s " + std::string(signal_name) + " 0.4 " + read_labels + path("k.tif"));
    EXPECT_EQ(killed.code, 124) << "the read ended before SIG" << signal_name << ": make the raster larger";
    EXPECT_TRUE(std::filesystem::is_empty(path("tmp"))) << "SIG" << signal_name << " left a temporary file";
  }
  const CliRun whole = gdal(tmp + read_labels + path("whole.tif"));
  ASSERT_EQ(whole.code, 0) << whole.err;
  EXPECT_TRUE(std::filesystem::is_empty(path("tmp")));
}

TEST_F(GdalPlugin, GradientStatisticsAndCellsEqualLsmGradient) {
  const CliRun stats = gdal("gdalinfo -stats LSM:gradient:sigma=1.5:" + sample());
  ASSERT_EQ(stats.code, 0) << stats.err;
  size_t found = 0;
  for (size_t at = stats.out.find("STATISTICS_MEAN="); at != std::string::npos; at = stats.out.find("STATISTICS_MEAN=", at + 1))
    ++found;
  EXPECT_EQ(found, 4u) << stats.out;  // gx, gy, magnitude, orientation
  EXPECT_NE(stats.out.find("Description = magnitude"), std::string::npos);
  ASSERT_EQ(gdal("gdal_translate -q LSM:gradient:sigma=1.5:" + sample() + " " + path("drv.tif")).code, 0);
  ASSERT_EQ(run_lsm("gradient " + sample() + " " + path("cli.tif") + " --sigma 1.5 -q").code, 0);
  EXPECT_TRUE(same_bits(read(path("cli.tif")), read(path("drv.tif"))));
}

TEST_F(GdalPlugin, FuzzySceneEqualsLsmFuzzy) {
  const std::string in = make_raster("blob.tif", 60, 40, 1, [](int x, int y, int) {
    const float dx = x - 20.0f, dy = y - 18.0f;
    return dx * dx + dy * dy < 150.0f ? 100.0f + static_cast<float>((x * 3 + y * 5) % 7) : 10.0f;
  });
  ASSERT_EQ(gdal("gdal_translate -q LSM:fuzzy:seeds=20,18:adjacency=8:" + in + " " + path("drv.tif")).code, 0);
  ASSERT_EQ(run_lsm("fuzzy " + in + " " + path("cli.tif") + " --seed 20,18 --adjacency 8 -q").code, 0);
  const Raster drv = read(path("drv.tif"));
  EXPECT_TRUE(same_bits(read(path("cli.tif")), drv));
  EXPECT_EQ(drv.band[0][18 * 60 + 20], 1.0f);
  EXPECT_EQ(drv.band[0][0], 0.0f);
  // Relative fuzzy connectedness, with a background seed, as the CLI's.
  ASSERT_EQ(gdal("gdal_translate -q 'LSM:fuzzy:seeds=20,18:relative=YES:background_cell=2,2;55,35:" + in + "' " +
                 path("drv_rel.tif")).code, 0);
  ASSERT_EQ(run_lsm("fuzzy " + in + " " + path("cli_rel.tif") +
                    " --seed-cell 20,18 --relative --background-cell 2,2 --background-cell 55,35 -q").code, 0);
  const Raster relative = read(path("drv_rel.tif"));
  EXPECT_TRUE(same_bits(read(path("cli_rel.tif")), relative));
  EXPECT_FALSE(same_bits(relative, drv)) << "relative=YES changed nothing";
}

TEST_F(GdalPlugin, KMeansClassesEqualLsmKmeans) {
  ASSERT_EQ(gdal("gdal_translate -q LSM:kmeans:k=4:seed=3:" + sample() + " " + path("drv.tif")).code, 0);
  ASSERT_EQ(run_lsm("kmeans " + sample() + " " + path("cli.tif") + " --k 4 --seed 3 -q").code, 0);
  const Raster drv = read(path("drv.tif")), cli = read(path("cli.tif"));
  EXPECT_EQ(drv.band, cli.band);
  EXPECT_EQ(*std::max_element(drv.band[0].begin(), drv.band[0].end()), 4.0f);
  // The options that shape the clustering are the driver's too.
  ASSERT_EQ(gdal("gdal_translate -q LSM:kmeans:k=3:seed=3:tol=0.5:bands=1:" + sample() + " " + path("drv_tol.tif")).code, 0);
  ASSERT_EQ(run_lsm("kmeans " + sample() + " " + path("cli_tol.tif") + " --k 3 --seed 3 --tol 0.5 --bands 1 -q").code, 0);
  EXPECT_EQ(read(path("drv_tol.tif")).band, read(path("cli_tol.tif")).band);
  const CliRun missing = gdal("gdalinfo LSM:kmeans:" + sample());
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("needs the option k=K"), std::string::npos) << missing.err;
}

// LSM:window gives the same bands and cells as lsm window, NaN where
// undefined included.
TEST_F(GdalPlugin, WindowBandsEqualLsmWindow) {
  ASSERT_EQ(gdal("gdal_translate -q LSM:window:metrics=SHDI,PLAND,NP:window_cells=5:window_shape=circle:" + sample() + " " +
                 path("drv.tif")).code, 0);
  ASSERT_EQ(run_lsm("window " + sample() + " " + path("cli.tif") +
                    " --metrics SHDI,PLAND,NP --window-cells 5 --window-shape circle -q").code, 0);
  const Raster drv = read(path("drv.tif")), cli = read(path("cli.tif"));
  ASSERT_EQ(drv.band.size(), 12u);  // PLAND and NP of classes 1-5, SHDI and NP of the landscape
  EXPECT_TRUE(same_bits(cli, drv));
  const CliRun info = gdal("gdalinfo LSM:window:metrics=SHDI:window_cells=5:" + sample());
  EXPECT_NE(info.out.find("Description = SHDI"), std::string::npos) << info.out;
  const CliRun even = gdal("gdalinfo LSM:window:metrics=SHDI:window_cells=4:" + sample());
  EXPECT_NE(even.code, 0);
  EXPECT_NE(even.err.find("option window_cells must be odd for a square window"), std::string::npos) << even.err;
}

// LSM:window is served strip by strip: the classes are read when the
// dataset opens, each strip of rows when a block of it is first read. A part
// read alone (rows far down, columns in the middle) equals the same part of
// lsm window's raster, also with strips of a few rows (a small memory limit).
TEST_F(GdalPlugin, WindowStripsReadOnDemandEqualLsmWindow) {
  ASSERT_EQ(run_lsm("window " + sample() + " " + path("cli.tif") + " --metrics AREA_MN,SHDI,NP --window-cells 7 -q").code, 0);
  ASSERT_EQ(gdal("gdal_translate -q -srcwin 100 230 120 50 " + path("cli.tif") + " " + path("cli_part.tif")).code, 0);
  for (const std::string limit : {"", ":memory_limit=2M"}) {
    SCOPED_TRACE(limit);
    const std::string source = "LSM:window:metrics=AREA_MN,SHDI,NP:window_cells=7" + limit + ":" + sample();
    ASSERT_EQ(gdal("gdal_translate -q -srcwin 100 230 120 50 " + source + " " + path("drv_part.tif")).code, 0);
    EXPECT_TRUE(same_bits(read(path("cli_part.tif")), read(path("drv_part.tif"))));
    const CliRun info = gdal("gdalinfo " + source);
    // 13 bands of 400 cells a row (20 800 bytes): a quarter of 2 MiB holds 25 rows.
    EXPECT_NE(info.out.find(limit.empty() ? "Block=256x256" : "Block=256x25"), std::string::npos) << info.out;
  }
}

TEST_F(GdalPlugin, PyramidLevelEqualsLsmPyramid) {
  ASSERT_EQ(run_lsm("pyramid " + sample() + " " + path("levels") + " --levels 8 --resampling area -q").code, 0);
  ASSERT_EQ(gdal("gdal_translate -q LSM:pyramid:level=7:resampling=area:" + sample() + " " + path("drv.tif")).code, 0);
  const Raster cli = read(path("levels/level_07.tif")), drv = read(path("drv.tif"));
  EXPECT_EQ(drv.width, cli.width);
  EXPECT_EQ(drv.height, cli.height);
  EXPECT_TRUE(same_bits(cli, drv));
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(drv.gt[i], cli.gt[i]);
}

TEST_F(GdalPlugin, HogDescriptorsEqualLsmHog) {
  ASSERT_EQ(run_lsm("hog " + sample() + " " + path("cli.tif") + " --cell 6 --block 2 --norm L1 -q").code, 0);
  ASSERT_EQ(gdal("gdal_translate -q LSM:hog:cell=6:block=2:norm=L1:" + sample() + " " + path("drv.tif")).code, 0);
  const Raster cli = read(path("cli.tif")), drv = read(path("drv.tif"));
  EXPECT_EQ(drv.bands, 2 * 2 * 9);
  EXPECT_TRUE(same_bits(cli, drv));
  EXPECT_EQ(drv.names, cli.names);
  // The Dalal-Triggs variant and its window.
  ASSERT_EQ(run_lsm("hog " + sample() + " " + path("dt.tif") + " --cell 6 --block 2 --variant dalal-triggs "
                    "--window-sigma 5 -q").code, 0);
  ASSERT_EQ(gdal("gdal_translate -q LSM:hog:cell=6:block=2:variant=dalal-triggs:window_sigma=5:" + sample() + " " +
                 path("dt_drv.tif")).code, 0);
  const Raster dt_cli = read(path("dt.tif")), dt_drv = read(path("dt_drv.tif"));
  EXPECT_TRUE(same_bits(dt_cli, dt_drv));
}

// Every cell of LSM:patchmetric holds its patch's value in lsm metrics' patch
// table (joined through lsm label's patch IDs); gdalinfo -stats reads it.
TEST_F(GdalPlugin, PatchMetricRasterHoldsThePatchTable) {
  ASSERT_EQ(run_lsm("metrics " + sample() + " --out " + path("m") + " --level patch -q").code, 0);
  ASSERT_EQ(run_lsm("label " + sample() + " " + path("ids.tif") + " -q").code, 0);
  std::ifstream csv(path("m.patch.csv"));
  std::string header, line;
  ASSERT_TRUE(std::getline(csv, header));
  std::vector<std::string> columns;
  {
    std::stringstream h(header);
    for (std::string col; std::getline(h, col, ',');) columns.push_back(col);
  }
  std::map<std::string, std::map<uint32_t, double>> table;  // metric -> PID -> value
  while (std::getline(csv, line)) {
    std::stringstream row(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    const uint32_t pid = static_cast<uint32_t>(std::stoul(cells[0]));
    for (size_t c = 2; c < cells.size() && c < columns.size(); ++c)
      table[columns[c]][pid] = cells[c].empty() ? NAN : std::stod(cells[c]);
  }
  ASSERT_EQ(columns[0], "PID");
  const Raster ids = read(path("ids.tif"));
  for (const char* metric : {"AREA", "PERIM", "SHAPE", "CORE"}) {
    const CliRun stats = gdal("gdalinfo -stats LSM:patchmetric:metric=" + std::string(metric) + ":" + sample());
    ASSERT_EQ(stats.code, 0) << stats.err;
    EXPECT_NE(stats.out.find("STATISTICS_MEAN="), std::string::npos);
    ASSERT_EQ(gdal("gdal_translate -q LSM:patchmetric:metric=" + std::string(metric) + ":" + sample() + " " +
                   path(std::string(metric) + ".tif")).code, 0);
    GDALAllRegister();
    GDALDataset* d = static_cast<GDALDataset*>(GDALOpen(path(std::string(metric) + ".tif").c_str(), GA_ReadOnly));
    ASSERT_NE(d, nullptr);
    std::vector<double> values(static_cast<size_t>(ids.width) * ids.height);
    ASSERT_EQ(d->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, ids.width, ids.height, values.data(), ids.width, ids.height,
                                            GDT_Float64, 0, 0), CE_None);
    EXPECT_EQ(d->GetRasterBand(1)->GetRasterDataType(), GDT_Float64);
    GDALClose(d);
    int64_t mismatches = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const uint32_t pid = static_cast<uint32_t>(ids.band[0][i]);
      mismatches += !(values[i] == table[metric].at(pid));
    }
    EXPECT_EQ(mismatches, 0) << metric;
  }
}

TEST_F(GdalPlugin, BadConnectionStringsFailTheGdalWay) {
  struct Case {
    std::string connection, phrase;
  };
  for (const Case& c : {Case{"LSM:nope:" + sample(), "unknown LSM operation 'nope'"},
                        Case{"LSM:label:foo=1:" + sample(), "unknown option 'foo'"},
                        Case{"LSM:label:neighbors=6:" + sample(), "neighbors must be 4 or 8"},
                        Case{"LSM:label:" + path("missing.tif"), "no such file"},
                        Case{"LSM:fuzzy:" + sample(), "needs the option seeds"},
                        Case{"LSM:label", "has no path"},
                        Case{"LSM:patchmetric:metric=XYZ:" + sample(), "is not a patch metric"}}) {
    const CliRun r = gdal("gdalinfo '" + c.connection + "'");
    EXPECT_NE(r.code, 0) << c.connection;
    EXPECT_NE(r.err.find("ERROR"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.phrase), std::string::npos) << "expected '" << c.phrase << "' in: " << r.err;
  }
}

}  // namespace
}  // namespace lsm::test
