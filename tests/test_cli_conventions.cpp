// The lsm tool's GDAL-style conventions (issue 8): GDAL's general options,
// --help per command, and `lsm --describe`, the JSON the QGIS provider is
// generated from.
#include <fstream>
#include <set>
#include <sstream>

#include "cli_fixture.h"
#include "metric_catalogue.h"

namespace lsm::test {
namespace {

class CliConventions : public CliFixture {};

TEST_F(CliConventions, GdalGeneralOptions) {
  const CliRun version = run_lsm("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.out.rfind("lsm ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("GDAL "), std::string::npos);
  const CliRun formats = run_lsm("--formats");
  EXPECT_EQ(formats.code, 0);
  EXPECT_NE(formats.out.find("GTiff -raster"), std::string::npos);
  // --config before or after the command, and the commands' own --format still theirs.
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  EXPECT_EQ(run_lsm("--config GDAL_CACHEMAX 64 label " + sample + " " + path("a.tif") + " -q --config GDAL_NUM_THREADS 1").code, 0);
  EXPECT_EQ(run_lsm("metrics " + sample + " --out " + path("t") + " --format tidy --level land -q").code, 0);
  EXPECT_TRUE(std::filesystem::exists(path("t.tidy.csv")));
}

// -of / -co: GDAL's output format and creation options; a copy-only format
// (COG) goes through a staging GeoTIFF that does not survive the run.
TEST_F(CliConventions, OutputFormatAndCreationOptions) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  ASSERT_EQ(run_lsm("label " + sample + " " + path("gtiff.tif") + " -q").code, 0);
  ASSERT_EQ(run_lsm("label " + sample + " " + path("cog.tif") + " -of COG -co COMPRESS=LZW -q").code, 0);
  ASSERT_EQ(run_lsm("gradient " + sample + " " + path("g.img") + " -of HFA -q").code, 0);
  EXPECT_EQ(files(), (std::vector<std::string>{"cog.tif", "g.img", "gtiff.tif"}));
  GDALAllRegister();
  GDALDatasetH cog = GDALOpen(path("cog.tif").c_str(), GA_ReadOnly);
  ASSERT_NE(cog, nullptr);
  EXPECT_STREQ(GDALGetMetadataItem(cog, "LAYOUT", "IMAGE_STRUCTURE"), "COG");
  EXPECT_STREQ(GDALGetMetadataItem(cog, "COMPRESSION", "IMAGE_STRUCTURE"), "LZW");
  GDALClose(cog);
  GDALDatasetH img = GDALOpen(path("g.img").c_str(), GA_ReadOnly);
  ASSERT_NE(img, nullptr);
  EXPECT_STREQ(GDALGetDriverShortName(GDALGetDatasetDriver(img)), "HFA");
  EXPECT_EQ(GDALGetRasterCount(img), 4);
  GDALClose(img);
  EXPECT_EQ(read(path("cog.tif")).band, read(path("gtiff.tif")).band);  // the same patch IDs
  const auto before = files();
  expect_clean_failure(run_lsm("label " + sample + " " + path("x.tif") + " -of NOPE"), "unknown output format 'NOPE'", before);
  expect_clean_failure(run_lsm("label " + sample + " " + path("x.tif") + " -co TILED"), "expected NAME=VALUE", before);
  // Options the format does not have, or values it does not take: refused, not ignored.
  expect_clean_failure(run_lsm("label " + sample + " " + path("x.tif") + " -co COMPRESS=FOO"),
                       "creation options refused by GTiff: 'FOO' is an unexpected value for COMPRESS", before);
  expect_clean_failure(run_lsm("label " + sample + " " + path("x.tif") + " -co FROB=1"),
                       "GTiff does not support creation option FROB", before);
  // A format that would clip the cells, or write no file: refused, not lossy.
  expect_clean_failure(run_lsm("label " + sample + " " + path("x.png") + " -of PNG"),
                       "output format PNG cannot hold UInt32 cells (it takes Byte UInt16)", before);
  expect_clean_failure(run_lsm("gradient " + sample + " " + path("x.jpg") + " -of JPEG"), "cannot hold Float32 cells", before);
  expect_clean_failure(run_lsm("label " + sample + " " + path("x.mem") + " -of MEM"), "output format MEM writes no file", before);
  // The user's options replace lsm's defaults (DEFLATE, tiles of 256).
  ASSERT_EQ(run_lsm("label " + sample + " " + path("lzw.tif") + " -co COMPRESS=LZW -co BLOCKXSIZE=128 -co BLOCKYSIZE=64 -q").code, 0);
  GDALDatasetH lzw = GDALOpen(path("lzw.tif").c_str(), GA_ReadOnly);
  ASSERT_NE(lzw, nullptr);
  EXPECT_STREQ(GDALGetMetadataItem(lzw, "COMPRESSION", "IMAGE_STRUCTURE"), "LZW");
  int block_x = 0, block_y = 0;
  GDALGetBlockSize(GDALGetRasterBand(lzw, 1), &block_x, &block_y);
  EXPECT_EQ(block_x, 128);
  EXPECT_EQ(block_y, 64);
  GDALClose(lzw);
}

// What is asked is what is written: a table prefix that names a folder (or
// nothing) is refused instead of writing hidden files, and a level whose
// table the selection leaves empty is refused when asked for, else left out
// with a note.
TEST_F(CliConventions, MetricsWritesNoEmptyOrHiddenTables) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  std::filesystem::create_directories(path("out"));
  const auto before = files();
  for (const std::string& prefix : {path("out") + "/", path("out"), std::string("''")})
    expect_clean_failure(run_lsm("metrics " + sample + " --output " + prefix), "is not a prefix of file names", before);
  expect_clean_failure(run_lsm("metrics " + sample + " --output " + path("t") + " --level land --metrics CA"),
                       "--metrics 'CA' selects no land metric, so --level land would write an empty table", before);
  const CliRun r = run_lsm("metrics " + sample + " --output " + path("t") + " --metrics CA,PLAND -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --metrics CA,PLAND selects no patch or land metric"), std::string::npos) << r.err;
  std::vector<std::string> expected = before;
  expected.push_back("t.class.csv");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files(), expected);
  EXPECT_EQ(slurp(path("t.class.csv")).substr(0, 14), "TYPE,CA,PLAND\n");
}

