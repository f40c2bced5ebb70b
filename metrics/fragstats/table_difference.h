#pragma once
// The change of a landscape's metrics between two dates (lsm change): the
// later table minus the earlier, column by column, as pylandstats'
// SpatioTemporalAnalysis reports a class's or the landscape's change.
#include "fragstats_metrics.h"

namespace lsm {

/// True for the class metrics that are 0, not undefined, for a class absent
/// from a landscape: it covers none of it (CA, PLAND, LPI), has no patch (NP,
/// PD) and no edge (TE, ED). Other metrics of an absent class are N/A.
bool zero_when_class_absent(const std::string& metric);

/// `later` − `earlier`, value by value. Both tables must have the same
/// columns (lsm::Error(Internal) otherwise). Landscape tables: one row.
/// Class tables: one row per class of either date, ascending; a class absent
/// at one date counts 0 there for zero_when_class_absent() metrics and N/A
/// (NaN) for the others. N/A at either date gives N/A.
MetricTable table_difference(const MetricTable& earlier, const MetricTable& later, bool by_class);

}  // namespace lsm
