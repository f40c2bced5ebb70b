// The lsm command line: outputs, progress, and one clear error line (with a
// non-zero exit and no files left behind) for every kind of bad input.
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_fixture.h"
#include "gdal_class_raster.h"
#include "shared_data.h"
#include "test_helpers.h"

namespace fs = std::filesystem;

namespace lsm::test {
namespace {

class Cli : public CliFixture {
 protected:
  // A 4 x 3 GeoTIFF of `type` with the given values, 1 m cells in a projected CRS (UTM 32N).
  std::string make_raster(const std::string& name, GDALDataType type, const std::vector<double>& values) {
    return write_4x3(name, type, {500000, 1, 0, 5000000, 0, -1}, 32632, values);
  }
};

TEST_F(Cli, SynthMetricsAndLabelAgree) {
  ASSERT_EQ(run_lsm("synth " + path("nlm.tif") + " --width 300 --height 200 --classes 4 --seed 3 -q").code, 0);
  const CliRun m = run_lsm("metrics " + path("nlm.tif") + " --out " + path("m") + " --tile-size 64");
  ASSERT_EQ(m.code, 0) << m.err;
  // GDAL's terminal progress, on stderr: stdout carries results alone (--print).
  EXPECT_EQ(m.err.rfind("0...10...20...30...40...50...60...70...80...90...100 - done.\n", 0), 0u) << m.err;
  EXPECT_EQ(m.out, "");
  const CliRun printed = run_lsm("metrics " + path("nlm.tif") + " --out " + path("p") + " --print");
  ASSERT_EQ(printed.code, 0) << printed.err;
  EXPECT_EQ(printed.out.find("done."), std::string::npos) << printed.out;
  EXPECT_NE(printed.out.find("Class metrics"), std::string::npos) << printed.out;
  EXPECT_NE(printed.err.find("100 - done."), std::string::npos) << printed.err;
  ASSERT_EQ(run_lsm("label " + path("nlm.tif") + " " + path("ids.tif") + " --tile-size 17 -q").code, 0);

  // Each patch ID's cell count equals the patch table's AREA / cell area, and its class the TYPE.
  GdalClassRaster classes(path("nlm.tif"), 1), ids(path("ids.tif"), 1);
  std::vector<int32_t> c(300 * 200), id(300 * 200);
  classes.read({0, 0, 300, 200}, c.data());
  ids.read({0, 0, 300, 200}, id.data());
  std::map<int32_t, std::pair<int64_t, int32_t>> by_id;  // cells, class
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_GT(id[i], 0);
    by_id[id[i]].first++;
    by_id[id[i]].second = c[i];
  }
  std::ifstream patch(path("m.patch.csv"));
  std::string line;
  std::getline(patch, line);
  EXPECT_EQ(line.rfind("PID,TYPE,AREA,PERIM,GYRATE,PARA,SHAPE,FRAC,CIRCLE,CONTIG,CORE,NCORE,CAI,ECON,ENN", 0), 0u) << line;
  size_t rows = 0;
  while (std::getline(patch, line)) {
    int pid, type;
    double area, perim;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d,%d,%lf,%lf", &pid, &type, &area, &perim), 4) << line;
    ASSERT_EQ(by_id.count(pid), 1u);
    EXPECT_EQ(by_id[pid].second, type) << "PID " << pid;
    EXPECT_NEAR(by_id[pid].first * 0.09, area, 1e-9) << "PID " << pid;
    ++rows;
  }
  EXPECT_EQ(rows, by_id.size());

