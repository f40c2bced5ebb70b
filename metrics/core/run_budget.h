#pragma once
// One run budget: the memory, scratch folder and device memory a run may
// use, and the named shares of that memory which the engine's parts take.
// The shares are defined here once, so that every operation, the service and
// the tests read the same numbers (docs/ENGINE.md, "Memory").
#include <cstdint>
#include <string>
#include <vector>

namespace lsm {

/// The memory a run may hold by default (`--memory-limit` 1G), bytes.
constexpr uint64_t kDefaultMemoryLimit = uint64_t(1) << 30;

/// The parts of a run that take a share of its memory.
enum class BudgetShare {
  /// The raster's tile labels kept from the scan for the second pass (4 bytes
  /// a cell, 8 at the pass's peak with the patch IDs): a quarter. Beyond, the
  /// raster is labeled again (ScanOptions::keep_labels_max_bytes).
  KeptLabels,
  /// Closed patch records held in memory (88 bytes a patch); beyond, they
  /// wait on a scratch file (ScanOptions::max_record_bytes): an eighth.
  Records,
  /// Each array with a value per patch or per fragment (paged_array.h);
  /// beyond, it lives on a mapped scratch file: a sixteenth each.
  PatchArray,
  /// The class and landscape statistics: write buffers of the per-class
  /// value columns and the distributions gathered in memory
  /// (MetricOptions::memory_limit): a quarter.
  Tables,
  /// The strips of tile rows the scheduler holds (three strips of class
  /// codes, the labels and patch IDs of a row, the visitors' rows: about
  /// kStripBytesPerCell a cell): a half, which is 16 Mi cells at 1G, the
  /// most a strip takes (plan_tiles()). Smaller limits get shorter strips.
  Strips,
};

/// Bytes the scan and the second pass hold per cell of a strip (measured:
/// `lsm label` on the 47 Mpx bern_valais mosaic, 31 bytes a cell).
constexpr uint64_t kStripBytesPerCell = 32;

/// The name of a share, as `--describe`, messages and tests spell it.
const char* share_name(BudgetShare share);

/// What a run may use. Every operation gets one (the command line from
/// `--memory-limit` and `--temp-dir`, the service per job).
struct RunBudget {
  uint64_t memory_bytes = kDefaultMemoryLimit;  ///< the ceiling of what the run holds, bytes
  std::string temp_dir;                         ///< folder of scratch files; empty = $TMPDIR or /tmp
  uint64_t device_bytes = 0;                    ///< GPU memory the run may hold; 0 = as the device has

  /// The bytes of `share` (at least 1).
  uint64_t share(BudgetShare s) const;
  /// Whether labels of `cells` cells (4 bytes each) fit the KeptLabels share.
  bool holds_labels(double cells) const { return 4.0 * cells <= double(share(BudgetShare::KeptLabels)); }
  /// The cells of a strip of tile rows at most (ScanOptions::max_strip_cells).
  int64_t strip_cells() const { return static_cast<int64_t>(share(BudgetShare::Strips) / kStripBytesPerCell); }
  /// Every share with its bytes, in the order of BudgetShare (for a plan's record).
  std::vector<std::pair<BudgetShare, uint64_t>> shares() const;
};

}  // namespace lsm
