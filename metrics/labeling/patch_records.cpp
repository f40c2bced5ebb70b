#include "patch_records.h"

#include <algorithm>

namespace lsm {

PatchRecordFile::PatchRecordFile(std::unique_ptr<SpillFile> file, size_t count) : file_(std::move(file)), count_(count) {}

void PatchRecordFile::read(size_t first, size_t count, PatchStats* out) {
  file_->read(first * sizeof(PatchStats), out, count * sizeof(PatchStats));
}

size_t patch_count(const PatchTable& table) {
  return table.record_file ? table.record_file->size() : table.patches.size();
}

void for_each_patch_block(const PatchTable& table, size_t block,
                          const std::function<void(size_t first, const PatchStats* records, size_t count)>& fn) {
  const size_t n = patch_count(table);
  if (!table.record_file) {
    for (size_t first = 0; first < n; first += block) fn(first, table.patches.data() + first, std::min(block, n - first));
    return;
  }
  std::vector<PatchStats> buffer(std::min(block, n));
  for (size_t first = 0; first < n; first += block) {
    const size_t count = std::min(block, n - first);
    table.record_file->read(first, count, buffer.data());
    fn(first, buffer.data(), count);
  }
}

}  // namespace lsm