// A typo in an option, a metric or a size gets the name meant.
TEST_F(CliConventions, TyposAreAnsweredWithTheNameMeant) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  const std::string run = "metrics " + sample + " --output " + path("m");
  const auto before = files();
  expect_clean_failure(run_lsm(run + " --neighbours 4"), "unrecognised option '--neighbours'; did you mean --neighbors?", before);
  expect_clean_failure(run_lsm(run + " --metrics SHDII"), "unknown metric 'SHDII'; did you mean SHDI?", before);
  expect_clean_failure(run_lsm(run + " --memory-limit 1GB"), "not '1GB'; did you mean 1G?", before);
  const CliRun far = run_lsm(run + " --frobnicate 2");
  EXPECT_EQ(far.code, 1);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

// A FRAGSTATS metric lsm does not compute reads as "not yet", not as a typo.
TEST_F(CliConventions, MetricsNotComputedYetAreSaidSo) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  const std::string run = "metrics " + sample + " --output " + path("m");
  const auto before = files();
  expect_clean_failure(run_lsm(run + " --metrics PROX_MN"),
                       "PROX needs FRAGSTATS' search radius (--search-radius METRES)", before);
  expect_clean_failure(run_lsm(run + " --metrics PROX --search-radius 0"), "--search-radius must be more than 0 m",
                       before);
  expect_clean_failure(run_lsm(run + " --metrics ca,GISFRAG"),
                       "GISFRAG is a FRAGSTATS metric that lsm does not compute yet", before);
  expect_clean_failure(run_lsm(run + " --metrics ca,SIMI_MN"),
                       "SIMI needs FRAGSTATS' search radius (--search-radius METRES)", before);
  expect_clean_failure(run_lsm(run + " --metrics SIMI --search-radius 500"),
                       "SIMI needs FRAGSTATS' similarity weights (--similarity-table FILE.fsq)", before);
  expect_clean_failure(run_lsm(run + " --metrics ca,CONNECT"),
                       "CONNECT needs FRAGSTATS' threshold distance (--threshold-distance METRES)", before);
  expect_clean_failure(run_lsm(run + " --metrics CONNECT --threshold-distance 0"),
                       "--threshold-distance must be more than 0 m", before);
  // A metric that needs a table asked for without it: said so, nothing written.
  expect_clean_failure(run_lsm(run + " --metrics ca,cwed"),
                       "CWED needs FRAGSTATS' edge contrast weights (--contrast-table FILE.fce)", before);
  expect_clean_failure(run_lsm(run + " --metrics ca,ECON_MN"),
                       "ECON needs FRAGSTATS' edge contrast weights (--contrast-table FILE.fce)", before);
  expect_clean_failure(run_lsm(run + " --metrics PROXY"), "unknown metric 'PROXY'", before);
}

