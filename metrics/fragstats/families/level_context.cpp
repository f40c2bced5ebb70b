#include "metric_families.h"

#include "landscape_border.h"
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

LevelContext::BorderLengths LevelContext::border_lengths(size_t k) const {
  BorderLengths lengths;
  if (!options->border) return lengths;
  const int32_t code = adjacency->class_codes[k];
  for (const BorderSides& s : options->border->sides()) {
    if (s.inside != code) continue;
    const double m = s.length_m(cw, ch, options->border->geodesic());
    lengths.by_class.emplace_back(s.beyond, m);
    if (s.beyond == code) lengths.same_m += m;
    else if (options->background.count(s.beyond)) lengths.background_m += m;
    else lengths.edge_m += m;
  }
  return lengths;
}

}  // namespace lsm::families
