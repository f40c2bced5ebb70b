#pragma once
// The tables of a zonal run (lsm zonal): the tables of lsm metrics
// (fragstats_tables.h) with a ZONE column first — PREFIX.patch.csv
// "ZONE,PID,TYPE,...", PREFIX.class.csv "ZONE,TYPE,...", PREFIX.land.csv
// "ZONE,..." — or PREFIX.tidy.csv "zone,level,class,id,metric,value". Rows
// come zone by zone; PIDs are those of the zone's own landscape. Written
// under temporary names and renamed into place by commit().
#include <memory>
#include <string>
#include <vector>

#include "atomic_output.h"
#include "fragstats_tables.h"

namespace lsm {

class ZonalTableFiles {
 public:
  /// Creates the temporary files at once. Throws lsm::Error(Io) when one cannot be created.
  ZonalTableFiles(const std::string& prefix, const MetricLevels& levels, TableFormat format);
  ~ZonalTableFiles();
  /// A block of zone `zone`'s patch rows (PID order), as the job hands them out.
  void add_patch_rows(const std::string& zone, const MetricTable& rows);
  /// Zone `zone`'s class and landscape rows (and its patch rows, where they
  /// did not come through add_patch_rows()).
  void add_zone(const std::string& zone, const FragstatsMetrics& m, bool patch_rows_added);
  /// Closes and renames every table into place. Throws lsm::Error(Io).
  void commit();

 private:
  struct Table;
  Table& table(MetricLevel level);
  void add(const std::string& zone, const MetricTable& rows, MetricLevel level);
  MetricLevels levels_;
  TableFormat format_;
  std::vector<std::unique_ptr<Table>> tables_;
};

}  // namespace lsm
