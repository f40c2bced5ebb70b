// Core area metrics (FRAGSTATS 4.2, "Core Area Metrics"): TCA, CPLAND,
// NDCA, DCAD and the CORE, DCORE and CAI distributions.
#include "metric_families.h"

namespace lsm::families {

void add_class_core_area(RowBuilder& b, const LevelContext& c, size_t k) {
  const ClassSums& s = c.sum(k);
  b.add("TCA", s.core_ha);
  b.add("CPLAND", s.core_ha / c.ta * 100);
  b.add("NDCA", s.ncore);
  b.add("DCAD", s.ncore / c.ta * 100);
  c.distributions(b, {k}, false);
}

void add_landscape_core_area(RowBuilder& b, const LevelContext& c) {
  double tca = 0, ndca = 0;
  for (size_t k : c.classes) {
    tca += c.sum(k).core_ha;
    ndca += c.sum(k).ncore;
  }
  b.add("TCA", tca);
  b.add("NDCA", ndca);
  b.add("DCAD", ndca / c.ta * 100);
  c.distributions(b, c.classes, false);
}

}  // namespace lsm::families
