#pragma once
// The metric families of the class and landscape rows, one file each
// (FRAGSTATS 4.2 documentation, McGarigal, Cushman & Ene 2012, by section):
// area and edge, shape, core area, contrast, isolation, aggregation,
// diversity; and
// landscapemetrics' information theory (Nowosad & Stepinski 2019). Each
// adds its columns to a row in the order FRAGSTATS prints them, from what
// compute_fragstats_metrics (fragstats_metrics.cpp) gathered in its patch
// pass: the classes' sums, the class adjacencies and the per-patch values on
// their scratch file; the window job (metrics/jobs/window_job.h) gives them
// each window's counts. Internal to the engine: not a public interface.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fragstats_metrics.h"

namespace lsm::families {

inline const double kNaN = std::nan("");

/// p ln p, 0 for p = 0 (Shannon and contagion terms).
inline double ln_ratio_term(double p) { return p > 0 ? p * std::log(p) : 0; }

/// One table row by name, in the order the names are first added.
class RowBuilder {
 public:
  void add(const std::string& name, double v) {
    if (record_names) names.push_back(name);
    values.push_back(v);
  }
  /// False: only the values are kept (a caller that fills one row per cell
  /// and knows the names from its first row).
  bool record_names = true;
  /// NAME_MN, _AM, _MD, _RA, _SD, _CV.
  void add_distribution(const std::string& metric, const Distribution& d);
  std::vector<std::string> names;
  std::vector<double> values;
};

/// One class's sums over its patches, added in PID order.
struct ClassSums {
  uint64_t cells = 0, perim_sides = 0, boundary_sides = 0, patches = 0;
  double size = 0, largest = 0, edge_m = 0, boundary_m = 0, core_ha = 0, ncore = 0;
  double sp = 0, spa = 0, sa2 = 0;  ///< perimeter, perimeter x sqrt(cells), size^2 (COHESION, DIVISION, ...)
};

/// What every family reads. Sizes are cells, or m2 on geographic rasters.
struct LevelContext {
  const MetricOptions* options = nullptr;
  const ClassAdjacency* adjacency = nullptr;
  const std::vector<ClassSums>* sums = nullptr;
  std::vector<size_t> classes;     ///< class indices that are classes (not background), ascending code
  double m_classes = 0;            ///< their count
  double total = 0, ta = 0;        ///< landscape size; TA in ha (background included: it is inside the landscape)
  uint64_t z = 0;                  ///< landscape cells, background included
  /// The landscape without its background: the base of P_i in SHDI ... MSIEI,
  /// CONTAG and landscape AI, and of Z in COHESION, which FRAGSTATS 4.2
  /// defines "excluding any internal background present".
  double class_total = 0;
  uint64_t class_cells = 0;
  uint64_t landscape_boundary_sides = 0;
  double cw = 0, ch = 0, unit_m2 = 0;
  std::vector<bool> background;    ///< by class index
  /// CONNECT's joined pairs by class index (PatchRowResults::joinings); null: N/A.
  const std::vector<uint64_t>* joinings = nullptr;
  /// The distributions of the patches of classes `ids`: AREA ... CONTIG
  /// (`area_edge_part`) or CORE, DCORE, CAI; and PAFRAC.
  std::function<void(RowBuilder&, const std::vector<size_t>&, bool area_edge_part)> distributions;
  /// The distribution of patch metric `metric` (ENN, ECON, PROX) over the
  /// patches of classes `ids` that have a value; N/A where not computed.
  std::function<void(RowBuilder&, const std::string& metric, const std::vector<size_t>&)> patch_distribution;
  std::function<double(const std::vector<size_t>&)> pafrac;

  /// Class k's landscape boundary beside a landscape border (m): where the
  /// border gives class k itself (no edge), another class (true edge), a
  /// background class; and the border's sides by class given, in
  /// LandscapeBorder::sides() order. All 0 without a border.
  struct BorderLengths {
    double same_m = 0, edge_m = 0, background_m = 0;
    std::vector<std::pair<int32_t, double>> by_class;
  };
  BorderLengths border_lengths(size_t k) const;

  const ClassSums& sum(size_t k) const { return (*sums)[k]; }
  double ha(double size) const { return size * unit_m2 / 10000; }
  uint64_t patches_of(const std::vector<size_t>& ids) const;
  /// Class k's edge with the background class, in m.
  double background_m(size_t k) const;
};

// Class level, in FRAGSTATS' column order.
/// CA, PLAND, NP, PD, LPI, TE, ED, LSI (NP, PD and LSI are in FRAGSTATS'
/// aggregation section, printed among these).
void add_class_area_edge(RowBuilder& b, const LevelContext& c, size_t k);
/// AREA ... CONTIG distributions, PAFRAC.
void add_class_shape(RowBuilder& b, const LevelContext& c, size_t k);
/// TCA, CPLAND, NDCA, DCAD, CORE/DCORE/CAI distributions.
void add_class_core_area(RowBuilder& b, const LevelContext& c, size_t k);
/// CWED, TECI, the ECON distribution (N/A without an edge contrast table).
void add_class_contrast(RowBuilder& b, const LevelContext& c, size_t k);
/// ENN and PROX distributions.
void add_class_isolation(RowBuilder& b, const LevelContext& c, size_t k);
/// CLUMPY, PLADJ, IJI, COHESION, CONNECT, DIVISION, MESH, SPLIT, AI, NLSI.
void add_class_aggregation(RowBuilder& b, const LevelContext& c, size_t k);

// Landscape level, in FRAGSTATS' column order.
/// TA, NP, PD, LPI, TE, ED, LSI.
void add_landscape_area_edge(RowBuilder& b, const LevelContext& c);
/// AREA ... CONTIG distributions, PAFRAC.
void add_landscape_shape(RowBuilder& b, const LevelContext& c);
/// TCA, NDCA, DCAD, CORE/DCORE/CAI distributions.
void add_landscape_core_area(RowBuilder& b, const LevelContext& c);
/// CWED, TECI, the ECON distribution (N/A without an edge contrast table).
void add_landscape_contrast(RowBuilder& b, const LevelContext& c);
/// ENN and PROX distributions.
void add_landscape_isolation(RowBuilder& b, const LevelContext& c);
/// CONTAG, PLADJ, IJI, COHESION, CONNECT, DIVISION, MESH, SPLIT.
void add_landscape_aggregation(RowBuilder& b, const LevelContext& c);
/// PR, PRD, RPR, SHDI, SIDI, MSIDI, SHEI, SIEI, MSIEI.
void add_landscape_diversity(RowBuilder& b, const LevelContext& c);
/// AI, the area-weighted mean of the classes' AI (printed last).
void add_landscape_ai(RowBuilder& b, const LevelContext& c);
/// ENT, CONDENT, JOINENT, MUTINF, RELMUTINF (bits; Nowosad & Stepinski 2019,
/// as landscapemetrics computes them), after FRAGSTATS' columns.
void add_landscape_information(RowBuilder& b, const LevelContext& c);

/// COHESION (in cells, as FRAGSTATS defines it; Z without background),
/// DIVISION, MESH (ha), SPLIT (A with background) of a set of patches with
/// these sums.
struct Subdivision {
  double cohesion, division, mesh, split;
};
Subdivision subdivision(const LevelContext& c, bool no_patches, double sp, double spa, double sa2);
/// Class k's AI as a proportion (NaN where undefined).
double class_ai(const LevelContext& c, size_t k);

}  // namespace lsm::families
