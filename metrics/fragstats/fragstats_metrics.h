#pragma once
// The FRAGSTATS 4.2 metric set at patch, class and landscape level, derived
// from one scan (PatchTable: area and edge counts, centroids) and one second
// pass (PatchRowResults: GYRATE, CONTIG, CIRCLE, core areas, ENN, class
// adjacencies). Formulas, units and ranges of every metric, and where they
// follow FRAGSTATS' output rather than its documentation: docs/metrics.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "patch_row_metrics.h"
#include "patch_scan.h"

namespace lsm {

struct ClassPairTable;
class LandscapeBorder;

/// FRAGSTATS run parameters that change metric values.
struct MetricOptions {
  /// FRAGSTATS background classes (none, one or several: FRAGSTATS' class
  /// descriptors may mark several IsBackground): their cells are inside the
  /// landscape (TA, and the denominators of PLAND, PD, ...) but form no
  /// patches and no class; edges between two background classes are no edge.
  std::set<int32_t> background;
  /// Proportion (0..1) of the landscape boundary and of background edges that
  /// TE/ED count as edge (FRAGSTATS "count boundary/background as edge"; 0 = none).
  double boundary_edge = 0;
  /// Maximum potential number of classes, for RPR; without it RPR is undefined.
  std::optional<int> max_richness;
  /// FRAGSTATS' edge contrast weights (class_pair_table.h), for CWED and TECI;
  /// without them those are undefined.
  std::shared_ptr<const ClassPairTable> contrast;
  /// FRAGSTATS' landscape border (landscape_border.h): set, the boundary
  /// beside a border cell is true edge, no edge or background edge by the
  /// class it gives (TE, ED, CWED, TECI), and boundary_edge applies to the
  /// rest of the boundary only. Its classes must be in `contrast`.
  std::shared_ptr<const LandscapeBorder> border;
  /// The columns the caller keeps (e.g. MetricSelection::selects); empty =
  /// all. Distributions (ACRONYM_MN ... _CV) and PAFRAC of unwanted columns
  /// are left NaN instead of computed: their sorts and logarithms over
  /// millions of patches cost more than the scan.
  std::function<bool(const std::string& column)> wanted;
  /// Folder of the scratch file of per-patch values (spill_file.h); empty = $TMPDIR or /tmp.
  std::string temp_dir;
  /// Memory the class and landscape statistics may use (bytes): write
  /// buffers of the scratch file, and distributions gathered in memory up to
  /// a quarter of it (beyond, computed in passes over the file).
  uint64_t memory_limit = uint64_t(256) << 20;
};

/// One table of values; NaN marks an undefined value (written as empty).
struct MetricTable {
  std::vector<std::string> columns;  ///< FRAGSTATS acronyms, in FRAGSTATS' order
  struct Row {
    int32_t type = 0;  ///< class code (patch and class tables)
    uint32_t pid = 0;  ///< patch ID (patch table)
    std::vector<double> values;  ///< one per column
  };
  std::vector<Row> rows;
};

struct FragstatsMetrics {
  MetricTable patch;  ///< one row per patch, PID order (background patches left out)
  MetricTable cls;    ///< one row per class, ascending class code
  MetricTable land;   ///< one row
};

/// Receives the patch table in PID order, a block of rows at a time (columns
/// set in every block; background patches left out).
using PatchRowSink = std::function<void(const MetricTable& rows)>;

/// Computes every metric. With a `sink`, the patch rows go there as they are
/// computed and FragstatsMetrics::patch stays empty (memory does not grow
/// with the patches); without, they are kept in it. `rows` must come from compute_patch_row_metrics()
/// on the same table, or from records_only_row_results(): then every column
/// that is not from_patch_records() is NaN, and a geographic raster or a
/// background class throws lsm::Error(Internal). Throws lsm::Error(BadInput)
/// for a boundary_edge outside [0, 1].
FragstatsMetrics compute_fragstats_metrics(const PatchTable& table, const PatchRowResults& rows,
                                           const MetricOptions& options, const PatchRowSink& sink = {});

/// Minimum perimeter (cell sides) of a patch of `cells` cells: the most compact
/// arrangement (FRAGSTATS 4.2, SHAPE and LSI: 4n, 4n+2 or 4n+4 for n = floor(sqrt(cells))).
uint64_t min_perimeter_sides(uint64_t cells);
/// Maximum number of like adjacencies (single count) among `cells` cells (FRAGSTATS AI).
uint64_t max_like_adjacencies(uint64_t cells);

/// The six FRAGSTATS distribution statistics of a patch metric: mean, area-
/// weighted mean, median, range, population standard deviation, coefficient
/// of variation (%). All NaN for no values.
struct Distribution { double mn, am, md, ra, sd, cv; };
Distribution distribution(const std::vector<double>& values, const std::vector<double>& weights);

}  // namespace lsm
