#include "zonal_tables.h"

#include <fstream>
#include <sstream>

#include "csv_fields.h"
#include "error.h"

namespace lsm {

struct ZonalTableFiles::Table {
  std::string kind;  // "patch", "class", "land" or "tidy"
  AtomicOutput file;
  std::ofstream out;
  bool header_written = false;
};

ZonalTableFiles::ZonalTableFiles(const std::string& prefix, const MetricLevels& levels, TableFormat format)
    : levels_(levels), format_(format) {
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

ZonalTableFiles::~ZonalTableFiles() = default;

ZonalTableFiles::Table& ZonalTableFiles::table(MetricLevel level) {
  const std::string kind = format_ == TableFormat::Tidy   ? "tidy"
                           : level == MetricLevel::Patch ? "patch"
                           : level == MetricLevel::Class ? "class"
                                                         : "land";
  for (auto& t : tables_)
    if (t->kind == kind) return *t;
  throw Error(ErrorKind::Internal, "no zonal table '" + kind + "'");
}

// Every line of `text` with "ZONE," in front.
void ZonalTableFiles::add(const std::string& zone, const MetricTable& rows, MetricLevel level) {
  Table& t = table(level);
  if (!t.header_written) {
    if (format_ == TableFormat::Tidy) {
      t.out << "zone,level,class,id,metric,value\n";
    } else {
      t.out << "ZONE,";
      write_table_header(t.out, rows, level);
    }
    t.header_written = true;
  }
  std::ostringstream text;
  if (format_ == TableFormat::Tidy) write_tidy_rows(text, rows, level);
  else write_table_rows(text, rows, level);
  const std::string field = quote_csv_field(zone) + ",";
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) t.out << field << line << '\n';
}

void ZonalTableFiles::add_patch_rows(const std::string& zone, const MetricTable& rows) {
  if (levels_.patch) add(zone, rows, MetricLevel::Patch);
}

void ZonalTableFiles::add_zone(const std::string& zone, const FragstatsMetrics& m, bool patch_rows_added) {
  if (levels_.patch && !patch_rows_added) add(zone, m.patch, MetricLevel::Patch);
  if (levels_.cls) add(zone, m.cls, MetricLevel::Class);
  if (levels_.land) add(zone, m.land, MetricLevel::Landscape);
}

void ZonalTableFiles::commit() {
  for (auto& t : tables_) {
    t->out.close();
    if (!t->out) throw Error(ErrorKind::Io, "cannot write '" + t->file.final_path() + "'");
  }
  for (auto& t : tables_) t->file.commit();
}

}  // namespace lsm