// The header of a table and the value of the last column of its first row.
std::pair<std::string, double> header_and_last_value(const std::string& csv) {
  std::ifstream in(csv);
  std::string header, values;
  std::getline(in, header);
  std::getline(in, values);
  return {header, std::stod(values.substr(values.rfind(',') + 1))};
}

// --contrast-table: FRAGSTATS' .fce file gives CWED and TECI in the class
// and landscape tables and in moving windows, and every patch's ECON; a bad file is refused with
// its name and line, before anything is written.
TEST_F(CliConventions, ContrastTablesGiveCwedAndTeci) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  const std::string table = path("weights.fce");
  std::ofstream(table) << "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 4, 5, 999)\n0,.2,.4,.6,.8,1\n.2,0,.2,.4,.6,1\n"
                          ".4,.2,0,.2,.4,1\n.6,.4,.2,0,.2,1\n.8,.6,.4,.2,0,1\n1,1,1,1,1,0\n";
  const CliRun r = run_lsm("metrics " + sample + " --output " + path("c") + " --metrics TE,CWED,TECI --contrast-table " + table + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto [land_header, teci] = header_and_last_value(path("c.land.csv"));
  EXPECT_EQ(land_header, "TE,CWED,TECI");
  // Neighbouring classes of this fractal landscape differ by one: mostly 0.2 contrast.
  EXPECT_GT(teci, 20);
  EXPECT_LT(teci, 30);
  // ECON of every patch, and its distributions.
  const CliRun e = run_lsm("metrics " + sample + " --output " + path("e") + " --metrics ECON --contrast-table " + table + " -q");
  ASSERT_EQ(e.code, 0) << e.err;
  std::ifstream patches(path("e.patch.csv"));
  std::string header;
  std::getline(patches, header);
  EXPECT_EQ(header, "PID,TYPE,ECON");
  int rows = 0;
  for (std::string line; std::getline(patches, line); ++rows) {
    const double econ = std::stod(line.substr(line.rfind(',') + 1));
    ASSERT_GE(econ, 0) << line;
    ASSERT_LE(econ, 100) << line;
  }
  EXPECT_GT(rows, 100);
  std::ifstream econ_land(path("e.land.csv"));
  std::getline(econ_land, header);
  EXPECT_EQ(header, "ECON_MN,ECON_AM,ECON_MD,ECON_RA,ECON_SD,ECON_CV");
  // The patch-metric raster of ECON needs the table too.
  expect_clean_failure(run_lsm("patchmetric " + sample + " " + path("econ.tif") + " --metric ECON"),
                       "ECON needs FRAGSTATS' edge contrast weights (--contrast-table FILE.fce)", files());
  const CliRun pm = run_lsm("patchmetric " + sample + " " + path("econ.tif") + " --metric econ --contrast-table " + table + " -q");
  EXPECT_EQ(pm.code, 0) << pm.err;
  EXPECT_TRUE(std::filesystem::exists(path("econ.tif")));
  const CliRun w = run_lsm("window " + sample + " " + path("w.tif") + " --metrics TECI --level land --window-cells 5 "
                           "--contrast-table " + table + " -q");
  EXPECT_EQ(w.code, 0) << w.err;
  const CliRun econ = run_lsm("window " + sample + " " + path("e.tif") + " --metrics ECON_MN,ECON_AM --level land "
                              "--window-cells 5 --contrast-table " + table + " -q");
  EXPECT_EQ(econ.code, 0) << econ.err;
  expect_clean_failure(run_lsm("window " + sample + " " + path("v.tif") + " --metrics ECON_MN --window-cells 5"),
                       "CWED, TECI and ECON need FRAGSTATS' edge contrast weights (--contrast-table FILE.fce)",
                       files());
  const std::string asymmetric = path("bad.fce");
  std::ofstream(asymmetric) << "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n0,0.5\n0.4,0\n";
  expect_clean_failure(run_lsm("metrics " + sample + " --output " + path("d") + " --contrast-table " + asymmetric),
                       asymmetric + ":4: the weight of classes 2 and 1 differs", files());
  expect_clean_failure(run_lsm("window " + sample + " " + path("v.tif") + " --metrics CWED --window-cells 5"),
                       "CWED, TECI and ECON need FRAGSTATS' edge contrast weights (--contrast-table FILE.fce)",
                       files());
}

