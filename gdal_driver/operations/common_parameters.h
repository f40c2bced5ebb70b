#pragma once
// Parameters that several operations share (the patch scan's, GDAL's output
// format, -q) and the helpers that turn their values into engine options.
#include <cstdint>
#include <string>
#include <vector>

#include "operation_spec.h"
#include "patch_scan.h"
#include "run_budget.h"

namespace lsm::ops {

/// backend: auto, cpu or cuda (plus `extra` (value, label) choices, e.g. fuzzy's reference).
ParameterSpec backend_parameter(const std::vector<std::pair<std::string, std::string>>& extra = {});
/// The label of each of `acronyms` (metric choices), from the metric
/// catalogue: "Patch area (ha)". Throws lsm::Error(Internal) for an acronym
/// the catalogue lacks.
std::vector<std::string> metric_choice_labels(const std::vector<std::string>& acronyms);
/// Per acronym its levels and family: "class, landscape · area and edge";
/// a patch metric adds its distributions ("patch; _MN _AM _MD _RA _SD _CV at
/// class and landscape · shape").
std::vector<std::string> metric_choice_details(const std::vector<std::string>& acronyms);
/// -q: no progress and no notes (command line only; the driver is silent).
ParameterSpec quiet_parameter();
/// band, nodata, neighbors, backend, tile-size, quiet, memory-limit and
/// temp-dir of the operations that label patches.
std::vector<ParameterSpec> patch_parameters();
/// memory-limit and temp-dir: the run budget (run_budget.h) every operation
/// that reads a raster takes. `what_spills` ends the memory limit's help:
/// what goes to scratch files when the limit is reached.
std::vector<ParameterSpec> budget_parameters(const std::string& what_spills);
/// memory-limit alone, for operations that spill nothing to scratch files
/// (the image operations): `holds` says what their memory holds.
ParameterSpec memory_limit_parameter(const std::string& holds);
/// temp-dir (trusted: never the service's): the folder of the run's `what`.
ParameterSpec temp_dir_parameter(const std::string& what);
/// The scratch folder of the image operations: the staging GeoTIFF of a
/// copy-only output format.
inline ParameterSpec staging_dir_parameter() {
  return temp_dir_parameter("staging GeoTIFF of copy-only output formats (-of COG, PNG, JPEG)");
}
/// Refuses a run before any work when it needs more memory than its budget
/// (`limit_bytes` spelled as option `limit_option`; default: memory-limit):
/// lsm::Error(BadInput) "OP needs about 12.00 GiB of memory (WHAT);
/// --memory-limit is 1.00 GiB". `needed` in bytes.
void require_memory(const ParameterValues& values, const RunContext& context, double needed, const std::string& what,
                    uint64_t limit_bytes = 0, const std::string& limit_option = "memory-limit");
/// The run budget: memory-limit and temp-dir where given, else the
/// context's (RunContext::budget). Throws lsm::Error(BadInput) for a
/// memory-limit above the context's ceiling (the service's --job-memory).
RunBudget run_budget(const ParameterValues& values, const RunContext& context);
/// GDAL's -of FORMAT and -co NAME=VALUE of the raster outputs (command line only).
std::vector<ParameterSpec> raster_output_parameters();

/// The scan options of patch_parameters()' values, with the budget's shares.
ScanOptions scan_options(const ParameterValues& values, const RunContext& context);
/// The format of the run's raster outputs: -of/-co where given (the command
/// line), else the run context's (GTiff; the service's COG). Checked here, so
/// call it before any work: throws lsm::Error(BadInput) for a bad format.
RasterFormat raster_output_format(const ParameterValues& values, const RunContext& context);

/// Bytes of a memory size: a number with an optional unit K, M or G (powers
/// of 1024; "1.5G"), plain numbers in MiB. Throws lsm::Error(BadInput) with
/// the problem ("must be a size such as 512M or 2G") for anything else or a
/// size below 1 MiB (tiny limits serve tests: they send everything that can
/// go to scratch files there).
uint64_t memory_size(const std::string& text);

/// Whether a run with these values may use a GPU: its backend is auto or
/// cuda and CUDA is available (the service runs one such job at a time).
bool may_use_gpu(const ParameterValues& values);

/// max-cells: refuse an input (or a synth raster) of more cells than this; 0,
/// the default, is no limit (the service sets its own). Every operation has it.
ParameterSpec max_cells_parameter();
/// The cells a run reads or makes: width x height x bands of its input
/// raster(s), or synth's width x height. Opening the input here also
/// records it as protected (protected_inputs.h) before any output exists.
/// Throws lsm::Error(BadInput) when an input cannot be opened.
double cells_of_run(const ParameterValues& values);
/// Refuses a run of more cells than max-cells (one error line naming both),
/// and above 10^10 cells prints one note on stderr (unless quiet) naming
/// the cells, so a long run does not look like a hang.
void check_run_size(const ParameterValues& values, const RunContext& context);

/// `list` with `more` appended.
std::vector<ParameterSpec> joined(std::vector<ParameterSpec> list, const std::vector<ParameterSpec>& more);

}  // namespace lsm::ops
