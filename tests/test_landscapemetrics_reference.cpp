// landscapemetrics' own values of the information-theory metrics on the
// shared land-cover rasters (tests/data/landscapemetrics_information.csv,
// written by tests/data/landscapemetrics_information.R): lsm's equal them to
// 1e-12. Skips where ../shared/data is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "metric_catalogue.h"
#include "shared_data.h"

namespace lsm::test {
namespace {

class LandscapemetricsReference : public CliFixture {};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
  return fields;
}

TEST_F(LandscapemetricsReference, InformationTheoryMetricsEqualLandscapemetrics) {
  const std::string data = shared_data_dir() + "/landcover";
  LSM_REQUIRE_SHARED_FILE(data + "/lsm_augusta_nlcd.tif");
  std::ifstream reference(std::string(LSM_SOURCE_DIR) + "/tests/data/landscapemetrics_information.csv");
  ASSERT_TRUE(reference) << "tests/data/landscapemetrics_information.csv";
  std::map<std::string, std::map<std::string, double>> expected;
  std::string line;
  std::getline(reference, line);  // header
  while (std::getline(reference, line)) {
    std::stringstream fields(line);
    std::string raster, metric, value;
    std::getline(fields, raster, ',');
    std::getline(fields, metric, ',');
    std::getline(fields, value, ',');
    expected[raster][metric] = std::stod(value);
  }
  ASSERT_GE(expected.size(), 5u);
  for (const auto& [raster, values] : expected) {
    const std::string prefix = path("lm");
    const CliRun run = run_lsm("metrics " + data + "/" + raster + " --output " + prefix +
                               " --metrics ENT,CONDENT,JOINENT,MUTINF,RELMUTINF -q");
    ASSERT_EQ(run.code, 0) << run.err;
    std::stringstream land(slurp(prefix + ".land.csv"));
    std::string header, row;
    std::getline(land, header);
    std::getline(land, row);
    const std::vector<std::string> names = split(header), cells = split(row);
    ASSERT_EQ(names.size(), cells.size()) << raster;
    for (const auto& [metric, value] : values) {
      const auto at = std::find(names.begin(), names.end(), metric);
      ASSERT_NE(at, names.end()) << raster << ": no column " << metric;
      const double ours = std::stod(cells[static_cast<size_t>(at - names.begin())]);
      EXPECT_NEAR(ours, value, 1e-12 * std::max(1.0, std::fabs(value))) << raster << " " << metric;
    }
  }
}

// Every metric of landscapemetrics (its list_lsm(), tests/data/
// landscapemetrics_metrics.csv) is in lsm's catalogue at the same level: a
// patch, class or landscape column, or at class and landscape level a
// distribution (AREA_MN ... _CV) of a patch metric.
TEST(LandscapemetricsCatalogue, EveryLandscapemetricsMetricIsComputed) {
  std::ifstream list(std::string(LSM_SOURCE_DIR) + "/tests/data/landscapemetrics_metrics.csv");
  ASSERT_TRUE(list) << "tests/data/landscapemetrics_metrics.csv";
  size_t checked = 0;
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("\"metric\"", 0) == 0) continue;
    std::vector<std::string> fields = split(line);
    ASSERT_GE(fields.size(), 4u) << line;
    for (std::string& f : fields) f.erase(std::remove(f.begin(), f.end(), '"'), f.end());
    std::string acronym = fields[0];
    std::transform(acronym.begin(), acronym.end(), acronym.begin(), [](unsigned char c) { return std::toupper(c); });
    const std::string& level = fields[3];
    const unsigned bit = level == "patch" ? kPatchLevel : level == "class" ? kClassLevel : kLandscapeLevel;
    const MetricInfo* m = find_metric(acronym);
    bool computed = m && (m->levels & bit);
    if (!computed && bit != kPatchLevel) {  // a distribution statistic of a patch metric
      const size_t u = acronym.rfind('_');
      const MetricInfo* base = u == std::string::npos ? nullptr : find_metric(acronym.substr(0, u));
      const auto& stats = distribution_statistics();
      computed = base && base->distributed &&
                 std::find(stats.begin(), stats.end(), acronym.substr(u + 1)) != stats.end();
    }
    EXPECT_TRUE(computed) << acronym << " (" << level << ") of landscapemetrics is not in lsm's catalogue";
    ++checked;
  }
  EXPECT_EQ(checked, 133u);  // list_lsm() of landscapemetrics 2.2.2
}

}  // namespace
}  // namespace lsm::test
