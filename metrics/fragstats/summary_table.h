#pragma once
// The readable summary of `lsm metrics --print`: a few key columns of the
// class and landscape tables, aligned, with the catalogue's units and the
// class names where the raster has them (a raster attribute table or
// category names). The CSV files hold every column; this is for a person.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "fragstats_metrics.h"
#include "fragstats_tables.h"

namespace lsm {

/// Writes `table` (class or landscape level) as aligned text: a header of
/// acronyms, a line of units, then one line per row; the class table shows
/// TYPE, the class name where `class_names` has one, CA, PLAND, NP, PD, LPI,
/// ED, AREA_MN, ENN_MN, AI; the landscape table TA, NP, PD, LPI, ED, CONTAG,
/// SHDI, SIDI, AI (those the table holds). Values with 4 decimals as in the
/// CSV files, undefined values as "N/A".
void write_summary_table(std::ostream& out, const MetricTable& table, MetricLevel level,
                         const std::map<int32_t, std::string>& class_names = {});

}  // namespace lsm
