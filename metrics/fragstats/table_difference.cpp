#include "table_difference.h"

#include <cmath>
#include <map>

#include "error.h"

namespace lsm {

bool zero_when_class_absent(const std::string& metric) {
  return metric == "CA" || metric == "PLAND" || metric == "LPI" || metric == "NP" || metric == "PD" ||
         metric == "TE" || metric == "ED";
}

MetricTable table_difference(const MetricTable& earlier, const MetricTable& later, bool by_class) {
  if (earlier.columns != later.columns) throw Error(ErrorKind::Internal, "the two dates' tables differ in columns");
  MetricTable d;
  d.columns = earlier.columns;
  const size_t n = d.columns.size();
  if (!by_class) {
    if (earlier.rows.empty() || later.rows.empty()) return d;
    MetricTable::Row row;
    for (size_t c = 0; c < n; ++c) row.values.push_back(later.rows[0].values[c] - earlier.rows[0].values[c]);
    d.rows.push_back(row);
    return d;
  }
  std::map<int32_t, std::pair<const MetricTable::Row*, const MetricTable::Row*>> classes;
  for (const MetricTable::Row& r : earlier.rows) classes[r.type].first = &r;
  for (const MetricTable::Row& r : later.rows) classes[r.type].second = &r;
  for (const auto& [type, rows] : classes) {
    MetricTable::Row row;
    row.type = type;
    for (size_t c = 0; c < n; ++c) {
      const double absent = zero_when_class_absent(d.columns[c]) ? 0.0 : std::nan("");
      const double a = rows.first ? rows.first->values[c] : absent, b = rows.second ? rows.second->values[c] : absent;
      row.values.push_back(b - a);  // NaN stays NaN
    }
    d.rows.push_back(row);
  }
  return d;
}

}  // namespace lsm