  // Same tables for another tile size and a strip layout, byte for byte.
  ASSERT_EQ(run_lsm("metrics " + path("nlm.tif") + " --out " + path("s") + " --tile-size 300x1 -q").code, 0);
  for (const char* table : {".patch.csv", ".class.csv", ".land.csv", ".adj.csv"})
    EXPECT_EQ(slurp(path(std::string("m") + table)), slurp(path(std::string("s") + table))) << table;
  // And the label raster is georeferenced like its input.
  double gt_in[6], gt_out[6];
  classes.dataset()->GetGeoTransform(gt_in);
  ids.dataset()->GetGeoTransform(gt_out);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(gt_in[i], gt_out[i]);
  EXPECT_STREQ(classes.dataset()->GetProjectionRef(), ids.dataset()->GetProjectionRef());
}

// --print: key columns aligned, with units and the class names the raster
// carries (its category names here), counts as whole numbers.
TEST_F(Cli, PrintShowsKeyColumnsWithClassNames) {
  // 1 1 2 2 / 1 2 2 2 / 3 3 3 3 (the grid of BadOptions), 1 m cells.
  const std::string in = make_raster("named.tif", GDT_Byte, {1, 1, 2, 2, 1, 2, 2, 2, 3, 3, 3, 3});
  {
    GDALDatasetH ds = GDALOpen(in.c_str(), GA_Update);
    ASSERT_NE(ds, nullptr);
    const char* names[] = {"", "forest", "water", "urban", nullptr};
    GDALSetRasterCategoryNames(GDALGetRasterBand(ds, 1), const_cast<char**>(names));
    GDALClose(ds);
  }
  const CliRun r = run_lsm("metrics " + in + " --out " + path("m") + " --print -q");
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<std::string> text;
  for (std::string line; std::getline(lines, line);) text.push_back(line);
  const auto header = std::find_if(text.begin(), text.end(), [](const std::string& l) { return l.rfind("TYPE", 0) == 0; });
  ASSERT_NE(header, text.end()) << r.out;
  EXPECT_NE(header->find("NAME"), std::string::npos);
  EXPECT_NE(header->find("PLAND"), std::string::npos);
  EXPECT_EQ(header->find("AREA_AM"), std::string::npos) << "a summary, not every column";
  EXPECT_NE((header + 1)->find("ha"), std::string::npos);  // the units line
  // Class 2: 5 of 12 cells = 41.6667 % of the landscape, one patch.
  const std::string water = *(header + 3);
  EXPECT_EQ(water.rfind("2", 0), 0u) << water;
  EXPECT_NE(water.find("water"), std::string::npos) << water;
  EXPECT_NE(water.find("41.6667"), std::string::npos) << water;
  EXPECT_NE(water.find(" 1 "), std::string::npos) << water;  // NP, a count
  // Columns are aligned: every line of the table is as long as the header's columns reach.
  EXPECT_EQ((header + 2)->find("forest"), header->find("NAME"));
  EXPECT_NE(r.out.find("Landscape metrics"), std::string::npos);
}

TEST_F(Cli, QuietPrintsNoProgress) {
  ASSERT_EQ(run_lsm("synth " + path("nlm.tif") + " --width 40 --height 30 -q").code, 0);
  const CliRun r = run_lsm("metrics " + path("nlm.tif") + " --out " + path("m") + " -q");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST_F(Cli, MissingFile) {
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + path("nope.tif") + " --out " + path("m")), "no such file", before);
}

TEST_F(Cli, NotARaster) {
  std::ofstream(path("notes.dat")) << "not a raster\n";
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + path("notes.dat") + " --out " + path("m")), "as a raster", before);
  // A .txt is read as a list of rasters: the line that is none says so.
  std::ofstream(path("notes.txt")) << "not a raster\n";
  expect_clean_failure(run_lsm("metrics " + path("notes.txt") + " --out " + path("m")),
                       "notes.txt:1: cannot open '" + path("not a raster") + "': no such file (" + path("notes.txt") +
                           " is read as a batch file: one raster a line)",
                       files());
}

TEST_F(Cli, BandOutOfRange) {
  make_raster("r.tif", GDT_Byte, {1, 1, 2, 2, 1, 2, 2, 2, 3, 3, 3, 3});
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + path("r.tif") + " --band 2 --out " + path("m")), "band 2 is out of range",
                       before);
  expect_clean_failure(run_lsm("label " + path("r.tif") + " " + path("ids.tif") + " --band 0"), "--band must be in 1..65535 (got 0)",
                       before);
}

