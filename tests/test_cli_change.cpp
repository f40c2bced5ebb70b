// lsm change (issue 49): the metrics of two dates and their change, on a
// hand-made pair with differences counted by hand (a class that grows, one
// that appears); each date's rows equal its own lsm metrics run; grids that
// do not match refused before any output.
#include <cmath>

#include "cli_fixture.h"

namespace lsm::test {
namespace {

class CliChange : public CliFixture {};

const double kGt[6] = {500000, 30, 0, 4000000, 0, -30};  // 30 m cells: 0.09 ha

// The row of `csv` whose first field is `first` (the header if empty).
std::string row(const std::string& csv, const std::string& first) {
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);)
    if (first.empty() || line.rfind(first + ",", 0) == 0) return line;
  return "";
}

// The fields of a CSV row as numbers (empty: NaN), each to 1e-12 of `want`.
void expect_values(const std::string& line, const std::vector<double>& want) {
  std::vector<double> got;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) got.push_back(f.empty() ? std::nan("") : std::stod(f));
  if (!line.empty() && line.back() == ',') got.push_back(std::nan(""));
  ASSERT_EQ(got.size(), want.size()) << line;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << line << " field " << i;
    else EXPECT_NEAR(got[i], want[i], 1e-12 * std::max(1.0, std::fabs(want[i]))) << line << " field " << i;
  }
}

TEST_F(CliChange, ClassesThatGrowAndAppearCountedByHand) {
  // Earlier: 1 1 2 2 / 1 1 2 2 / 3 3 3 3.  Later: 1 1 1 2 / 1 1 2 2 / 3 3 3 4.
  const std::string a = write_4x3("2001.tif", GDT_Byte, kGt, 32633, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3});
  const std::string b = write_4x3("2015.tif", GDT_Byte, kGt, 32633, {1, 1, 1, 2, 1, 1, 2, 2, 3, 3, 3, 4});
  const CliRun r = run_lsm("change " + a + " " + b + " -o " + path("c") + " --metrics CA,NP,PLAND,AREA_MN,PR -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string cls = slurp(path("c.class_change.csv")), land = slurp(path("c.land_change.csv"));
  EXPECT_EQ(row(cls, ""), "TYPE,CA,PLAND,NP,AREA_MN");
  // CA (ha), PLAND (%), NP, AREA_MN (ha): 4 -> 5 cells for class 1, 4 -> 3 for classes 2 and 3.
  expect_values(row(cls, "1"), {1, 0.09, 100.0 / 12, 0, 0.09});
  expect_values(row(cls, "2"), {2, -0.09, -100.0 / 12, 0, -0.09});
  expect_values(row(cls, "3"), {3, -0.09, -100.0 / 12, 0, -0.09});
  // Class 4 appears: 0 before (no area, no patch); its mean patch area was N/A.
  expect_values(row(cls, "4"), {4, 0.09, 100.0 / 12, 1, std::nan("")});
  // Landscape: 3 -> 4 patches of 12 cells: the mean patch area 0.36 -> 0.27 ha; richness 3 -> 4.
  EXPECT_EQ(row(land, ""), "NP,AREA_MN,PR");
  expect_values(row(land, "1"), {1, -0.09, 1});
  // Each date's rows are its own run's.
  for (const std::string& date : {std::string("2001"), std::string("2015")}) {
    ASSERT_EQ(run_lsm("metrics " + path(date + ".tif") + " -o " + path(date) + " --metrics CA,NP,PLAND,AREA_MN,PR "
                      "--level class,land -q").code, 0);
    const std::string alone = slurp(path(date + ".land.csv"));
    const std::string values = alone.substr(alone.find('\n') + 1, alone.size() - alone.find('\n') - 2);
    EXPECT_EQ(row(slurp(path("c.land.csv")), date + ".tif"), date + ".tif," + values) << date;
  }
}

TEST_F(CliChange, GridsThatDoNotMatchAreRefused) {
  const std::string a = write_4x3("a.tif", GDT_Byte, kGt, 32633, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3});
  const double shifted[6] = {500030, 30, 0, 4000000, 0, -30};
  const std::string b = write_4x3("b.tif", GDT_Byte, shifted, 32633, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3});
  const std::string c = write_4x3("c.tif", GDT_Byte, kGt, 32634, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3});
  const std::string sample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {a + " " + b, "is not on the earlier raster's grid"},
      {a + " " + c, "is not in the earlier raster's CRS"},
      {a + " " + sample, "is 400 x 300 cells, the earlier raster 4 x 3"},
      {a + " " + a, "is the earlier raster itself"},
      {a + " " + b + " --level patch", "patches are not the same objects at two dates"},
  };
  const auto before = files();
  for (const auto& [args, message] : cases) {
    const CliRun r = run_lsm("change " + args + " -o " + path("out") + " -q");
    EXPECT_EQ(r.code, 1) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(files(), before) << args;
  }
}

}  // namespace
}  // namespace lsm::test
