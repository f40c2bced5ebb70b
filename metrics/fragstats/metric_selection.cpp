#include "metric_selection.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "error.h"
#include "metric_catalogue.h"
#include "near_match.h"
#include "serial_thresholds.h"

namespace lsm {
namespace {


std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// "GYRATE_MN" -> "GYRATE" for a distribution column, else the column itself.
std::string base_of(const std::string& column) {
  const size_t u = column.rfind('_');
  if (u == std::string::npos) return column;
  const std::string stat = column.substr(u + 1);
  for (const std::string& s : distribution_statistics())
    if (stat == s) return column.substr(0, u);
  return column;
}

}  // namespace

bool from_patch_records(const std::string& column) {
  const MetricInfo* m = find_metric(base_of(upper(column)));
  return m && !m->second_pass;
}

const std::vector<std::string>& known_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const MetricInfo& m : metric_catalogue()) n.push_back(m.acronym);
    for (const MetricInfo& m : metric_catalogue())
      if (m.distributed)
        for (const std::string& s : distribution_statistics()) n.push_back(std::string(m.acronym) + "_" + s);
    return n;
  }();
  return names;
}

bool MetricSelection::selects_at(unsigned level) const {
  for (const MetricInfo& m : metric_catalogue()) {
    if ((m.levels & level) && selects(m.acronym)) return true;
    if (level != kPatchLevel && m.distributed)
      for (const std::string& stat : distribution_statistics())
        if (selects(std::string(m.acronym) + "_" + stat)) return true;
  }
  return false;
}

MetricSelection::MetricSelection(const std::string& list) {
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }), item.end());
    if (item.empty()) continue;
    item = upper(item);
    const auto& known = known_metric_names();
    if (std::find(known.begin(), known.end(), item) == known.end()) {
      if (const MissingMetric* missing = find_missing_metric(item))
        throw Error(ErrorKind::BadInput,
                    item + " is a " + missing->from + " metric that lsm does not compute yet" +
                        (*missing->needs ? std::string(" (it needs ") + missing->needs + ")" : std::string()) +
                        "; `lsm metrics --list-metrics` lists those it does");
      const std::string meant = near_match(item, known);
      throw Error(ErrorKind::BadInput, "unknown metric '" + item + "'" + (meant.empty() ? "" : "; did you mean " + meant + "?") +
                                           " (`lsm metrics --list-metrics` lists them)");
    }
    names_.push_back(item);
  }
  if (names_.empty()) throw Error(ErrorKind::BadInput, "--metrics lists no metric");
}

bool MetricSelection::selects(const std::string& column) const {
  if (all()) return true;
  const std::string base = base_of(column);
  for (const std::string& n : names_)
    if (n == column || n == base) return true;
  return false;
}

bool MetricSelection::wants_enn() const { return wants_patch_metric("ENN"); }

bool MetricSelection::wants_patch_metric(const std::string& acronym) const {
  if (selects(acronym)) return true;
  for (const std::string& s : distribution_statistics())
    if (selects(acronym + "_" + s)) return true;
  return false;
}

bool MetricSelection::needs_second_pass() const {
  if (all()) return true;
  for (const std::string& n : names_)
    if (!from_patch_records(n)) return true;
  return false;
}

MetricTable MetricSelection::apply(const MetricTable& table) const {
  if (all()) return table;
  std::vector<size_t> keep;
  MetricTable out;
  for (size_t i = 0; i < table.columns.size(); ++i)
    if (selects(table.columns[i])) {
      keep.push_back(i);
      out.columns.push_back(table.columns[i]);
    }
  // Rows are independent: a patch table has millions.
  out.rows.resize(table.rows.size());
  const int64_t n_rows = static_cast<int64_t>(table.rows.size());
#pragma omp parallel for schedule(static) if (n_rows > kSerialRows)
  for (int64_t row = 0; row < n_rows; ++row) {
    const MetricTable::Row& r = table.rows[static_cast<size_t>(row)];
    MetricTable::Row& o = out.rows[static_cast<size_t>(row)];
    o.type = r.type;
    o.pid = r.pid;
    o.values.reserve(keep.size());
    for (size_t i : keep) o.values.push_back(r.values[i]);
  }
  return out;
}

}  // namespace lsm
