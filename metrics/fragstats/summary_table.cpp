#include "summary_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "metric_catalogue.h"

namespace lsm {

namespace {

const std::vector<std::string> kClassColumns = {"CA", "PLAND", "NP", "PD", "LPI", "ED", "AREA_MN", "ENN_MN", "AI"};
const std::vector<std::string> kLandscapeColumns = {"TA", "NP", "PD", "LPI", "ED", "CONTAG", "SHDI", "SIDI", "AI"};

// Counts as whole numbers, the rest with 4 decimals as in the CSV files.
std::string number(double v, bool count) {
  if (std::isnan(v)) return "N/A";
  char text[64];
  std::snprintf(text, sizeof text, count ? "%.0f" : "%.4f", v);
  return text;
}

// The unit of a column: its metric's, or its base metric's for a distribution (AREA_MN: ha).
std::string unit_of(const std::string& column) {
  const MetricInfo* m = find_metric(column);
  if (!m) m = find_metric(column.substr(0, column.rfind('_')));
  if (!m || std::string(m->unit) == "none") return "";
  return m->unit;
}

}  // namespace

void write_summary_table(std::ostream& out, const MetricTable& table, MetricLevel level,
                         const std::map<int32_t, std::string>& class_names) {
  const bool classes = level == MetricLevel::Class;
  std::vector<std::string> header, units;
  std::vector<size_t> picked;
  if (classes) {
    header.push_back("TYPE");
    units.push_back("");
    if (!class_names.empty()) {
      header.push_back("NAME");
      units.push_back("");
    }
  }
  for (const std::string& c : classes ? kClassColumns : kLandscapeColumns) {
    const auto at = std::find(table.columns.begin(), table.columns.end(), c);
    if (at == table.columns.end()) continue;
    picked.push_back(static_cast<size_t>(at - table.columns.begin()));
    header.push_back(c);
    units.push_back(unit_of(c));
  }
  std::vector<std::vector<std::string>> lines{header, units};
  for (const MetricTable::Row& r : table.rows) {
    std::vector<std::string> line;
    if (classes) {
      line.push_back(std::to_string(r.type));
      if (!class_names.empty()) {
        const auto name = class_names.find(r.type);
        line.push_back(name == class_names.end() ? "" : name->second);
      }
    }
    for (size_t i = 0; i < picked.size(); ++i)
      line.push_back(number(r.values[picked[i]], units[units.size() - picked.size() + i] == "count"));
    lines.push_back(line);
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& line : lines)
    for (size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  const size_t text_columns = classes ? (class_names.empty() ? 1 : 2) : 0;
  for (const auto& line : lines) {
    std::string text;
    for (size_t i = 0; i < line.size(); ++i) {
      const size_t pad = width[i] - line[i].size();
      // Names and codes to the left, numbers to the right.
      text += i < text_columns ? line[i] + std::string(pad, ' ') : std::string(pad, ' ') + line[i];
      if (i + 1 < line.size()) text += "  ";
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << '\n';
  }
}

}  // namespace lsm
