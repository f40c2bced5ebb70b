#include "fragstats_tables.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "csv_fields.h"
#include "error.h"

namespace lsm {

std::string format_value(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

MetricLevels MetricLevels::parse(const std::string& list) {
  MetricLevels l{false, false, false};
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "patch") l.patch = true;
    else if (item == "class") l.cls = true;
    else if (item == "land" || item == "landscape") l.land = true;
    else throw Error(ErrorKind::BadInput, "unknown level '" + item + "' (use patch, class, land)");
  }
  if (!l.patch && !l.cls && !l.land) throw Error(ErrorKind::BadInput, "--level lists no level");
  return l;
}

TableFormat parse_table_format(const std::string& text) {
  if (text == "fragstats") return TableFormat::Fragstats;
  if (text == "tidy") return TableFormat::Tidy;
  throw Error(ErrorKind::BadInput, "unknown table format '" + text + "' (use fragstats or tidy)");
}

namespace {

// Appends rows [begin, end) of `table` to `text` as CSV lines. Numbers go
// through std::to_chars into a line buffer, appended to `text` once per row:
// a stream insertion per field took longer than the metrics for a million
// patches, and an append per field a tenth of the table's time.
void format_rows(std::string& text, const MetricTable& table, MetricLevel level, size_t begin, size_t end) {
  constexpr size_t kFieldChars = 32;  // a separator and the longest number to_chars writes (24 characters)
  std::vector<char> line;
  for (size_t row = begin; row < end; ++row) {
    const MetricTable::Row& r = table.rows[row];
    line.resize(std::max(line.size(), (r.values.size() + 2) * kFieldChars + 1));
    char* p = line.data();
    char* const line_end = line.data() + line.size();
    auto put = [&](auto v) { p = std::to_chars(p, line_end, v).ptr; };
    if (level == MetricLevel::Patch) {
      put(r.pid);
      *p++ = ',';
      put(r.type);
    } else if (level == MetricLevel::Class) {
      put(r.type);
    }
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (i > 0 || level != MetricLevel::Landscape) *p++ = ',';
      if (!std::isnan(r.values[i])) put(r.values[i]);  // NaN: FRAGSTATS' N/A, an empty field
    }
    *p++ = '\n';
    text.append(line.data(), p);
  }
}

}  // namespace

void write_table_header(std::ostream& out, const MetricTable& table, MetricLevel level) {
  if (level == MetricLevel::Patch) out << "PID,TYPE";
  else if (level == MetricLevel::Class) out << "TYPE";
  for (size_t i = 0; i < table.columns.size(); ++i)
    out << (i == 0 && level == MetricLevel::Landscape ? "" : ",") << table.columns[i];
  out << '\n';
}

void write_table_csv(std::ostream& out, const MetricTable& table, MetricLevel level) {
  write_table_header(out, table, level);
  write_table_rows(out, table, level);
}

void write_table_rows(std::ostream& out, const MetricTable& table, MetricLevel level) {
  // Pieces of rows are formatted in parallel, a batch of pieces at a time (so
  // memory stays bounded), and written in order: the same bytes as one thread.
  constexpr size_t kPieceRows = size_t(1) << 14, kBatchPieces = 64;
  const size_t pieces = (table.rows.size() + kPieceRows - 1) / kPieceRows;
  std::vector<std::string> text(std::min(pieces, kBatchPieces));
  for (size_t first = 0; first < pieces; first += kBatchPieces) {
    const int64_t batch = static_cast<int64_t>(std::min(kBatchPieces, pieces - first));
#pragma omp parallel for schedule(dynamic) if (batch > 1)
    for (int64_t k = 0; k < batch; ++k) {
      const size_t begin = (first + static_cast<size_t>(k)) * kPieceRows;
      text[static_cast<size_t>(k)].clear();
      format_rows(text[static_cast<size_t>(k)], table, level, begin, std::min(begin + kPieceRows, table.rows.size()));
    }
    for (int64_t k = 0; k < batch; ++k)
      out.write(text[static_cast<size_t>(k)].data(), static_cast<std::streamsize>(text[static_cast<size_t>(k)].size()));
  }
}

namespace {

std::string name_of(const std::map<int32_t, std::string>& names, int32_t type) {
  const auto it = names.find(type);
  return it == names.end() ? std::string() : quote_csv_field(it->second);
}

// The tidy table's header, with a name column when classes have names.
const char* tidy_header(bool named) {
  return named ? "level,class,name,id,metric,value\n" : "level,class,id,metric,value\n";
}

}  // namespace

void write_named_class_csv(std::ostream& out, const MetricTable& table, const std::map<int32_t, std::string>& names) {
  out << "TYPE,NAME";
  for (const std::string& c : table.columns) out << ',' << c;
  out << '\n';
  for (const MetricTable::Row& r : table.rows) {
    out << r.type << ',' << name_of(names, r.type);
    for (double v : r.values) out << ',' << format_value(v);
    out << '\n';
  }
}

