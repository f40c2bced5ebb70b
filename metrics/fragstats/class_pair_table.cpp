#include "class_pair_table.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "error.h"
#include "small_text_file.h"

namespace lsm {

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// "CLASS_LIST_NUMERIC(1, 2, 3)" split by the CSV reader into its fields: the
// keyword and the list's items.
std::vector<int32_t> class_list(const std::vector<std::string>& fields, const std::map<int32_t, std::string>& names,
                                 const std::string& where) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + fields[i];
  const size_t open = line.find('('), close = line.rfind(')');
  const std::string keyword = upper(trimmed(line.substr(0, open)));
  if (open == std::string::npos || close == std::string::npos || close < open || !trimmed(line.substr(close + 1)).empty() ||
      (keyword != "CLASS_LIST_NUMERIC" && keyword != "CLASS_LIST_LITERAL"))
    throw Error(ErrorKind::BadInput, where + "expected the class list, CLASS_LIST_NUMERIC(codes) or CLASS_LIST_LITERAL(names), not '" +
                                         line.substr(0, 60) + "'");
  const bool numeric = keyword == "CLASS_LIST_NUMERIC";
  std::vector<int32_t> codes;
  std::string items = line.substr(open + 1, close - open - 1);
  size_t start = 0;
  while (start <= items.size()) {
    const size_t comma = std::min(items.find(',', start), items.size());
    const std::string item = trimmed(items.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) throw Error(ErrorKind::BadInput, where + "an empty item in the class list");
    if (numeric) {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(item.c_str(), &end, 10);
      if (*end || errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
        throw Error(ErrorKind::BadInput, where + "'" + item.substr(0, 40) + "' is not a class code (an int32 integer)");
      codes.push_back(static_cast<int32_t>(v));
    } else {
      const auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.second == item; });
      if (it == names.end())
        throw Error(ErrorKind::BadInput, where + "no class descriptor names '" + item.substr(0, 40) +
                                             "' (CLASS_LIST_LITERAL needs the class descriptor file, --class-descriptors)");
      codes.push_back(it->first);
    }
  }
  std::vector<int32_t> sorted = codes;
  std::sort(sorted.begin(), sorted.end());
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end()) throw Error(ErrorKind::BadInput, where + "class " + std::to_string(*twice) + " is listed twice");
  return codes;
}

}  // namespace

bool ClassPairTable::lists(int32_t code) const { return std::find(codes.begin(), codes.end(), code) != codes.end(); }

double ClassPairTable::weight(int32_t a, int32_t b) const {
  const size_t i = static_cast<size_t>(std::find(codes.begin(), codes.end(), a) - codes.begin());
  const size_t k = static_cast<size_t>(std::find(codes.begin(), codes.end(), b) - codes.begin());
  if (i == codes.size() || k == codes.size())
    throw Error(ErrorKind::Internal, "no weight in '" + path + "' for classes " + std::to_string(a) + " and " + std::to_string(b));
  return d[i * codes.size() + k];
}