TEST_F(Cli, FloatBandWithNonIntegerValues) {
  make_raster("f.tif", GDT_Float32, {1, 1, 2, 2, 1, 2.5, 2, 2, 3, 3, 3, 3});
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + path("f.tif") + " --out " + path("m")), "non-integer value 2.5", before);
  expect_clean_failure(run_lsm("label " + path("f.tif") + " " + path("ids.tif")), "non-integer value 2.5", before);
}

// Negative class codes are FRAGSTATS' landscape border (integer and float
// bands): outside the landscape in lsm metrics, where they type the boundary
// beside them; refused with that reason by commands that do not take them;
// the int32 minimum is lsm's nodata, said so.
TEST_F(Cli, NegativeClassCodesAreTheLandscapeBorder) {
  make_raster("i.tif", GDT_Int16, {1, 1, 2, 2, 1, -12, 2, 2, 3, 3, 3, 3});
  make_raster("f.tif", GDT_Float64, {1, 1, 2, 2, 1, -12, 2, 2, 3, 3, 3, 3});
  make_raster("min.tif", GDT_Float64, {1, 1, 2, 2, 1, -2147483648.0, 2, 2, 3, 3, 3, 3});
  for (const char* name : {"i.tif", "f.tif"}) {
    const std::string out = path(std::string(name) + ".m");
    const CliRun r = run_lsm("metrics " + path(name) + " --out " + out + " --level land --metrics TA,TE -q");
    ASSERT_EQ(r.code, 0) << r.err;
    // 11 cells of 1 m2; 4 m of edge inside, and the border's class 12 beside
    // classes 1, 1, 2 and 3: 4 m of true edge without --boundary-edge.
    EXPECT_EQ(slurp(out + ".land.csv"), "TA,TE\n0.0011,8\n");
  }
  // lsm label: the border has no patch (ID 0), as the patch table has none.
  ASSERT_EQ(run_lsm("label " + path("i.tif") + " " + path("ids.tif") + " -q").code, 0);
  {
    GDALDataset* ids = static_cast<GDALDataset*>(GDALOpen(path("ids.tif").c_str(), GA_ReadOnly));
    ASSERT_NE(ids, nullptr);
    std::vector<uint32_t> v(12);
    ASSERT_EQ(ids->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 4, 3, v.data(), 4, 3, GDT_UInt32, 0, 0), CE_None);
    GDALClose(ids);
    EXPECT_EQ(v, (std::vector<uint32_t>{1, 1, 2, 2, 1, 0, 2, 2, 3, 3, 3, 3}));
  }
  const auto before = files();
  expect_clean_failure(run_lsm("window " + path("i.tif") + " " + path("w.tif") + " --metrics SHDI --window-cells 3 -q"),
                       "holds the negative class code -12 at column 1, row 1: FRAGSTATS reads negative codes as the "
                       "landscape border, which this command does not take (lsm metrics does)", before);
  expect_clean_failure(run_lsm("zonal " + path("i.tif") + " --grid 2 --output " + path("z") + " -q"),
                       "FRAGSTATS reads negative codes as the landscape border, which this command does not take", before);
  expect_clean_failure(run_lsm("label " + path("min.tif") + " " + path("ids2.tif")), "which lsm reserves for nodata", before);
}

