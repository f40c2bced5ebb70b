#pragma once
// The catalogue of every metric lsm computes: acronym, name, level, family,
// unit, whether it needs the second pass over the patch IDs, and whether
// its class and landscape distributions (_MN, _AM, _MD, _RA, _SD, _CV) are
// reported. Metric selection (metric_selection.h), the patch table's
// columns, `lsm --describe`, the GDAL driver's patchmetric choices and the
// tests of docs/metrics.md read it; tests check that the tables' columns are
// exactly the catalogue's. Names and units follow the FRAGSTATS 4.2
// documentation (McGarigal, Cushman & Ene 2012), section by family.
#include <string>
#include <vector>

namespace lsm {

/// The levels a metric is a column of (bit mask).
enum MetricLevelMask : unsigned { kPatchLevel = 1, kClassLevel = 2, kLandscapeLevel = 4 };

/// FRAGSTATS' metric families (the sections of its documentation).
/// FRAGSTATS 4.2's sections, and landscapemetrics' information theory (Nowosad & Stepinski 2019).
enum class MetricFamily { AreaEdge, Shape, CoreArea, Contrast, Isolation, Aggregation, Diversity, Information };

struct MetricInfo {
  const char* acronym;     ///< FRAGSTATS' acronym: the table column
  const char* name;        ///< FRAGSTATS' name ("Radius of gyration")
  MetricFamily family;
  unsigned levels;         ///< where it is a column itself (0: DCORE, a distribution only)
  const char* unit;        ///< ha, m, m/ha, %, per 100 ha, count, proportion, none
  bool second_pass;        ///< needs the second pass (not from the scan's patch records alone)
  bool distributed;        ///< a patch metric whose _MN ... _CV are class and landscape columns
  /// The option that gives it its input ("--contrast-table", FRAGSTATS'
  /// auxiliary tables and distances), or "": without it the metric is N/A.
  const char* needs = "";
};

/// Every metric, patch metrics first in the patch table's column order.
const std::vector<MetricInfo>& metric_catalogue();
/// The entry of `acronym` (exact, upper case), or nullptr.
const MetricInfo* find_metric(const std::string& acronym);
/// "area and edge", "shape", "core area", "isolation", "aggregation", "diversity".
const char* family_name(MetricFamily family);
/// The distribution statistics' suffixes: MN, AM, MD, RA, SD, CV.
const std::vector<std::string>& distribution_statistics();
/// The patch table's metric columns (after PID and TYPE), in order.
std::vector<std::string> patch_metric_columns();

/// A metric of FRAGSTATS 4.2 (or of landscapemetrics) that lsm does not
/// compute yet, so that asking for it reads as "not yet" rather than as a typo.
struct MissingMetric {
  const char* acronym;  ///< as FRAGSTATS (or landscapemetrics) spells it
  const char* from;     ///< "FRAGSTATS" or "landscapemetrics"
  const char* needs;    ///< the extra input it takes ("a search radius"), or ""
};
/// Every metric known but not computed yet, in FRAGSTATS' order.
const std::vector<MissingMetric>& missing_metrics();
/// The metric `acronym` (upper case; a distribution such as PROX_MN counts as
/// PROX) is known but not computed: its entry, else nullptr.
const MissingMetric* find_missing_metric(const std::string& acronym);

}  // namespace lsm
