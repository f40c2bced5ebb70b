#pragma once
// Everything the second pass over the patch IDs yields: the per-patch values
// that need a patch's cells one by one (GYRATE, CONTIG, CIRCLE, core area,
// ENN), the disjunct core areas and the class adjacency matrix. Computed in
// stages (SecondPassPlan): row visitors over the rows of visit_patch_rows(),
// and a NeighbourhoodCounter's kernels where the patch IDs are in memory, so
// one labeling serves every metric.
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cell_neighbourhood.h"
#include "class_value_columns.h"
#include "class_pair_table.h"
#include "fragstats_core_areas.h"
#include "fragstats_gyrate.h"
#include "landscape_border.h"
#include "paged_array.h"
#include "patch_row_pass.h"
#include "patch_scan.h"

namespace lsm {

/// Per-cell results of one patch (indexed by PID-1 in PatchRowResults).
struct PatchShape {
  double gyrate_m = 0;          ///< GYRATE (m), by RowMetricOptions::gyrate
  uint64_t diagonal_pairs = 0;  ///< pairs of corner-touching cells in the patch (each pair once)
  double circle_radius_m = 0;   ///< half the patch's longest corner-to-corner extent (m), CIRCLE's circle
  uint64_t core_cells = 0;      ///< core cells (beyond the edge depth) of the counted core areas
  uint64_t core_areas = 0;      ///< NCORE: disjunct core areas, by RowMetricOptions::core_areas
  double enn_m = 0;             ///< ENN (m); NaN when the class has no other patch
};

/// Geographic rasters only (RasterInfo::geodesic): a patch's area, perimeter,
/// the part of the perimeter on the landscape boundary (raster edge, nodata)
/// and its core area, each summed from the cells' sizes on the ellipsoid
/// (cell_geometry.h). Kept apart from PatchShape so that projected rasters
/// do not carry them (32 bytes a patch).
struct PatchGeodesic {
  double area_m2 = 0, perim_m = 0, boundary_m = 0, core_m2 = 0;
};

/// ECON's numerator (FRAGSTATS 4.2, "P1 Edge contrast index": the sum of
/// p_ijk d_ik over the patch's perimeter): each perimeter side weighted by
/// the edge contrast d_ik between the patch's class and what lies beyond it
/// (another class, the background, or on the landscape boundary the
/// boundary's class, boundary_class() of class_pair_table.h). Sums of weights
/// by side direction, added row by row in raster order, so they are the
/// same bits for any tile grid; on geographic rasters `weighted_m` instead.
struct PatchContrast {
  double weights_h = 0;   ///< sum of d_ik over top and bottom sides (length: cell width)
  double weights_v = 0;   ///< sum of d_ik over left and right sides (length: cell height)
  double weighted_m = 0;  ///< geographic rasters only: sum of d_ik x side length on the ellipsoid (m)
};


/// Class adjacency counts (FRAGSTATS .adj): cell sides shared by cells of class
/// index i and j (4-cell adjacency, both cells inside the landscape), counted
/// from both cells ("double count"): like adjacencies appear twice on the
/// diagonal, unlike ones once in (i,j) and once in (j,i).
struct ClassAdjacency {
  std::vector<int32_t> class_codes;  ///< ascending; index i <-> class_codes[i]
  /// k x k, row-major: shared top/bottom cell sides (length = cell width) and
  /// shared left/right sides (length = cell height).
  std::vector<uint64_t> sides_h, sides_v;
  /// Geographic rasters only, else empty: k x k lengths (m) of the shared
  /// sides, each side measured on the ellipsoid.
  std::vector<double> geodesic_m;
  uint64_t at(size_t i, size_t j) const {
    const size_t k = i * class_codes.size() + j;
    return sides_h[k] + sides_v[k];
  }
  /// Length of the shared sides in metres: the geodesic lengths when present,
  /// else the side counts times the cell sizes.
  double length_m(size_t i, size_t j, double cell_width, double cell_height) const {
    const size_t k = i * class_codes.size() + j;
    if (!geodesic_m.empty()) return geodesic_m[k];
    return static_cast<double>(sides_h[k]) * cell_width + static_cast<double>(sides_v[k]) * cell_height;
  }
};

/// Where one stage of the second pass runs.
enum class StageRun {
  Skipped,  ///< not computed: not wanted (ENN not asked for), or nothing to do (geodesic sums of a projected raster)
  Device,   ///< in the NeighbourhoodCounter's data-parallel pass (RowMetricOptions::counter: CUDA or the CPU reference)
  Rows,     ///< in a row visitor over the patch IDs (PatchRowVisitor: relabeled row by row, or in memory)
  Patches   ///< patch by patch in parallel, after the counter's core mask (FRAGSTATS' core areas)
};

/// The second pass as stages, each yielding a set of per-patch values, and
/// where each runs. plan_second_pass() decides it from the raster, the
/// options and what the counter can do; compute_patch_row_metrics() follows
/// it. A new per-patch value that needs a patch's cells is one more stage
/// here (a row visitor, and optionally a counter kernel) and a formula in
/// patch_columns.h.
struct SecondPassPlan {
  /// The scan kept its labels and nothing else is written: the patch IDs
  /// are assembled in memory (the counter may run); else the raster is
  /// relabeled and streamed row by row (every stage a row visitor).
  bool ids_in_memory = false;
  StageRun neighbourhood = StageRun::Rows;  ///< CONTIG's diagonal pairs, the class adjacencies (and the core mask on the device)
  StageRun circle = StageRun::Rows;         ///< CIRCLE's hulls (from the device's row extents, or built row by row)
  StageRun gyrate = StageRun::Rows;         ///< GYRATE, by RowMetricOptions::gyrate
  StageRun core_areas = StageRun::Rows;     ///< core cells, NCORE, DCORE
  StageRun enn = StageRun::Rows;            ///< ENN; Skipped = NaN
  StageRun geodesic = StageRun::Skipped;    ///< areas and edge lengths on the ellipsoid (geographic rasters)
  StageRun contrast = StageRun::Skipped;    ///< ECON's weighted perimeters (RowMetricOptions::contrast given)
  StageRun connectance = StageRun::Skipped; ///< CONNECT's joined pairs (RowMetricOptions::threshold_m given)
  StageRun proximity = StageRun::Skipped;   ///< PROX and SIMI (RowMetricOptions::search_radius_m given)
  /// "neighbourhood device, circle device, gyrate rows, ...": the plan in one line.
  std::string describe() const;
};

struct PatchRowResults {
  /// False for records_only_row_results(): no second pass ran, so only the
  /// class codes are known and compute_fragstats_metrics() reports every
  /// metric that needs this pass as NaN.
  bool second_pass = true;
  /// Where each stage ran (plan_second_pass()); default when second_pass is false.
  SecondPassPlan plan;
  /// PID order; empty when second_pass is false. On a scratch file beyond
  /// RowMetricOptions::max_patch_array_bytes (paged_array.h).
  PagedArray<PatchShape> patches;
  PagedArray<PatchGeodesic> geodesic;  ///< PID order; geographic rasters only, else empty
  /// PID order; with RowMetricOptions::contrast only, else empty (ECON is then N/A).
  PagedArray<PatchContrast> contrast;
  /// CONNECT's functional joinings by class index (connectance_sweep.h):
  /// pairs of patches of the class within RowMetricOptions::threshold_m;
  /// empty when not computed (CONNECT is then N/A).
  std::vector<uint64_t> joinings;
  /// PROX by PID-1 (proximity_sweep.h), with RowMetricOptions::search_radius_m; else empty (PROX is N/A).
  PagedArray<double> proximity;
  /// SIMI by PID-1 (proximity_sweep.h), with RowMetricOptions::search_radius_m
  /// and RowMetricOptions::similarity; else empty (SIMI is N/A).
  PagedArray<double> similarity;
  /// Every counted disjunct core area (FRAGSTATS DCORE), by class index
  /// (adjacency.class_codes), in completion order, on a scratch file: its
  /// cells (metric 0) and, for geographic rasters, its area on the
  /// ellipsoid (m2, metric 1; else 0). Null when second_pass is false.
  std::shared_ptr<ClassValueColumns> core_areas;
  ClassAdjacency adjacency;
};

/// Options of the second pass.
struct RowMetricOptions {
  int edge_depth = 1;   ///< cells, >= 1 (core area)
  /// GYRATE to the area-median point as FRAGSTATS prints it, or to the centroid (fragstats_gyrate.h).
  GyrateRule gyrate = GyrateRule::Fragstats;
  /// Disjunct core areas as FRAGSTATS counts them, or every 8-connected one (fragstats_core_areas.h).
  CoreAreaRule core_areas = CoreAreaRule::Fragstats;
  bool want_enn = true; ///< ENN needs a scratch file of the edge cells; off when not asked for
  /// FRAGSTATS' edge contrast weights: set, the pass weighs every patch's
  /// perimeter for ECON (PatchRowResults::contrast). Every class of the
  /// raster and `contrast_boundary` must be listed (check_contrast_classes()).
  std::shared_ptr<const ClassPairTable> contrast;
  /// The class whose weights the landscape boundary (raster edge, nodata) takes: boundary_class().
  int32_t contrast_boundary = kFragstatsBackgroundValue;
  /// FRAGSTATS' edge depths per pair of classes (an edge depth file,
  /// class_pair_table.h), converted to whole cells: set, they replace
  /// edge_depth for the core cells (pair_depth_core.h), decided row by row
  /// on the CPU whatever the counter. Every class of the raster and
  /// `edge_depth_boundary` must be listed (check_edge_depth_classes()).
  std::shared_ptr<const ClassPairTable> edge_depths;
  /// The class whose depths the raster's edge and nodata take (background cells
  /// take their own class's): edge_depth_boundary_class().
  int32_t edge_depth_boundary = kFragstatsBackgroundValue;
  /// FRAGSTATS' landscape border (landscape_border.h), kept within the
  /// largest edge depth: set, a border cell gives the class beyond the
  /// boundary to ECON's weights and to the core cells, which are then
  /// decided row by row on the CPU (pair_depth_core.h) whatever the counter.
  /// Its classes must be listed in the contrast and edge depth tables.
  std::shared_ptr<const LandscapeBorder> border;
  /// FRAGSTATS' threshold distance (m) of CONNECT: set, the pass counts each
  /// class's pairs of patches within it (PatchRowResults::joinings).
  /// Projected rasters only.
  std::optional<double> threshold_m;
  /// FRAGSTATS' search radius (m) of PROX: set, the pass computes every
  /// patch's proximity index (PatchRowResults::proximity). Projected rasters only.
  std::optional<double> search_radius_m;
  /// FRAGSTATS' similarity weights (.fsq): with search_radius_m, the pass
  /// also gives each patch's similarity index (PatchRowResults::similarity).
  /// Every class of the raster must be listed (check_similarity_classes()).
  std::shared_ptr<const ClassPairTable> similarity;
  /// FRAGSTATS' background classes: their cells carry patch IDs in the
  /// pass, but they are no patches, so SIMI does not count them as
  /// neighbours (nor need their weights).
  std::set<int32_t> background;
  /// Folder of the scratch files (spill_file.h); empty = $TMPDIR or /tmp.
  std::string temp_dir;
  /// Per-patch arrays (class lookups, open-patch slots, ENN's distances, the
  /// results) larger than this many bytes each live on scratch files in
  /// temp_dir (paged_array.h), so that memory follows the open patches, not
  /// the patch count. Default: always in memory.
  uint64_t max_patch_array_bytes = UINT64_MAX;
  /// When the scan kept its labels (ScanOptions::keep_labels_max_bytes): the
  /// backend of the per-cell neighbourhood tests (make_neighbourhood_counter(),
  /// e.g. CUDA). Null: the row visitors do them on the CPU, concurrently with
  /// the other row work (faster on the CPU than a separate data-parallel pass).
  /// Not used when the raster is relabeled.
  NeighbourhoodCounter* counter = nullptr;
};

/// The plan of compute_patch_row_metrics() for these arguments (`also_write`:
/// whether the patch IDs are also written, which streams them). Planar
/// rasters only take the counter's GYRATE, ENN and row extents; a counter
/// that cannot (computes_enn() ...) leaves the stage to a row visitor.
SecondPassPlan plan_second_pass(const PatchTable& table, const RowMetricOptions& options, bool also_write);

/// What stands in for the second pass when every wanted metric derives from
/// the patch records alone (from_patch_records() in metric_selection.h):
/// second_pass false, the class codes of `table` in adjacency.class_codes with
/// zero counts, and no PatchShape (a default one stands for every patch:
/// 80 bytes each would be 1.5 GB for 19 M patches). Costs no pass over the
/// raster.
PatchRowResults records_only_row_results(const PatchTable& table);

/// Runs the second pass and returns its results. `table` must come from
/// scan_patches() with keep_patch_ids. With the scan's labels kept (and no
/// `also_write`), the patch IDs are assembled in memory, the neighbourhood
/// tests run on options.counter when given, and the row work runs on CPU threads;
/// otherwise `source` is relabeled and streamed row by row. Both give
/// identical results. The landscape job (landscape_job.h) is its caller.
/// Throws lsm::Error.
PatchRowResults compute_patch_row_metrics(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                                          const RowMetricOptions& options, LabelRasterSink* also_write = nullptr,
                                          const ProgressFn& progress = {});

}  // namespace lsm