void write_tidy_rows(std::ostream& out, const MetricTable& t, MetricLevel level,
                     const std::map<int32_t, std::string>* names) {
  const char* name = level == MetricLevel::Patch ? "patch" : level == MetricLevel::Class ? "class" : "landscape";
  for (const MetricTable::Row& r : t.rows)
    for (size_t i = 0; i < t.columns.size(); ++i) {
      out << name << ',';
      if (level != MetricLevel::Landscape) out << r.type;
      out << ',';
      if (names) out << (level == MetricLevel::Landscape ? std::string() : name_of(*names, r.type)) << ',';
      if (level == MetricLevel::Patch) out << r.pid;
      out << ',' << t.columns[i] << ',' << format_value(r.values[i]) << '\n';
    }
}

void write_tidy_csv(std::ostream& out, const FragstatsMetrics& m, const MetricLevels& levels,
                    const std::map<int32_t, std::string>* names) {
  out << tidy_header(names != nullptr);
  if (levels.patch) write_tidy_rows(out, m.patch, MetricLevel::Patch, names);
  if (levels.cls) write_tidy_rows(out, m.cls, MetricLevel::Class, names);
  if (levels.land) write_tidy_rows(out, m.land, MetricLevel::Landscape, names);
}

void write_adjacency_csv(std::ostream& out, const ClassAdjacency& a) {
  out << "TYPE";
  for (int32_t c : a.class_codes) out << ',' << c;
  out << '\n';
  for (size_t i = 0; i < a.class_codes.size(); ++i) {
    out << a.class_codes[i];
    for (size_t j = 0; j < a.class_codes.size(); ++j) out << ',' << a.at(i, j);
    out << '\n';
  }
}

MetricTableFiles::MetricTableFiles(const std::string& prefix, const MetricLevels& levels, TableFormat format,
                                   bool with_adjacency)
    : levels_(levels), format_(format) {
  if (format == TableFormat::Tidy) {
    files_.emplace_back("tidy", AtomicOutput(prefix + ".tidy.csv"));
  } else {
    if (levels.patch) files_.emplace_back("patch", AtomicOutput(prefix + ".patch.csv"));
    if (levels.cls) files_.emplace_back("class", AtomicOutput(prefix + ".class.csv"));
    if (levels.land) files_.emplace_back("land", AtomicOutput(prefix + ".land.csv"));
  }
  if (with_adjacency) files_.emplace_back("adj", AtomicOutput(prefix + ".adj.csv"));
}

std::ofstream& MetricTableFiles::stream(const std::string& kind) {
  for (auto& [k, file] : files_)
    if (k == kind) {
      std::unique_ptr<std::ofstream>& out = streams_[kind];
      if (!out) out = std::make_unique<std::ofstream>(file.temp_path(), std::ios::binary | std::ios::trunc);
      return *out;
    }
  throw Error(ErrorKind::Internal, "no table file '" + kind + "'");
}

void MetricTableFiles::write_patch_rows(const MetricTable& rows) {
  if (!levels_.patch) return;
  const bool first = !patch_rows_streamed_;
  patch_rows_streamed_ = true;
  if (format_ == TableFormat::Tidy) {
    std::ofstream& out = stream("tidy");
    if (first) out << tidy_header(!names_.empty());
    write_tidy_rows(out, rows, MetricLevel::Patch, names_.empty() ? nullptr : &names_);
  } else {
    std::ofstream& out = stream("patch");
    if (first) write_table_header(out, rows, MetricLevel::Patch);
    write_table_rows(out, rows, MetricLevel::Patch);
  }
}

void MetricTableFiles::write(const FragstatsMetrics& m, const PatchRowResults& rows) {
  for (auto& [kind, file] : files_) {
    std::ofstream& out = stream(kind);
    if (kind == "tidy") {
      const std::map<int32_t, std::string>* names = names_.empty() ? nullptr : &names_;
      if (!patch_rows_streamed_) {
        write_tidy_csv(out, m, levels_, names);
      } else {  // the header and the patch rows are there already
        if (levels_.cls) write_tidy_rows(out, m.cls, MetricLevel::Class, names);
        if (levels_.land) write_tidy_rows(out, m.land, MetricLevel::Landscape, names);
      }
    } else if (kind == "patch") {
      if (!patch_rows_streamed_) write_table_csv(out, m.patch, MetricLevel::Patch);
    } else if (kind == "class") {
      if (names_.empty()) write_table_csv(out, m.cls, MetricLevel::Class);
      else write_named_class_csv(out, m.cls, names_);
    } else if (kind == "land") {
      write_table_csv(out, m.land, MetricLevel::Landscape);
    } else if (rows.second_pass) {
      write_adjacency_csv(out, rows.adjacency);
    } else {
      throw Error(ErrorKind::Internal, "no class adjacencies without the second pass");
    }
    out.close();
    if (!out) throw Error(ErrorKind::Io, "cannot write '" + file.final_path() + "'");
  }
  streams_.clear();
  for (auto& f : files_) f.second.commit();
}

}  // namespace lsm
