#include "metric_families.h"

#include "metric_catalogue.h"

namespace lsm::families {

void RowBuilder::add_distribution(const std::string& metric, const Distribution& d) {
  const double v[] = {d.mn, d.am, d.md, d.ra, d.sd, d.cv};
  const std::vector<std::string>& stats = distribution_statistics();
  for (size_t i = 0; i < stats.size(); ++i) add(metric + "_" + stats[i], v[i]);
}

uint64_t LevelContext::patches_of(const std::vector<size_t>& ids) const {
  uint64_t n = 0;
  for (size_t k : ids) n += sum(k).patches;
  return n;
}

double LevelContext::background_m(size_t k) const {
  double m = 0;
  for (size_t j = 0; j < background.size(); ++j)
    if (background[j]) m += adjacency->length_m(k, j, cw, ch);
  return m;
}

}  // namespace lsm::families
