#include "keyed_tables.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "csv_fields.h"
#include "error.h"

namespace lsm {

struct KeyedTableFiles::Table {
  std::string kind;  // "patch", "class", "land" or "tidy"
  AtomicOutput file;
  std::ofstream out;
  bool header_written = false;
};

KeyedTableFiles::KeyedTableFiles(const std::string& prefix, const MetricLevels& levels, TableFormat format,
                                 std::string key)
    : levels_(levels), key_(std::move(key)), format_(format) {
  std::vector<std::string> kinds;
  if (format == TableFormat::Tidy) kinds = {"tidy"};
  else {
    if (levels.patch) kinds.push_back("patch");
    if (levels.cls) kinds.push_back("class");
    if (levels.land) kinds.push_back("land");
  }
  for (const std::string& kind : kinds) {
    auto t = std::unique_ptr<Table>(new Table{kind, AtomicOutput(prefix + "." + kind + ".csv"), {}, false});
    t->out.open(t->file.temp_path(), std::ios::binary | std::ios::trunc);
    if (!t->out) throw Error(ErrorKind::Io, "cannot write '" + t->file.final_path() + "'");
    tables_.push_back(std::move(t));
  }
}

KeyedTableFiles::~KeyedTableFiles() = default;

KeyedTableFiles::Table& KeyedTableFiles::table(MetricLevel level) {
  const std::string kind = format_ == TableFormat::Tidy   ? "tidy"
                           : level == MetricLevel::Patch ? "patch"
                           : level == MetricLevel::Class ? "class"
                                                         : "land";
  for (auto& t : tables_)
    if (t->kind == kind) return *t;
  throw Error(ErrorKind::Internal, "no zonal table '" + kind + "'");
}

void KeyedTableFiles::add_name_column() {
  for (const auto& t : tables_)
    if (t->header_written) throw Error(ErrorKind::Internal, "the NAME column is asked for after rows were written");
  named_ = true;
}

namespace {

// `line` (a class row, or the class header "TYPE,...") with `field` after its first field.
std::string with_second_field(const std::string& line, const std::string& field) {
  const size_t comma = line.find(',');
  return comma == std::string::npos ? line + "," + field : line.substr(0, comma) + "," + field + line.substr(comma);
}

}  // namespace

// Every row with the landscape's key in front (and the class's name after
// its TYPE in the class table, when named).
void KeyedTableFiles::add(const std::string& key, const MetricTable& rows, MetricLevel level) {
  Table& t = table(level);
  const bool named_class_rows = named_ && format_ != TableFormat::Tidy && level == MetricLevel::Class;
  if (!t.header_written) {
    if (format_ == TableFormat::Tidy) {
      std::string lower = key_;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      t.out << lower << (named_ ? ",level,class,name,id,metric,value\n" : ",level,class,id,metric,value\n");
    } else {
      std::ostringstream header;
      write_table_header(header, rows, level);
      std::string line = header.str();
      line.pop_back();  // its '\n'
      t.out << key_ << "," << (named_class_rows ? with_second_field(line, "NAME") : line) << '\n';
    }
    t.header_written = true;
  }
  std::ostringstream text;
  if (format_ == TableFormat::Tidy) write_tidy_rows(text, rows, level, named_ ? &names_ : nullptr);
  else write_table_rows(text, rows, level);
  const std::string field = quote_csv_field(key) + ",";
  std::istringstream lines(text.str());
  size_t row = 0;
  for (std::string line; std::getline(lines, line); ++row) {
    if (named_class_rows) {  // one line per class row, in order
      const auto name = names_.find(rows.rows.at(row).type);
      line = with_second_field(line, name == names_.end() ? std::string() : quote_csv_field(name->second));
    }
    t.out << field << line << '\n';
  }
}

void KeyedTableFiles::add_patch_rows(const std::string& key, const MetricTable& rows) {
  if (levels_.patch) add(key, rows, MetricLevel::Patch);
}

void KeyedTableFiles::add_landscape(const std::string& key, const FragstatsMetrics& m, bool patch_rows_added) {
  if (levels_.patch && !patch_rows_added) add(key, m.patch, MetricLevel::Patch);
  if (levels_.cls) add(key, m.cls, MetricLevel::Class);
  if (levels_.land) add(key, m.land, MetricLevel::Landscape);
}

void KeyedTableFiles::commit() {
  for (auto& t : tables_) {
    t->out.close();
    if (!t->out) throw Error(ErrorKind::Io, "cannot write '" + t->file.final_path() + "'");
  }
  for (auto& t : tables_) t->file.commit();
}

}  // namespace lsm
