#pragma once
// The area/edge set of lsm metrics' product path, as the benchmarks time it:
// `lsm metrics --metrics AREA,PERIM,CA,PLAND,NP,PD,LPI,TE,ED,AREA_MN`, tables
// from the scan's records alone (no second pass).
#include "fragstats_metrics.h"
#include "metric_selection.h"
#include "patch_row_metrics.h"

namespace lsm {

inline FragstatsMetrics area_edge_tables(const PatchTable& table) {
  static const MetricSelection selection("AREA,PERIM,CA,PLAND,NP,PD,LPI,TE,ED,AREA_MN");
  MetricOptions options;
  options.wanted = [](const std::string& column) { return selection.selects(column); };
  return compute_fragstats_metrics(table, records_only_row_results(table), options);
}

}  // namespace lsm