namespace {

// What differs between the kinds of class-pair file.
struct TableKind {
  const char* file;    // "the edge contrast file"
  const char* weight;  // "a contrast weight (a number from 0 to 1)"
  bool symmetric;
  double most;         // the largest value allowed (the least is 0)
};

ClassPairTable read_class_pair_table(const std::string& path, const std::map<int32_t, std::string>& names,
                                     const TableKind& kind) {
  ClassPairTable t;
  t.path = path;
  bool header = false, listed = false;
  std::vector<int> row_lines;
  const std::string what = kind.file;
  for_each_csv_record(path, what, 1 << 20, true, [&](const std::vector<std::string>& fields, int line, const std::string& where) {
    if (!header) {
      if (fields.size() != 1 || upper(fields[0]) != "FSQ_TABLE")
        throw Error(ErrorKind::BadInput, where + "expected FSQ_TABLE, the first line of a FRAGSTATS " +
                                             std::string(kind.file).substr(4));
      header = true;
      return;
    }
    if (!listed) {
      t.codes = class_list(fields, names, where);
      listed = true;
      return;
    }
    const size_t n = t.codes.size();
    if (row_lines.size() == n)
      throw Error(ErrorKind::BadInput, where + "more rows than the " + std::to_string(n) + " classes listed");
    if (fields.size() != n)
      throw Error(ErrorKind::BadInput, where + std::to_string(fields.size()) + " weights, expected " + std::to_string(n) +
                                           " (one per class listed)");
    for (const std::string& f : fields) {
      char* end = nullptr;
      const double v = std::strtod(f.c_str(), &end);
      if (f.empty() || *end || !(v >= 0 && v <= kind.most))
        throw Error(ErrorKind::BadInput, where + "'" + f.substr(0, 40) + "' is not " + kind.weight);
      t.d.push_back(v);
    }
    row_lines.push_back(line);
  });
  if (!header) throw Error(ErrorKind::BadInput, what + " '" + path + "' is empty: expected FSQ_TABLE, a class list and the weights");
  if (!listed) throw Error(ErrorKind::BadInput, what + " '" + path + "' has no class list");
  const size_t n = t.codes.size();
  if (row_lines.size() != n)
    throw Error(ErrorKind::BadInput, what + " '" + path + "' has " + std::to_string(row_lines.size()) + " rows of weights for " +
                                         std::to_string(n) + " classes");
  for (size_t i = 0; i < n && kind.symmetric; ++i)
    for (size_t k = i + 1; k < n; ++k)
      if (t.d[i * n + k] != t.d[k * n + i])
        throw Error(ErrorKind::BadInput, path + ":" + std::to_string(row_lines[k]) + ": the weight of classes " +
                                             std::to_string(t.codes[k]) + " and " + std::to_string(t.codes[i]) +
                                             " differs from that of " + std::to_string(t.codes[i]) + " and " +
                                             std::to_string(t.codes[k]) + " (line " + std::to_string(row_lines[i]) +
                                             "): an edge has one contrast");
  return t;
}

}  // namespace

ClassPairTable read_contrast_table(const std::string& path, const std::map<int32_t, std::string>& names) {
  return read_class_pair_table(path, names,
                               {"the edge contrast file", "a contrast weight (a number from 0 to 1)", true, 1});
}

ClassPairTable read_similarity_table(const std::string& path, const std::map<int32_t, std::string>& names) {
  return read_class_pair_table(path, names,
                               {"the similarity file", "a similarity weight (a number from 0 to 1)", false, 1});
}

ClassPairTable read_edge_depth_table(const std::string& path, const std::map<int32_t, std::string>& names) {
  return read_class_pair_table(path, names,
                               {"the edge depth file", "an edge depth (a distance of 0 m or more)", false, 1e9});
}

namespace {

int32_t listed_boundary_class(const ClassPairTable& table, const std::vector<int32_t>& background, const std::string& file,
                              const std::string& values) {
  const int32_t b = background.size() == 1 ? background.front() : kFragstatsBackgroundValue;
  if (!table.lists(b))
    throw Error(ErrorKind::BadInput,
                file + " '" + table.path + "' lists no class " + std::to_string(b) +
                    (background.size() == 1 ? std::string(" (the background class)")
                                            : std::string(" (FRAGSTATS' background value, as no single background class is given)")) +
                    ", whose " + values + " the landscape boundary takes (FRAGSTATS treats boundary segments like background)");
  return b;
}

}  // namespace

int32_t boundary_class(const ClassPairTable& table, const std::vector<int32_t>& background) {
  return listed_boundary_class(table, background, "the edge contrast file", "weights");
}

int32_t edge_depth_boundary_class(const ClassPairTable& table, const std::vector<int32_t>& background) {
  return listed_boundary_class(table, background, "the edge depth file", "depths");
}

void check_similarity_classes(const ClassPairTable& table, const std::vector<int32_t>& classes) {
  for (int32_t c : classes)
    if (!table.lists(c))
      throw Error(ErrorKind::BadInput, "the similarity file '" + table.path + "' lists no class " + std::to_string(c) +
                                           ", which is in the raster: every pair of patches needs its weight");
}

void check_edge_depth_classes(const ClassPairTable& table, const std::vector<int32_t>& classes) {
  for (int32_t c : classes)
    if (!table.lists(c))
      throw Error(ErrorKind::BadInput, "the edge depth file '" + table.path + "' lists no class " + std::to_string(c) +
                                           ", which is in the raster: every edge needs its depth");
}

void check_contrast_classes(const ClassPairTable& table, const std::vector<int32_t>& classes) {
  for (int32_t c : classes)
    if (!table.lists(c))
      throw Error(ErrorKind::BadInput, "the edge contrast file '" + table.path + "' lists no class " + std::to_string(c) +
                                           ", which is in the raster: every edge needs its weight");
}

}  // namespace lsm
