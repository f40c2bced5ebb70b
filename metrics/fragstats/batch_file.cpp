#include "batch_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "error.h"
#include "small_text_file.h"

namespace lsm {

namespace {

bool ends_with(std::string text, const std::string& suffix) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "x" and "" leave a field to the raster (FRAGSTATS' convention).
bool given(const std::string& field) { return !field.empty() && field != "x" && field != "X"; }

double number(const std::string& field, const std::string& where, const char* what) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(field.c_str(), &end);
  if (*end || errno == ERANGE || !std::isfinite(v))
    throw Error(ErrorKind::BadInput, where + "the " + what + " '" + field.substr(0, 40) + "' is not a number");
  return v;
}

int64_t integer(const std::string& field, const std::string& where, const char* what, int64_t low, int64_t high) {
  const double v = number(field, where, what);
  if (v != std::floor(v) || v < double(low) || v > double(high))
    throw Error(ErrorKind::BadInput, where + "the " + what + " '" + field.substr(0, 40) + "' is not an integer from " +
                                         std::to_string(low) + " to " + std::to_string(high));
  return static_cast<int64_t>(v);
}

}  // namespace

void with_batch_line(const BatchLandscape& landscape, const std::function<void()>& open) {
  if (landscape.batch_file.empty()) return open();
  try {
    open();
  } catch (const Error& e) {
    throw Error(e.kind(), landscape.batch_file + ":" + std::to_string(landscape.line) + ": " + e.what() + " (" +
                              landscape.batch_file + " is read as a batch file: one raster a line" +
                              (ends_with(landscape.batch_file, ".fbt") ? ", FRAGSTATS' fields after it)" : ")"));
  }
}

bool is_batch_file(const std::string& path) {
  return ends_with(path, ".fbt") || ends_with(path, ".txt") || ends_with(path, ".lst");
}

std::vector<BatchLandscape> read_batch_file(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::vector<BatchLandscape> landscapes;
  // FRAGSTATS writes its batch files on Windows: for_each_csv_record drops the '\r's.
  for_each_csv_record(path, "the batch file", 1 << 20, true, [&](const std::vector<std::string>& fields, int line,
                                                                 const std::string& where) {
    const size_t n = fields.size();
    if (n != 1 && n != 6 && n != 8)
      throw Error(ErrorKind::BadInput, where + std::to_string(n) + " fields; a FRAGSTATS batch line has 8 (InputFileName, "
                                           "CellSize, Background, Rows, Columns, BandNumber, NoData, InputDataType), 6 "
                                           "(FRAGSTATS 3) or 1 (a path alone)");
    BatchLandscape l;
    l.batch_file = path;
    l.line = line;
    if (fields[0].empty()) throw Error(ErrorKind::BadInput, where + "no raster path in the first field");
    const std::filesystem::path raster(fields[0]);
    l.path = raster.is_absolute() || folder.empty() ? raster.string() : (folder / raster).string();
    if (n > 1) {
      if (given(fields[1])) {
        l.cell_size = number(fields[1], where, "cell size");
        if (!(*l.cell_size > 0)) throw Error(ErrorKind::BadInput, where + "the cell size must be above 0 m");
      }
      if (given(fields[2])) l.background = static_cast<int32_t>(integer(fields[2], where, "background value", INT32_MIN + 1, INT32_MAX));
      if (given(fields[3])) l.rows = integer(fields[3], where, "number of rows", 1, INT64_MAX / 2);
      if (given(fields[4])) l.columns = integer(fields[4], where, "number of columns", 1, INT64_MAX / 2);
    }
    if (n == 8) {
      if (given(fields[5])) l.band = static_cast<int>(integer(fields[5], where, "band number", 1, INT_MAX));
      if (given(fields[6])) l.nodata = number(fields[6], where, "nodata value");
    }
    landscapes.push_back(std::move(l));
  });
  if (landscapes.empty()) throw Error(ErrorKind::BadInput, "the batch file '" + path + "' names no raster");
  return landscapes;
}

}  // namespace lsm
