#pragma once
// The cell runs of the patches that are still open in a row-ordered pass:
// what a per-patch computation needs when it can only start once the patch
// is complete (FRAGSTATS' GYRATE needs the patch's medians before its
// distances; FRAGSTATS' core-area count floods the patch's core cells).
// A patch's runs are handed out when it closes (its slot keeps at most a
// small buffer for the next patch), so memory follows the patches open at
// the row frontier, not the raster.
#include <cstdint>
#include <vector>

#include "error.h"
#include "paged_array.h"

namespace lsm {

/// Bytes of a closed patch's buffer that its slot keeps for the next patch.
inline constexpr size_t kKeptSlotBytes = 256;

/// Empties the state of a closed patch for the slot's next patch. A vector
/// keeps its memory up to kKeptSlotBytes (most patches are a few runs, so the
/// next one usually fits: no allocation per patch); a larger one is freed, so
/// memory follows the open patches. Other states are reset to a new one, or
/// by a reset_slot() overload of their own.
template <class T>
void reset_slot(T& state) {
  state = T();
}
template <class E>
void reset_slot(std::vector<E>& v) {
  if (v.capacity() * sizeof(E) > kKeptSlotBytes) std::vector<E>().swap(v);
  else v.clear();
}

/// Per-patch state held only while a patch is open: a slot per open patch,
/// reused once the patch closes, found through a PID-indexed table of slot
/// numbers (4 bytes a patch, on a scratch file beyond `paged`'s budget).
template <class T>
class OpenPatchSlots {
 public:
  /// `n_patches`: the largest PID that will be opened.
  explicit OpenPatchSlots(size_t n_patches, const PagedPolicy& paged = {}) : slot_of_pid_(n_patches + 1, paged), slots_(1) {}
  /// True while patch `pid` holds a slot.
  bool has(uint32_t pid) const { return slot_of_pid_[pid] != 0; }
  /// Patch `pid`'s state, made (default) at the first call.
  T& open(uint32_t pid) {
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
    return slots_[s];
  }
  /// Patch `pid`'s state; it must hold a slot.
  T& at(uint32_t pid) { return slots_[slot_of_pid_[pid]]; }
  /// Frees patch `pid`'s slot (its state reset by reset_slot()).
  void close(uint32_t pid) {
    uint32_t& s = slot_of_pid_[pid];
    if (!s) return;
    reset_slot(slots_[s]);
    free_.push_back(s);
    s = 0;
  }

 private:
  PagedArray<uint32_t> slot_of_pid_;  // [pid]: slot, 0 = none
  std::vector<T> slots_;               // slot 0 unused
  std::vector<uint32_t> free_;
};

/// A horizontal run of cells of one patch: row, first and last column (inclusive).
struct CellRun {
  int32_t row, x0, x1;
};

/// The runs of the open patches.
class OpenPatchRuns {
 public:
  /// `n_patches`: the largest PID that will be added.
  explicit OpenPatchRuns(size_t n_patches, const PagedPolicy& paged = {}) : slots_(n_patches, paged) {}

  /// Appends the run [x0, x1] of row `row` to patch `pid` (runs arrive in raster order).
  void add(uint32_t pid, int64_t row, int64_t x0, int64_t x1) {
    if (row > INT32_MAX || x1 > INT32_MAX) throw Error(ErrorKind::BadInput, "raster side above 2^31 cells");
    slots_.open(pid).push_back(CellRun{static_cast<int32_t>(row), static_cast<int32_t>(x0), static_cast<int32_t>(x1)});
  }

  /// True when patch `pid` has runs.
  bool has(uint32_t pid) const { return slots_.has(pid); }

  /// Moves patch `pid`'s runs (raster order) into `out` and forgets them; `out` is empty when it has none.
  void take(uint32_t pid, std::vector<CellRun>& out) {
    out.clear();
    if (!slots_.has(pid)) return;
    out.swap(slots_.at(pid));  // the slot gets `out`'s emptied buffer, which close() may keep
    slots_.close(pid);
  }

 private:
  OpenPatchSlots<std::vector<CellRun>> slots_;
};

}  // namespace lsm
