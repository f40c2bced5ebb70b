// Isolation (FRAGSTATS 4.2, "Aggregation Metrics: isolation/proximity"): the
// ENN, PROX and SIMI distributions (patch columns: enn_sweep.h, proximity_sweep.h).
#include "metric_families.h"

namespace lsm::families {

void add_class_isolation(RowBuilder& b, const LevelContext& c, size_t k) {
  c.patch_distribution(b, "ENN", {k});
  c.patch_distribution(b, "PROX", {k});
  c.patch_distribution(b, "SIMI", {k});
}

void add_landscape_isolation(RowBuilder& b, const LevelContext& c) {
  c.patch_distribution(b, "ENN", c.classes);
  c.patch_distribution(b, "PROX", c.classes);
  c.patch_distribution(b, "SIMI", c.classes);
}

}  // namespace lsm::families