// --nodata declares the value outside the landscape on a raster without one
// (MapBiomas' 0 outside the municipality): the same tables as the raster
// with that nodata value set, and unlike the raster read with 0 a class.
TEST_F(Cli, NodataOptionDeclaresTheValueOutsideTheLandscape) {
  const std::vector<double> cells = {0, 1, 1, 2, 0, 1, 2, 2, 0, 0, 3, 3};
  make_raster("plain.tif", GDT_Byte, cells);
  make_raster("declared.tif", GDT_Byte, cells);
  {
    GDALDataset* d = GDALDataset::Open(path("declared.tif").c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE);
    ASSERT_NE(d, nullptr);
    d->GetRasterBand(1)->SetNoDataValue(0);
    GDALClose(d);
  }
  ASSERT_EQ(run_lsm("metrics " + path("plain.tif") + " --out " + path("given") + " --nodata 0 -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + path("declared.tif") + " --out " + path("set") + " -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + path("plain.tif") + " --out " + path("zero") + " -q").code, 0);
  for (const char* table : {".patch.csv", ".class.csv", ".land.csv"})
    EXPECT_EQ(slurp(path(std::string("given") + table)), slurp(path(std::string("set") + table))) << table;
  EXPECT_EQ(slurp(path("given.land.csv")).substr(slurp(path("given.land.csv")).find('\n') + 1, 6), "8e-04,");  // TA: 8 cells of 1 m2
  EXPECT_NE(slurp(path("zero.class.csv")).find("\n0,"), std::string::npos);  // read plainly, 0 is a class
  ASSERT_EQ(run_lsm("label " + path("plain.tif") + " " + path("ids.tif") + " --nodata 0 -q").code, 0);
  EXPECT_EQ(read(path("ids.tif")).band[0][0], 0.0f);  // outside the landscape: no patch
}

// A run that fails after its progress began ends the progress line before
// its error line, which then starts a line of its own.
TEST_F(Cli, ErrorLineStartsItsOwnLineAfterProgress) {
  const std::string in = CliFixture::make_raster("late.tif", 600, 600, 1, [](int x, int y, int) { return x == 5 && y == 590 ? 2.5f : 1.0f; });
  const CliRun r = run_lsm("metrics " + in + " --out " + path("m") + " --tile-size 64");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("0..."), std::string::npos) << r.err;  // the progress had begun
  EXPECT_NE(r.err.find(".\nlsm: error: band 1 of"), std::string::npos) << r.err;
}

TEST_F(Cli, FloatBandWithIntegerValuesWorks) {
  make_raster("f.tif", GDT_Float32, {1, 1, 2, 2, 1, 2, 2, 2, 3, 3, 3, 3});
  const CliRun r = run_lsm("metrics " + path("f.tif") + " --out " + path("m") + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string land = slurp(path("m.land.csv"));
  EXPECT_EQ(land.substr(0, 20), "TA,NP,PD,LPI,TE,ED,L") << land;
  EXPECT_EQ(land.substr(land.find('\n'), 4), "\n0.0") << land;
}

TEST_F(Cli, UnwritableOutput) {
  make_raster("r.tif", GDT_Byte, {1, 1, 2, 2, 1, 2, 2, 2, 3, 3, 3, 3});
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + path("r.tif") + " --out " + path("no/such/dir/m")), "cannot write", before);
  expect_clean_failure(run_lsm("label " + path("r.tif") + " " + path("no/such/dir/ids.tif")), "cannot write", before);
}

TEST_F(Cli, BadOptions) {
  make_raster("r.tif", GDT_Byte, {1, 1, 2, 2, 1, 2, 2, 2, 3, 3, 3, 3});
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + path("r.tif") + " --out " + path("m") + " --neighbors 6"),
                       "--neighbors must be 4 or 8", before);
  expect_clean_failure(run_lsm("metrics " + path("r.tif") + " --out " + path("m") + " --tile-size 0"), "--tile-size",
                       before);
  expect_clean_failure(run_lsm("metrics " + path("r.tif") + " --out " + path("m") + " --backend gpu"),
                       "--backend must be auto, cpu or cuda, not 'gpu'", before);
  expect_clean_failure(run_lsm("frobnicate"), "unknown command", before);
  const std::string m = "metrics " + path("r.tif") + " --out " + path("m");
  expect_clean_failure(run_lsm(m + " --metrics AREA,FOO"), "unknown metric 'FOO'", before);
  expect_clean_failure(run_lsm(m + " --edge-depth 0"), "--edge-depth must be in 1..1000 (got 0)", before);
  expect_clean_failure(run_lsm(m + " --boundary-edge 1.5"), "--boundary-edge must be between 0 and 1", before);
  expect_clean_failure(run_lsm(m + " --level patch,region"), "unknown level 'region'", before);
  expect_clean_failure(run_lsm(m + " --format xml"), "--format must be fragstats or tidy, not 'xml'", before);
  expect_clean_failure(run_lsm(m + " --max-classes 2"), "has 3 classes, more than --max-classes 2", before);
}

