#pragma once
// The cell runs of the patches that are still open in a row-ordered pass:
// what a per-patch computation needs when it can only start once the patch
// is complete (FRAGSTATS' GYRATE needs the patch's medians before its
// distances; FRAGSTATS' core-area count floods the patch's core cells).
// A patch's runs are handed out and freed when it closes, so memory follows
// the patches open at the row frontier, not the raster.
#include <cstdint>
#include <vector>

#include "error.h"

namespace lsm {

/// A horizontal run of cells of one patch: row, first and last column (inclusive).
struct CellRun {
  int32_t row, x0, x1;
};

class OpenPatchRuns {
 public:
  /// `n_patches`: the largest PID that will be added.
  explicit OpenPatchRuns(size_t n_patches) : slot_of_pid_(n_patches + 1, 0), slots_(1) {}

  /// Appends the run [x0, x1] of row `row` to patch `pid` (runs arrive in raster order).
  void add(uint32_t pid, int64_t row, int64_t x0, int64_t x1) {
    if (row > INT32_MAX || x1 > INT32_MAX) throw Error(ErrorKind::BadInput, "raster side above 2^31 cells");
    uint32_t& s = slot_of_pid_[pid];
    if (!s) {
      if (free_.empty()) {
        s = static_cast<uint32_t>(slots_.size());
        slots_.emplace_back();
      } else {
        s = free_.back();
        free_.pop_back();
      }
    }
    slots_[s].push_back(CellRun{static_cast<int32_t>(row), static_cast<int32_t>(x0), static_cast<int32_t>(x1)});
  }

  /// True when patch `pid` has runs.
  bool has(uint32_t pid) const { return slot_of_pid_[pid] != 0; }

  /// Moves patch `pid`'s runs (raster order) into `out` and forgets them; `out` is empty when it has none.
  void take(uint32_t pid, std::vector<CellRun>& out) {
    out.clear();
    uint32_t& s = slot_of_pid_[pid];
    if (!s) return;
    out.swap(slots_[s]);
    slots_[s] = std::vector<CellRun>();  // release the memory, not only the contents
    free_.push_back(s);
    s = 0;
  }

 private:
  std::vector<uint32_t> slot_of_pid_;          // [pid]: slot, 0 = no runs
  std::vector<std::vector<CellRun>> slots_;   // slot 0 unused
  std::vector<uint32_t> free_;
};

}  // namespace lsm
