// Information-theory metrics of Nowosad & Stepinski (2019), "Information
// theory as a consistent framework for quantification and classification of
// landscape patterns", Landscape Ecology 34: ENT, CONDENT, JOINENT, MUTINF,
// RELMUTINF, as landscapemetrics computes them (lsm_l_ent ... lsm_l_relmutinf
// with their defaults: 4 neighbours, ordered pairs, log2). Not FRAGSTATS
// metrics; they come from the same class adjacencies as CONTAG.
#include <cmath>
#include <vector>

#include "metric_families.h"

namespace lsm::families {

namespace {

// Shannon entropy in bits of the counts `x` (landscapemetrics'
// rcpp_get_entropy: each count over their sum, p ln p summed, over ln 2).
double entropy_bits(const std::vector<double>& x) {
  double total = 0;
  for (double v : x) total += v;
  double h = 0;
  for (double v : x)
    if (v > 0) h -= (v / total) * std::log(v / total);
  return h / std::log(2.0);
}

}  // namespace

void add_landscape_information(RowBuilder& b, const LevelContext& c) {
  // The co-occurrence matrix of the classes: adjacent cell pairs (4-cell
  // rule) counted from both cells, so the class adjacency matrix itself
  // (double count). Background and the landscape boundary are left out, as
  // CONTAG leaves them: landscapemetrics has no background and counts no
  // pair with a nodata cell.
  const ClassAdjacency& adj = *c.adjacency;
  std::vector<double> column_sums(c.classes.size(), 0), pairs;
  pairs.reserve(c.classes.size() * c.classes.size());
  double total = 0;
  for (size_t j = 0; j < c.classes.size(); ++j)
    for (size_t i : c.classes) column_sums[j] += static_cast<double>(adj.at(i, c.classes[j]));
  for (size_t i : c.classes)
    for (size_t j : c.classes) {
      pairs.push_back(static_cast<double>(adj.at(i, j)));
      total += pairs.back();
    }
  if (total == 0) {  // no two adjacent class cells: nothing to measure
    for (const char* name : {"ENT", "CONDENT", "JOINENT", "MUTINF", "RELMUTINF"}) b.add(name, kNaN);
    return;
  }
  const double ent = entropy_bits(column_sums);     // H(y): marginal entropy
  const double joinent = entropy_bits(pairs);       // H(x, y): joint entropy
  const double condent = joinent - ent;             // H(y | x) = H(x, y) - H(x)
  const double mutinf = ent - condent;              // I(y; x) = H(y) - H(y | x)
  b.add("ENT", ent);
  b.add("CONDENT", condent);
  b.add("JOINENT", joinent);
  b.add("MUTINF", mutinf);
  // landscapemetrics' rule: 1 where MUTINF is 0 (one class: nothing to
  // share), else MUTINF / ENT.
  b.add("RELMUTINF", mutinf == 0 ? 1 : mutinf / ent);
}

}  // namespace lsm::families