// --threshold-distance gives CONNECT in the class and landscape tables,
// --search-radius every patch's PROX and its distributions (geographic
// rasters are refused: test_geographic.cpp).
TEST_F(CliConventions, DistancesGiveConnectProxAndSimi) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  const CliRun r = run_lsm("metrics " + sample + " --output " + path("c") + " --metrics NP,CONNECT --threshold-distance 100 -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto [header, connect] = header_and_last_value(path("c.land.csv"));
  EXPECT_EQ(header, "NP,CONNECT");
  EXPECT_GT(connect, 0);
  EXPECT_LT(connect, 100);
  const CliRun p = run_lsm("metrics " + sample + " --output " + path("p") + " --metrics PROX_MN --search-radius 200 -q");
  ASSERT_EQ(p.code, 0) << p.err;
  const auto [prox_header, prox_mn] = header_and_last_value(path("p.land.csv"));
  EXPECT_EQ(prox_header, "PROX_MN");
  EXPECT_GT(prox_mn, 0);
  expect_clean_failure(run_lsm("patchmetric " + sample + " " + path("prox.tif") + " --metric PROX"),
                       "PROX needs FRAGSTATS' search radius (--search-radius METRES)", files());
  const CliRun pm = run_lsm("patchmetric " + sample + " " + path("prox.tif") + " --metric PROX --search-radius 200 -q");
  EXPECT_EQ(pm.code, 0) << pm.err;
  // SIMI with FRAGSTATS' .fsq: weights 1 for a class itself and 0 for every
  // other give PROX exactly; weights 1 everywhere count every class too.
  const auto prox_and_simi = [&](const std::string& weights) {
    std::ofstream(path("w.fsq")) << "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 4, 5)\n" << weights;
    const CliRun s = run_lsm("metrics " + sample + " --output " + path("s") +
                             " --metrics PROX_MN,SIMI_MN --search-radius 200 --similarity-table " + path("w.fsq") + " -q");
    EXPECT_EQ(s.code, 0) << s.err;
    std::ifstream in(path("s.land.csv"));
    std::string header, values;
    std::getline(in, header);
    std::getline(in, values);
    EXPECT_EQ(header, "PROX_MN,SIMI_MN");
    const size_t comma = values.rfind(',');
    return std::pair{std::stod(values.substr(values.rfind(',', comma - 1) + 1)), std::stod(values.substr(comma + 1))};
  };
  const auto [prox_alone, simi_alone] = prox_and_simi("1,0,0,0,0\n0,1,0,0,0\n0,0,1,0,0\n0,0,0,1,0\n0,0,0,0,1\n");
  EXPECT_EQ(prox_alone, prox_mn);
  EXPECT_EQ(simi_alone, prox_mn);
  const auto [prox_again, simi_all] = prox_and_simi("1,1,1,1,1\n1,1,1,1,1\n1,1,1,1,1\n1,1,1,1,1\n1,1,1,1,1\n");
  EXPECT_EQ(prox_again, prox_mn);
  EXPECT_GT(simi_all, 2 * prox_mn);  // every patch is beside others of other classes, 1 cell away
  std::ofstream(path("short.fsq")) << "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2)\n1,0\n0,1\n";
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + sample + " --output " + path("t") + " --metrics SIMI --search-radius 200 "
                               "--similarity-table " + path("short.fsq")),
                       "the similarity file '" + path("short.fsq") + "' lists no class 3, which is in the raster", before);
  expect_clean_failure(run_lsm("patchmetric " + sample + " " + path("simi.tif") + " --metric SIMI --search-radius 200"),
                       "SIMI needs FRAGSTATS' similarity weights (--similarity-table FILE.fsq)", before);
  const CliRun sm = run_lsm("patchmetric " + sample + " " + path("simi.tif") + " --metric SIMI --search-radius 200 "
                            "--similarity-table " + path("w.fsq") + " -q");
  EXPECT_EQ(sm.code, 0) << sm.err;
  // Moving windows take the same inputs.
  const CliRun w = run_lsm("window " + sample + " " + path("wp.tif") + " --metrics PROX_MN,SIMI_AM,CONNECT --level land "
                           "--window-cells 7 --search-radius 90 --threshold-distance 60 --similarity-table " +
                           path("w.fsq") + " -q");
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_TRUE(std::filesystem::exists(path("wp.tif")));
}

