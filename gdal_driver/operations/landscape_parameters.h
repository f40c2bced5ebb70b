#pragma once
// What the operations that run the landscape job (metrics, patchmetric,
// patches) share: their values as job options, the class-count limit, and
// the note on how a raster's cells are measured.
#include <functional>
#include <string>

#include "landscape_job.h"
#include "operation_spec.h"

namespace lsm {
class GdalClassRaster;
}

namespace lsm::ops {

/// background, boundary-edge and max-richness: what is inside the landscape
/// and how its edge and richness count (FRAGSTATS' analysis parameters), for
/// every operation that reports class and landscape metrics.
std::vector<ParameterSpec> landscape_definition_parameters();

/// The job options of patch_parameters()' values (neighbour rule, tile size,
/// backend, memory-limit, temp-dir) and edge-depth where declared; the
/// metric choices (selection, background ...) are the caller's.
LandscapeJobOptions landscape_job_options(const ParameterValues& values, const RunContext& context);

/// Applies --nodata (where given) to `source`: that value's cells are outside
/// the landscape, whatever the band's own nodata value.
void use_given_nodata(GdalClassRaster& source, const ParameterValues& values);

/// The check of max-classes after the scan (where declared; else none):
/// lsm::Error(BadInput) "'INPUT' has N classes, more than --max-classes M (is
/// it a categorical raster?)".
std::function<void(const PatchTable&)> class_count_check(const ParameterValues& values, const std::string& input);

/// The note that `source` is measured on its CRS's ellipsoid, or the warning
/// that it has no CRS (map units taken as metres), through context.notify().
void note_measurement(const GdalClassRaster& source, const std::string& input, const RunContext& context);

}  // namespace lsm::ops
