#pragma once
// The tables lsm metrics writes. FRAGSTATS format: PREFIX.patch.csv,
// PREFIX.class.csv, PREFIX.land.csv (one column per FRAGSTATS acronym, TYPE
// the integer class code, PID the patch ID of the patch-ID raster); tidy
// format: PREFIX.tidy.csv with one row per value (level,class,id,metric,value,
// as landscapemetrics returns). Both write PREFIX.adj.csv, the class adjacency
// matrix, when the run counted it (its second pass ran). Numbers at full precision (shortest text that reads back to the
// same double); undefined values (FRAGSTATS' N/A) are empty fields.
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "atomic_output.h"
#include "fragstats_metrics.h"
#include "patch_row_metrics.h"

namespace lsm {

/// Shortest decimal text that reads back exactly; "" for NaN.
std::string format_value(double v);

enum class MetricLevel { Patch, Class, Landscape };
enum class TableFormat { Fragstats, Tidy };

/// Which tables a run writes.
struct MetricLevels {
  bool patch = true, cls = true, land = true;
  /// Parses "patch,class,land" (any non-empty subset; "landscape" = "land").
  /// Throws lsm::Error(BadInput) otherwise.
  static MetricLevels parse(const std::string& list);
};

/// Parses "fragstats" or "tidy"; throws lsm::Error(BadInput) otherwise.
TableFormat parse_table_format(const std::string& text);

/// One table in FRAGSTATS layout: patch "PID,TYPE,...", class "TYPE,...", landscape "...".
void write_table_csv(std::ostream& out, const MetricTable& table, MetricLevel level);
/// The header line, and the rows alone, of write_table_csv() (for a table written in pieces).
void write_table_header(std::ostream& out, const MetricTable& table, MetricLevel level);
void write_table_rows(std::ostream& out, const MetricTable& table, MetricLevel level);
/// The rows of one table as tidy lines (without the header).
/// Tidy rows "level,class,id,metric,value"; with `names`, "level,class,name,id,metric,value".
void write_tidy_rows(std::ostream& out, const MetricTable& table, MetricLevel level,
                     const std::map<int32_t, std::string>* names = nullptr);
/// The class table with a NAME column after TYPE (names of `names`, empty
/// where a class has none; quoted as CSV needs).
void write_named_class_csv(std::ostream& out, const MetricTable& table, const std::map<int32_t, std::string>& names);
/// The selected levels as tidy rows: level,class,id,metric,value ("patch"/"class"/"landscape";
/// class empty at landscape level; id = PID at patch level, else empty); with
/// `names`, a name column after class (as write_tidy_rows()).
void write_tidy_csv(std::ostream& out, const FragstatsMetrics& m, const MetricLevels& levels,
                    const std::map<int32_t, std::string>* names = nullptr);
/// The adjacency matrix: header "TYPE,<code>,<code>...", one row per class
/// (double-count cell-side adjacencies, like FRAGSTATS' .adj file).
void write_adjacency_csv(std::ostream& out, const ClassAdjacency& adjacency);

/// The files of one run, created (as temporary files) on construction so that
/// an unwritable PREFIX fails before the scan starts; renamed into place by write().
class MetricTableFiles {
 public:
  /// `with_adjacency`: also PREFIX.adj.csv. Throws lsm::Error(Io) when a file cannot be created.
  MetricTableFiles(const std::string& prefix, const MetricLevels& levels, TableFormat format, bool with_adjacency);
  /// Appends patch rows (PID order) to the patch table, or to the tidy
  /// table, as compute_fragstats_metrics() hands them out (its PatchRowSink).
  void write_patch_rows(const MetricTable& rows);
  /// Writes every table (the adjacency matrix from `rows`; the patch table
  /// from `m` unless its rows came through write_patch_rows()) and renames
  /// them into place. Throws lsm::Error(Io).
  void write(const FragstatsMetrics& m, const PatchRowResults& rows);
  /// Class names (the raster's attribute table or category names, or a
  /// FRAGSTATS class descriptor file): the class and tidy tables get a NAME
  /// column when there are any. Call before any rows are written.
  void set_class_names(std::map<int32_t, std::string> names) { names_ = std::move(names); }

 private:
  std::map<int32_t, std::string> names_;
  std::ofstream& stream(const std::string& kind);
  MetricLevels levels_;
  TableFormat format_;
  std::vector<std::pair<std::string, AtomicOutput>> files_;  // kind -> file
  std::map<std::string, std::unique_ptr<std::ofstream>> streams_;  // open temporary files, by kind
  bool patch_rows_streamed_ = false;
};

}  // namespace lsm
