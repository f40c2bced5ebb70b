#pragma once
// The tables of many landscapes in one set: the tables of lsm metrics
// (fragstats_tables.h) with a key column first that names the landscape —
// ZONE for the zones of lsm zonal, LID for a batch of rasters (FRAGSTATS'
// own batch output): PREFIX.patch.csv "ZONE,PID,TYPE,...", PREFIX.class.csv
// "ZONE,TYPE,...", PREFIX.land.csv "ZONE,..." — or PREFIX.tidy.csv
// "zone,level,class,id,metric,value". Rows come landscape by landscape;
// PIDs are those of each landscape. Written under temporary names and
// renamed into place by commit().
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "atomic_output.h"
#include "fragstats_tables.h"

namespace lsm {

class KeyedTableFiles {
 public:
  /// Creates the temporary files at once; `key` is the key column's name
  /// ("ZONE", "LID"; lower case in the tidy table). Throws lsm::Error(Io)
  /// when one cannot be created.
  KeyedTableFiles(const std::string& prefix, const MetricLevels& levels, TableFormat format, std::string key);
  ~KeyedTableFiles();
  /// Gives the class and tidy tables a NAME column (after TYPE; "name" after
  /// class in the tidy table), as lsm metrics' tables have where classes have
  /// names. Call before any rows; the names come from set_class_names().
  void add_name_column();
  /// The class names of the landscapes added from now on (a batch's rasters
  /// may name their classes differently); classes without one get an empty NAME.
  void set_class_names(std::map<int32_t, std::string> names) { names_ = std::move(names); }
  /// A block of landscape `key`'s patch rows (PID order), as the job hands them out.
  void add_patch_rows(const std::string& key, const MetricTable& rows);
  /// Landscape `key`'s class and landscape rows (and its patch rows, where
  /// they did not come through add_patch_rows()).
  void add_landscape(const std::string& key, const FragstatsMetrics& m, bool patch_rows_added);
  /// Closes and renames every table into place. Throws lsm::Error(Io).
  void commit();

 private:
  struct Table;
  Table& table(MetricLevel level);
  void add(const std::string& key, const MetricTable& rows, MetricLevel level);
  MetricLevels levels_;
  bool named_ = false;                     // a NAME column
  std::map<int32_t, std::string> names_;  // of the landscapes being added
  std::string key_;
  TableFormat format_;
  std::vector<std::unique_ptr<Table>> tables_;
};

}  // namespace lsm
