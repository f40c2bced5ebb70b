// near_match(): the name a typo meant, or none when no name is near enough
// or two are equally near.
#include <gtest/gtest.h>

#include "near_match.h"

namespace lsm::test {
namespace {

TEST(NearMatch, TyposFindTheirNameAndNothingElseDoes) {
  const std::vector<std::string> options = {"--neighbors", "--nodata", "--memory-limit", "--metrics", "--level"};
  EXPECT_EQ(near_match("--neighbours", options), "--neighbors");  // one insertion
  EXPECT_EQ(near_match("--metircs", options), "--metrics");       // two letters swapped
  EXPECT_EQ(near_match("--LEVEL", options), "--level");           // case
  EXPECT_EQ(near_match("--frob", options), "");                    // nothing near
  const std::vector<std::string> metrics = {"SHDI", "SIDI", "SHEI", "AREA", "CA"};
  EXPECT_EQ(near_match("SHDII", metrics), "SHDI");
  EXPECT_EQ(near_match("SXDI", metrics), "");  // SHDI and SIDI one edit each: no guess
  EXPECT_EQ(near_match("XY", metrics), "");    // short words: one edit at most (CA is two away)
  EXPECT_EQ(near_match("", metrics), "");
}

}  // namespace
}  // namespace lsm::test
