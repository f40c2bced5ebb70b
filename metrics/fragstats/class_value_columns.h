#pragma once
// Per-patch values of several metrics, grouped by class, on a scratch file:
// what the class and landscape distribution statistics (MN ... CV, PAFRAC)
// need after the patch table has been written, without keeping a value per
// patch and metric in memory. Patches are added in PID order; each class's
// values of one metric are replayed in that order, so sums over them are
// taken in a fixed order whatever the tile size or backend.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spill_file.h"

namespace lsm {

class ClassValueColumns {
 public:
  /// `classes` x `metrics` columns; `memory_bytes` bounds the write buffers
  /// (each column buffers between 512 and 65536 values before they go to the
  /// scratch file in `temp_dir`, see temp_folder(), made when the first
  /// buffer is full). `kept` (empty: all)
  /// names the metrics stored; the others are dropped by add() and must not
  /// be read. Throws lsm::Error(Io).
  ClassValueColumns(size_t classes, size_t metrics, const std::string& temp_dir, uint64_t memory_bytes,
                    std::vector<bool> kept = {});

  /// Adds one patch of class index `cls`: `values` holds one value per metric (kept or not).
  void add(size_t cls, const double* values);
  /// Patches added to class `cls`.
  uint64_t count(size_t cls) const { return counts_[cls]; }
  /// Ends the adding: what is buffered for the scratch file is written.
  /// Throws lsm::Error(Io).
  void finish_adding() {
    if (spill_) spill_->sync();
  }
  /// Calls fn(value of metric m, value of metric w) for every patch of class
  /// `cls`, in the order they were added. Calls on several threads at once
  /// are safe after finish_adding(). Throws lsm::Error(Internal) for a
  /// metric not kept, lsm::Error(Io) when the scratch file cannot be read.
  void for_each(size_t cls, size_t m, size_t w, const std::function<void(double, double)>& fn) const;

 private:
  struct Column {
    std::vector<uint64_t> chunks;  // offsets of full chunks in the scratch file
    std::vector<double> buffer;    // the values since the last full chunk
  };
  Column& column(size_t cls, size_t m) { return columns_[cls * metrics_ + m]; }
  const Column& column(size_t cls, size_t m) const { return columns_[cls * metrics_ + m]; }
  size_t metrics_, chunk_values_;
  std::vector<bool> kept_;
  std::vector<Column> columns_;
  std::vector<uint64_t> counts_;
  std::string temp_dir_;
  std::unique_ptr<SpillFile> spill_;  ///< made for the first full chunk
};

}  // namespace lsm
