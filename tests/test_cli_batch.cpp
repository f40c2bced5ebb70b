// lsm metrics with several inputs (issue 49, batches as FRAGSTATS runs
// them): one set of tables with a LID column first, each raster's rows equal
// to its own run byte for byte; LIDs that tell rasters of the same file name
// apart; bad batches refused before any output.
#include <fstream>

#include "cli_fixture.h"

namespace lsm::test {
namespace {

class CliBatch : public CliFixture {};

const std::string kSample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
const std::string kRough = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_1000x800_rough.tif";

// The lines of `csv` after the header whose first field is `lid`, without it.
std::string rows_of(const std::string& csv, const std::string& lid) {
  std::istringstream in(csv);
  std::string line, out;
  std::getline(in, line);
  while (std::getline(in, line))
    if (line.rfind(lid + ",", 0) == 0) out += line.substr(lid.size() + 1) + "\n";
  return out;
}

std::string without_header(const std::string& csv) { return csv.substr(csv.find('\n') + 1); }

TEST_F(CliBatch, EachRastersRowsEqualItsOwnRun) {
  std::filesystem::create_directories(path("2001"));
  std::filesystem::create_directories(path("2015"));
  std::filesystem::copy_file(kSample, path("2001/landcover.tif"));
  std::filesystem::copy_file(kRough, path("2015/landcover.tif"));
  const CliRun r = run_lsm("metrics " + path("2001/landcover.tif") + " " + path("2015/landcover.tif") + " -o " +
                           path("batch") + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string table : {"patch", "class", "land"}) {
    const std::string batch = slurp(path("batch." + table + ".csv"));
    EXPECT_EQ(batch.rfind("LID,", 0), 0u) << table;
    for (const std::string year : {"2001", "2015"}) {
      const CliRun one = run_lsm("metrics " + path(year + "/landcover.tif") + " -o " + path("one") + " -q");
      ASSERT_EQ(one.code, 0) << one.err;
      const std::string alone = slurp(path("one." + table + ".csv"));
      EXPECT_EQ(batch.substr(4, batch.find('\n') - 3), alone.substr(0, alone.find('\n') + 1)) << table << " header";
      EXPECT_EQ(rows_of(batch, year + "/landcover.tif"), without_header(alone)) << table << " " << year;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(path("batch.adj.csv"))) << "no adjacency matrix for a batch";
  // Tidy: a lid column.
  ASSERT_EQ(run_lsm("metrics " + kSample + " " + kRough + " -o " + path("t") + " --format tidy --level land --metrics NP -q").code, 0);
  EXPECT_EQ(slurp(path("t.tidy.csv")),
            "lid,level,class,id,metric,value\nnlm_fbm_400x300.tif,landscape,,,NP,472\nnlm_fbm_1000x800_rough.tif,landscape,,,NP,11980\n");
}

TEST_F(CliBatch, BadBatchesAreRefusedBeforeAnyOutput) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kSample + " " + kSample, "twice: a batch measures each raster once"},
      {kSample + " " + path("missing.tif"), "missing.tif"},
      {kSample + " " + kRough + " --print", "--print prints the tables of one raster"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = run_lsm("metrics " + args + " -o " + path("out") + " -q");
    EXPECT_EQ(r.code, 1) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(files().empty()) << args;
  }
}

TEST_F(CliBatch, FragstatsBatchFilesAndListsGiveTheLandscapes) {
  std::filesystem::create_directories(path("2001"));
  std::filesystem::copy_file(kSample, path("2001/landcover.tif"));
  // FRAGSTATS 4's eight fields: a relative path (from the batch file's
  // folder) with every field left to the raster, then a full path with its
  // cell size, rows and columns checked and background class 3; a line of
  // FRAGSTATS 3's six fields; Windows line ends.
  std::ofstream(path("run.fbt")) << "2001/landcover.tif, x, x, x, x, x, x, IDF_GeoTIFF\r\n"
                                 << "\"" << kRough << "\", 25, 3, 800, 1000, 1, x, IDF_GeoTIFF\r\n";
  const CliRun r = run_lsm("metrics " + path("run.fbt") + " -o " + path("fbt") + " --level class,land -q");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(run_lsm("metrics " + path("2001/landcover.tif") + " -o " + path("a") + " --level class,land -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + kRough + " --background 3 -o " + path("b") + " --level class,land -q").code, 0);
  for (const std::string table : {"class", "land"}) {
    const std::string batch = slurp(path("fbt." + table + ".csv"));
    EXPECT_EQ(rows_of(batch, "landcover.tif"), without_header(slurp(path("a." + table + ".csv")))) << table;
    EXPECT_EQ(rows_of(batch, "nlm_fbm_1000x800_rough.tif"), without_header(slurp(path("b." + table + ".csv"))))
        << table << ": the line's background class";
  }
  // A list of rasters, one per line (comments and blank lines skipped), is
  // the same batch as the rasters given on the command line.
  std::ofstream(path("rasters.txt")) << "# two dates\n" << kSample << "\n\n" << kRough << "\n";
  ASSERT_EQ(run_lsm("metrics " + path("rasters.txt") + " -o " + path("list") + " -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + kSample + " " + kRough + " -o " + path("given") + " -q").code, 0);
  for (const std::string table : {"patch", "class", "land"})
    EXPECT_EQ(slurp(path("list." + table + ".csv")), slurp(path("given." + table + ".csv"))) << table;
  std::ofstream(path("fragstats3.fbt")) << kSample << ", 30, x, 300, 400, IDF_GeoTIFF\n";
  ASSERT_EQ(run_lsm("metrics " + path("fragstats3.fbt") + " -o " + path("f3") + " --level land -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + kSample + " -o " + path("alone") + " --level land -q").code, 0);
  EXPECT_EQ(rows_of(slurp(path("f3.land.csv")), "nlm_fbm_400x300.tif"), without_header(slurp(path("alone.land.csv"))));
}

TEST_F(CliBatch, BadBatchFilesAreRefusedBeforeAnyOutput) {
  std::filesystem::create_directories(path("in"));
  const auto batch = [&](const std::string& name, const std::string& text) {
    std::ofstream(path("in/" + name)) << text;
    return path("in/" + name);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {batch("rows.fbt", kSample + ", x, x, 301, x, x, x, IDF_GeoTIFF\n"), "has 300 rows, the batch file says 301"},
      {batch("cells.fbt", kSample + ", 25, x, x, x, x, x, IDF_GeoTIFF\n"), "has cells of 30 x 30 m, the batch file says 25 m"},
      {batch("three.fbt", kSample + ", 30, x\n"), "three.fbt:1: 3 fields; a FRAGSTATS batch line has 8"},
      {batch("nodata.fbt", kSample + ", x, x, x, x, x, none, IDF_GeoTIFF\n"), "the nodata value 'none' is not a number"},
      {batch("band.fbt", "\n" + kSample + ", x, x, x, x, 0, x, IDF_GeoTIFF\n"), "band.fbt:2: the band number '0'"},
      {batch("empty.txt", "# nothing\n\n"), "names no raster"},
      {batch("missing.lst", kSample + "\nnot_there.tif\n"), "not_there.tif"},
  };
  for (const auto& [file, message] : cases) {
    const CliRun r = run_lsm("metrics " + file + " -o " + path("out") + " -q");
    EXPECT_EQ(r.code, 1) << file;
    EXPECT_NE(r.err.find(message), std::string::npos) << file << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.class.csv"))) << file;
    EXPECT_FALSE(std::filesystem::exists(path("out.land.csv"))) << file;
  }
}

}  // namespace
}  // namespace lsm::test
