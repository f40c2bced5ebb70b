#pragma once
// A landscape's tables in memory, for front ends that hand them to their
// user as objects rather than files (the Python module's lsm.Landscape). It
// is the landscape job (metrics/jobs/landscape_job.h) with the `metrics`
// operation's analysis parameters — same names, defaults and checks — on a
// raster GDAL reads or on an array the caller holds, read in place.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "array_view_raster.h"
#include "fragstats_metrics.h"
#include "operation_spec.h"
#include "patch_row_metrics.h"

namespace lsm::ops {

/// The declaration of an in-memory landscape: input, table_analysis_parameters()
/// (metrics, edge-depth, gyrate, core-areas, background, boundary-edge,
/// max-richness, max-classes), class-descriptors and the patch parameters
/// (band, nodata, neighbors, backend, tile-size, memory-limit, temp-dir).
/// Not an operation of the registry: it writes nothing, so only a front end
/// that returns objects renders it.
const OperationSpec& landscape_tables_spec();

/// A raster of class codes held by the caller, row-major: read in place.
struct ArrayRaster {
  const void* cells = nullptr;
  ArrayCellType type = ArrayCellType::Int32;
  int64_t width = 0, height = 0;
  int64_t row_stride = 0;                   ///< cells from one row to the next (>= width)
  double cell_width = 1, cell_height = 1;   ///< metres
};

/// What a landscape yields.
struct LandscapeTables {
  /// patch (PID order), cls (ascending class code) and land, restricted to
  /// the selection (FRAGSTATS acronyms as columns; NaN = undefined).
  FragstatsMetrics metrics;
  /// The class adjacency matrix (FRAGSTATS .adj, cell sides, double count);
  /// only where the second pass ran (has_adjacency).
  bool has_adjacency = false;
  ClassAdjacency adjacency;
  /// Class names: the descriptor file's, else the raster's attribute table
  /// or category names; empty for an array without a descriptor file.
  std::map<int32_t, std::string> class_names;
  /// The patch-ID raster (PIDs of the patch table, 0 = nodata and
  /// background), row-major; only when asked for.
  std::vector<uint32_t> patch_ids;
  int64_t width = 0, height = 0;
};

/// Computes the tables of `values` (of landscape_tables_spec()): on `array`
/// when given (then input, band and nodata's GDAL meaning are not used;
/// cells equal to nodata are outside the landscape), else on the raster
/// values.text("input") names, as `lsm metrics` does. With `patch_ids`, also
/// the patch-ID raster. Progress and cancellation through context
/// (checked_progress); notes through context.notify(). Throws lsm::Error as
/// the metrics operation does: BadInput for bad values or rasters, Io for
/// reads and "interrupted", Backend.
LandscapeTables landscape_tables(const ParameterValues& values, const RunContext& context,
                                 const std::optional<ArrayRaster>& array, bool patch_ids);

}  // namespace lsm::ops
