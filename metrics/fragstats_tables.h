#pragma once
// The FRAGSTATS-style tables lsm metrics writes: PREFIX.patch.csv,
// PREFIX.class.csv and PREFIX.land.csv. Plain CSV, FRAGSTATS acronyms as
// headers, TYPE the integer class code, numbers at full precision (shortest
// text that reads back to the same double), FRAGSTATS units.
#include <ostream>
#include <string>

#include "area_edge_metrics.h"
#include "atomic_output.h"
#include "patch_scan.h"

namespace lsm {

/// Formats a double as the shortest decimal text that reads back exactly.
std::string format_value(double v);

/// Writes the patch table: PID,TYPE,AREA,PERIM (one row per patch, PID order).
void write_patch_csv(std::ostream& out, const PatchTable& table);
/// Writes the class table: TYPE,CA,PLAND,NP,PD,LPI,TE,ED,AREA_MN.
void write_class_csv(std::ostream& out, const AreaEdgeMetrics& m);
/// Writes the landscape table: TA,NP,PD,LPI,TE,ED,AREA_MN.
void write_land_csv(std::ostream& out, const AreaEdgeMetrics& m);

/// The three table files of one run, created (as temporary files) on
/// construction so that an unwritable PREFIX fails before the scan starts.
class FragstatsTableFiles {
 public:
  /// Throws lsm::Error(Io) when any of the three files cannot be created.
  explicit FragstatsTableFiles(const std::string& prefix);
  /// Writes all three tables and renames them into place. Throws lsm::Error(Io).
  void write(const PatchTable& table, const AreaEdgeMetrics& m);

 private:
  AtomicOutput patch_, class_, land_;
};

}  // namespace lsm