// --edge-depth-table: FRAGSTATS' .fdt gives the core metrics depths per
// class pair; one depth everywhere is --edge-distance; it excludes the
// other ways of giving the depth, and a bad file is refused before anything
// is written.
TEST_F(CliConventions, EdgeDepthTablesGiveTheCoreMetrics) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";  // 30 m cells
  const auto table = [&](const std::string& name, const std::string& rows) {
    std::ofstream(path(name)) << "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 4, 5, 999)\n" << rows;
    return path(name);
  };
  std::string sixties;
  for (int i = 0; i < 6; ++i) sixties += "60,60,60,60,60,60\n";
  const std::string uniform = table("uniform.fdt", sixties);
  const std::string run = "metrics " + sample + " --metrics TCA,CORE_MN,NDCA --level class,land -q -o ";
  ASSERT_EQ(run_lsm(run + path("a") + " --edge-depth-table " + uniform).code, 0);
  ASSERT_EQ(run_lsm(run + path("b") + " --edge-distance 60").code, 0);
  EXPECT_EQ(slurp(path("a.class.csv")), slurp(path("b.class.csv")));
  EXPECT_EQ(slurp(path("a.land.csv")), slurp(path("b.land.csv")));
  // Only class 5 reaching 90 m into class 4: class 4 has less core than with 30 m everywhere.
  std::string thirties;
  for (int i = 0; i < 6; ++i) thirties += i == 3 ? "30,30,30,30,90,30\n" : "30,30,30,30,30,30\n";
  const std::string tca = "metrics " + sample + " --metrics TCA --level land -q -o ";
  ASSERT_EQ(run_lsm(tca + path("c") + " --edge-depth-table " + table("deep.fdt", thirties)).code, 0);
  ASSERT_EQ(run_lsm(tca + path("d") + " --edge-depth 1").code, 0);
  const auto [header, tca_c] = header_and_last_value(path("c.land.csv"));
  const auto [header_d, tca_d] = header_and_last_value(path("d.land.csv"));
  EXPECT_EQ(header, "TCA");
  EXPECT_LT(tca_c, tca_d);
  EXPECT_GT(tca_c, 0.8 * tca_d);  // only class 4 beside class 5 lost core
  const std::string odd = table("odd.fdt", sixties.substr(0, sixties.size() - 18) + "60,60,60,60,60,45\n");
  const std::string negative = table("negative.fdt", "0,-1,0,0,0,0\n" + sixties.substr(18));
  const auto before = files();
  expect_clean_failure(run_lsm(run + path("x") + " --edge-depth 2 --edge-depth-table " + uniform),
                       "--edge-depth and --edge-depth-table exclude each other", before);
  expect_clean_failure(run_lsm(run + path("x") + " --edge-distance 60 --edge-depth-table " + uniform),
                       "--edge-distance and --edge-depth-table exclude each other", before);
  expect_clean_failure(run_lsm(run + path("x") + " --edge-depth-table " + odd),
                       "the depth 45 m of classes 999 and 999 is not a whole number of the raster's 30 m cells", before);
  expect_clean_failure(run_lsm(run + path("x") + " --edge-depth-table " + negative),
                       negative + ":3: '-1' is not an edge depth (a distance of 0 m or more)", before);
  const CliRun pm = run_lsm("patchmetric " + sample + " " + path("core.tif") + " --metric CORE --edge-depth-table " +
                            uniform + " -q");
  EXPECT_EQ(pm.code, 0) << pm.err;
}

