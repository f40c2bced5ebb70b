// Isolation (FRAGSTATS 4.2, "Aggregation Metrics: isolation/proximity"): the
// ENN distribution (ENN itself is a patch column, metrics/fragstats/enn_sweep.h).
#include "metric_families.h"

namespace lsm::families {

void add_class_isolation(RowBuilder& b, const LevelContext& c, size_t k) { c.enn_distribution(b, {k}); }

void add_landscape_isolation(RowBuilder& b, const LevelContext& c) { c.enn_distribution(b, c.classes); }

}  // namespace lsm::families
