#pragma once
// The patch records of a scan (PatchTable), in memory or, beyond
// ScanOptions::max_record_bytes, on a scratch file the scan wrote in PID
// order: at 88 bytes a patch they are the largest thing
// a metrics run holds (431 MB for the 4.9 M patches of a 400 Mpx mosaic),
// and after the scan they are only read in PID order. Whatever needs a
// patch's class or last row at random (the second pass) takes compact
// arrays built from one reading.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "patch_scan.h"
#include "spill_file.h"

namespace lsm {

/// Patch records on an anonymous scratch file (spill_file.h), PID order.
class PatchRecordFile {
 public:
  /// Takes over `file`, which holds `count` records in PID order from offset 0.
  PatchRecordFile(std::unique_ptr<SpillFile> file, size_t count);
  size_t size() const { return count_; }
  /// Reads records [first, first + count) into `out`. Throws lsm::Error(Io).
  void read(size_t first, size_t count, PatchStats* out);

 private:
  std::unique_ptr<SpillFile> file_;
  size_t count_ = 0;
};

/// The number of patches of `table`, wherever its records are.
size_t patch_count(const PatchTable& table);

/// Calls fn(first PID - 1, records, count) for consecutive blocks of at most
/// `block` records, in PID order, from memory or from the scratch file.
void for_each_patch_block(const PatchTable& table, size_t block,
                          const std::function<void(size_t first, const PatchStats* records, size_t count)>& fn);

}  // namespace lsm
