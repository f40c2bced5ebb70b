// Shape metrics (FRAGSTATS 4.2, "Shape Metrics"): the distributions of the
// patch metrics AREA ... CONTIG, and PAFRAC.
#include "metric_families.h"

namespace lsm::families {

void add_class_shape(RowBuilder& b, const LevelContext& c, size_t k) {
  const std::vector<size_t> ids{k};
  c.distributions(b, ids, true);
  b.add("PAFRAC", c.pafrac(ids));
}

void add_landscape_shape(RowBuilder& b, const LevelContext& c) {
  c.distributions(b, c.classes, true);
  b.add("PAFRAC", c.pafrac(c.classes));
}

}  // namespace lsm::families
