#pragma once
// Which metrics a run reports (`lsm metrics --metrics`): FRAGSTATS acronyms.
// A name selects the column of that name at every level where it exists; the
// name of a patch metric also selects its distribution statistics at class and
// landscape level (GYRATE -> GYRATE, GYRATE_MN, GYRATE_AM, ... GYRATE_CV).
#include <string>
#include <vector>

#include "fragstats_metrics.h"

namespace lsm {

/// A selection of metrics; empty = all.
class MetricSelection {
 public:
  MetricSelection() = default;
  /// Parses a comma-separated list of acronyms (case-insensitive). Throws
  /// lsm::Error(BadInput) naming the first unknown acronym.
  explicit MetricSelection(const std::string& list);

  bool all() const { return names_.empty(); }
  /// True when table column `column` is reported.
  bool selects(const std::string& column) const;
  /// True when ENN (and its distributions) is wanted: the only metric that
  /// needs memory per edge cell.
  bool wants_enn() const;
  /// True when patch metric `acronym` or one of its distribution statistics is wanted.
  bool wants_patch_metric(const std::string& acronym) const;

  /// True when some selected column needs the second pass over the patch IDs
  /// (shape, core, ENN or class adjacency metrics): not from_patch_records().
  bool needs_second_pass() const;

  /// True when some column of a table of `level` (kPatchLevel, kClassLevel
  /// or kLandscapeLevel of metric_catalogue.h) is selected: a metric of that
  /// level, or at class and landscape level a distribution of a patch metric.
  bool selects_at(unsigned level) const;

  /// `table` restricted to the selected columns.
  MetricTable apply(const MetricTable& table) const;

 private:
  std::vector<std::string> names_;
};

/// True when table column `column` (an acronym, or a distribution column such
/// as AREA_MN) is computed from the patch records of the scan alone (cell and
/// edge counts, docs/metrics.md): the catalogue's metrics without
/// `second_pass` (metric_catalogue.h: AREA, PERIM, PARA, SHAPE, FRAC and their
/// distributions, CA, PLAND, NP, TE, LSI, COHESION, the diversity metrics ...). Holds for projected rasters without a background class; geographic
/// rasters (areas on the ellipsoid) and a background (its edges come from the
/// class adjacencies) need the second pass for every metric.
bool from_patch_records(const std::string& column);

/// Every acronym lsm computes at some level, and every distribution column
/// (AREA_MN ...), from the catalogue (for messages and --help).
const std::vector<std::string>& known_metric_names();

}  // namespace lsm
