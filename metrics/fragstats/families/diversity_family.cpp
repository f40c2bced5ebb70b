// Diversity metrics (FRAGSTATS 4.2, "Diversity Metrics"), landscape level:
// richness and the Shannon and Simpson indices and evenness.
#include <cmath>

#include "metric_families.h"

namespace lsm::families {

void add_landscape_diversity(RowBuilder& b, const LevelContext& c) {
  const double m = c.m_classes;
  b.add("PR", m);
  b.add("PRD", m / c.ta * 100);
  b.add("RPR", c.options->max_richness ? m / *c.options->max_richness * 100 : kNaN);
  double shdi = 0, simpson = 0;
  for (size_t i : c.classes) {
    // "Pi is based on total landscape area (A) excluding any internal
    // background present" (FRAGSTATS 4.2, L4 to L9): evenness stays <= 1.
    const double Pi = c.sum(i).size / c.class_total;
    shdi -= ln_ratio_term(Pi);
    simpson += Pi * Pi;
  }
  const double lnm = std::log(m);
  // A landscape without any class (every cell nodata or background) has no
  // diversity: the indices stay empty instead of 0, 1 and inf.
  const bool no_class = m == 0;
  b.add("SHDI", no_class ? kNaN : shdi);
  b.add("SIDI", no_class ? kNaN : 1 - simpson);
  b.add("MSIDI", no_class ? kNaN : -std::log(simpson));
  b.add("SHEI", m > 1 ? shdi / lnm : kNaN);
  b.add("SIEI", m > 1 ? (1 - simpson) / (1 - 1 / m) : kNaN);
  b.add("MSIEI", m > 1 ? -std::log(simpson) / lnm : kNaN);
}

}  // namespace lsm::families