// Tidy layout, levels, background and the adjacency table through the CLI.
// 1 1 2 2
// 1 2 2 2
// 3 3 3 3   (1 m cells)
TEST_F(Cli, TidyLevelsBackground) {
  make_raster("r.tif", GDT_Byte, {1, 1, 2, 2, 1, 2, 2, 2, 3, 3, 3, 3});
  ASSERT_EQ(run_lsm("metrics " + path("r.tif") + " --out " + path("t") + " --format tidy --level land --metrics NP,TA,PR -q").code, 0);
  EXPECT_EQ(slurp(path("t.tidy.csv")), "level,class,id,metric,value\nlandscape,,,TA,0.0012\nlandscape,,,NP,3\nlandscape,,,PR,3\n");
  EXPECT_FALSE(std::filesystem::exists(path("t.land.csv")));
  // NP, TA and PR come from the scan alone: no second pass, so no adjacency counts to write.
  EXPECT_FALSE(std::filesystem::exists(path("t.adj.csv")));
  ASSERT_EQ(run_lsm("metrics " + path("r.tif") + " --out " + path("t") + " --level land --metrics PLADJ -q").code, 0);
  EXPECT_EQ(slurp(path("t.adj.csv")), "TYPE,1,2,3\n1,4,3,1\n2,3,10,3\n3,1,3,6\n");
  // Class 3 as background: still in TA, but no class and no patch; class 1-3 and 2-3
  // edges are background edges (TE counts them only with --boundary-edge).
  ASSERT_EQ(run_lsm("metrics " + path("r.tif") + " --out " + path("b") + " --background 3 --metrics NP,TA,PR,TE -q").code, 0);
  EXPECT_EQ(slurp(path("b.land.csv")), "TA,NP,TE,PR\n0.0012,2,3,2\n");
  EXPECT_EQ(slurp(path("b.class.csv")), "TYPE,NP,TE\n1,1,3\n2,1,3\n");
  ASSERT_EQ(run_lsm("metrics " + path("r.tif") + " --out " + path("c") + " --background 3 --boundary-edge 1 --metrics TE -q").code, 0);
  // Class-class edges 3 m, raster-edge sides of classes 1 and 2: 4 + 4, background edges 1 + 3.
  EXPECT_EQ(slurp(path("c.land.csv")), "TE\n15\n");
}

TEST_F(Cli, AugustaMatchesFragstatsLandscapeRow) {
  const std::string raster = shared_data_dir() + "/landcover/lsm_augusta_nlcd.tif";
  LSM_REQUIRE_SHARED_FILE(raster);
  ASSERT_EQ(run_lsm("metrics " + raster + " --out " + path("a") + " --tile-size 64 -q --level land --metrics ta,np,pd,lpi,te,ed,area_mn").code, 0);
  // FRAGSTATS: TA 26848.8000, NP 17141, PD 63.8427, LPI 1.6077, TE 5485470, ED 204.3097, AREA_MN 1.5663
  std::istringstream land(slurp(path("a.land.csv")));
  std::string header, row;
  std::getline(land, header);
  std::getline(land, row);
  double ta, pd, lpi, te, ed, mn;
  long np;
  ASSERT_EQ(std::sscanf(row.c_str(), "%lf,%ld,%lf,%lf,%lf,%lf,%lf", &ta, &np, &pd, &lpi, &te, &ed, &mn), 7);
  EXPECT_NEAR(ta, 26848.8, 5e-5);
  EXPECT_EQ(np, 17141);
  EXPECT_NEAR(pd, 63.8427, 5e-5);
  EXPECT_NEAR(lpi, 1.6077, 5e-5);
  EXPECT_NEAR(te, 5485470.0, 5e-5);
  EXPECT_NEAR(ed, 204.3097, 5e-5);
  EXPECT_NEAR(mn, 1.5663, 5e-5);
}

}  // namespace
}  // namespace lsm::test
