#pragma once
// Checks on the landscape job's tables shared by the metric tests: a column
// by name, a value by row and name, and two runs' tables equal to the bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "fragstats_metrics.h"

namespace lsm::test {

/// The index of column `name` of `t` (a test failure and columns.size() when absent).
inline size_t column(const MetricTable& t, const std::string& name) {
  const size_t c = static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), name) - t.columns.begin());
  EXPECT_LT(c, t.columns.size()) << name;
  return c;
}

/// Row `row`'s value of column `name`.
inline double value(const MetricTable& t, size_t row, const std::string& name) {
  return t.rows.at(row).values.at(column(t, name));
}

/// The patch, class and landscape tables of `got` and `expected` hold the
/// same columns, rows and values, bit for bit (NaN equal to NaN).
inline void expect_same_tables(const FragstatsMetrics& got, const FragstatsMetrics& expected) {
  for (const auto& [a, b] : {std::pair{&got.patch, &expected.patch}, {&got.cls, &expected.cls}, {&got.land, &expected.land}}) {
    ASSERT_EQ(a->columns, b->columns);
    ASSERT_EQ(a->rows.size(), b->rows.size());
    for (size_t r = 0; r < a->rows.size(); ++r)
      for (size_t c = 0; c < a->columns.size(); ++c) {
        const double x = a->rows[r].values[c], y = b->rows[r].values[c];
        EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y))) << a->columns[c] << " row " << r << ": " << x << " " << y;
      }
  }
}

}  // namespace lsm::test