// `--list-metrics` prints the catalogue: one line per acronym with its name,
// unit, levels and family, and nothing else.
TEST_F(CliConventions, ListMetricsPrintsTheCatalogue) {
  const CliRun r = run_lsm("metrics --list-metrics");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> acronyms;
  while (std::getline(lines, line) && !line.empty()) acronyms.push_back(line.substr(0, line.find(' ')));
  std::vector<std::string> catalogue;
  for (const lsm::MetricInfo& m : lsm::metric_catalogue()) catalogue.push_back(m.acronym);
  EXPECT_EQ(acronyms, catalogue);
  EXPECT_NE(r.out.find("\nENN        Euclidean nearest-neighbour distance (m)   patch; _MN _AM _MD _RA _SD _CV at class and "
                       "landscape · isolation\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nSHDI       Shannon's diversity index"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nRELMUTINF  Relative mutual information (proportion)   landscape · information theory "
                       "(landscapemetrics)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("landscape · diversity\n"), std::string::npos) << r.out;
  // A metric that needs an auxiliary table or a distance says which option gives it.
  EXPECT_NE(r.out.find("\nCONNECT    Connectance index (%)                      class, landscape · aggregation · needs "
                       "--threshold-distance\n"),
            std::string::npos)
      << r.out;
  // After a blank line, the metrics known but not computed yet, with what they need.
  EXPECT_NE(r.out.find("\n\nNot computed yet (asking for one says so):\nGISFRAG    FRAGSTATS\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nSIMI       Similarity index                           patch; _MN _AM _MD _RA _SD _CV at class "
                       "and landscape · isolation · needs --search-radius and --similarity-table\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(run_lsm("metrics --help").out.find("--list-metrics"), std::string::npos);
}

TEST_F(CliConventions, HelpPerCommand) {
  for (const char* command : {"metrics", "label", "window", "synth", "kmeans", "gradient", "pyramid", "hog", "fuzzy"}) {
    const CliRun r = run_lsm(std::string(command) + " --help");
    EXPECT_EQ(r.code, 0) << command;
    EXPECT_EQ(r.out.rfind(std::string("usage: lsm ") + command, 0), 0u) << r.out;
    EXPECT_NE(r.out.find("--quiet"), std::string::npos) << command;
  }
}

// Every command with its parameters; well-formed JSON (balanced outside strings).
TEST_F(CliConventions, DescribeListsEveryCommandAndParameter) {
  const CliRun r = run_lsm("--describe");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string& j = r.out;
  EXPECT_EQ(j.rfind("{\"program\":\"lsm\"", 0), 0u);
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < j.size(); ++i) {
    const char c = j[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    ASSERT_GE(depth, 0) << "at " << i;
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(in_string);
  for (const char* command : {"metrics", "label", "window", "synth", "kmeans", "gradient", "pyramid", "hog", "fuzzy"})
    EXPECT_NE(j.find(std::string("{\"name\":\"") + command + "\",\"summary\""), std::string::npos) << command;
  // A few parameters with their types, defaults, choices and roles.
  EXPECT_NE(j.find("{\"name\":\"input\",\"type\":\"string\",\"required\":true,\"default\":null,\"choices\":null,"
                   "\"multiple\":false,\"positional\":1"), std::string::npos);
  EXPECT_NE(j.find("{\"name\":\"neighbors\",\"type\":\"integer\",\"required\":false,\"default\":8,\"choices\":[4,8]"),
            std::string::npos);
  EXPECT_NE(j.find("{\"name\":\"seed-cell\",\"type\":\"string\",\"required\":false,\"default\":null,\"choices\":null,"
                   "\"multiple\":true"), std::string::npos);
  EXPECT_NE(j.find("{\"name\":\"sigma\",\"type\":\"number\",\"required\":false,\"default\":1,"), std::string::npos);
  EXPECT_NE(j.find("{\"name\":\"quiet\",\"type\":\"flag\""), std::string::npos);
  EXPECT_NE(j.find("\"output\":\"table-prefix\""), std::string::npos);
  EXPECT_NE(j.find("\"output\":\"raster\""), std::string::npos);
}

}  // namespace
}  // namespace lsm::test

namespace lsm::test {
namespace {

// --edge-distance: FRAGSTATS' edge depth in metres, the same tables as the
// depth in cells wherever an operation takes an edge depth; a distance that
// is no whole number of cells, or one beside a depth other than the default,
// is refused before any output.
class EdgeDistance : public CliFixture {};

TEST_F(EdgeDistance, GivesTheOutputsOfItsDepthInCells) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";  // 30 m cells
  for (const std::string& metrics : {std::string("CORE,NCORE,TCA,NDCA,CPLAND"), std::string("CAI_MN,DCAD")}) {
    ASSERT_EQ(run_lsm("metrics " + sample + " -o " + path("cells") + " --metrics " + metrics + " --edge-depth 3 -q").code, 0);
    ASSERT_EQ(run_lsm("metrics " + sample + " -o " + path("metres") + " --metrics " + metrics + " --edge-distance 90 -q").code, 0);
    for (const char* table : {".class.csv", ".land.csv"})
      EXPECT_EQ(slurp(path("cells") + table), slurp(path("metres") + table)) << metrics << table;
  }
  ASSERT_EQ(run_lsm("patchmetric " + sample + " " + path("a.tif") + " --metric CORE --edge-depth 2 -q").code, 0);
  ASSERT_EQ(run_lsm("patchmetric " + sample + " " + path("b.tif") + " --metric CORE --edge-distance 60 -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + sample + " -o " + path("d1") + " --metrics CORE --edge-depth 1 -q").code, 0);
  EXPECT_NE(slurp(path("d1.patch.csv")), slurp(path("cells.patch.csv")));  // the depth matters
  // The depth at its default, as a dialog sends it, gives way to the distance.
  ASSERT_EQ(run_lsm("metrics " + sample + " -o " + path("both") + " --metrics CAI_MN,DCAD --edge-depth 1 "
                    "--edge-distance 90 -q").code, 0);
  EXPECT_EQ(slurp(path("both.class.csv")), slurp(path("cells.class.csv")));  // the last loop run: CAI_MN,DCAD at depth 3
  const CliRun zonal = run_lsm("zonal " + sample + " -o " + path("z") + " --grid 100 --metrics TCA --edge-distance 60 -q");
  EXPECT_EQ(zonal.code, 0) << zonal.err;
}

TEST_F(EdgeDistance, RefusesWhatIsNoWholeNumberOfCells) {
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  const auto before = files();
  expect_clean_failure(run_lsm("metrics " + sample + " -o " + path("m") + " --edge-distance 100"),
                       "the edge distance 100 m is not a whole number of the raster's 30 m cells", before);
  expect_clean_failure(run_lsm("metrics " + sample + " -o " + path("m") + " --edge-distance 90 --edge-depth 3"),
                       "--edge-depth and --edge-distance exclude each other", before);
  expect_clean_failure(run_lsm("metrics " + sample + " -o " + path("m") + " --edge-distance -30"), "--edge-distance", before);
}

}  // namespace
}  // namespace lsm::test
