// lsm metrics with several inputs (issue 49, batches as FRAGSTATS runs
// them): one set of tables with a LID column first, each raster's rows equal
// to its own run byte for byte; LIDs that tell rasters of the same file name
// apart; bad batches refused before any output.
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

}  // namespace
}  // namespace lsm::test
