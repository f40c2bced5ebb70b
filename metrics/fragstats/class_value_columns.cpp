#include "class_value_columns.h"

#include <algorithm>

#include "error.h"

namespace lsm {

ClassValueColumns::ClassValueColumns(size_t classes, size_t metrics, const std::string& temp_dir,
                                     uint64_t memory_bytes, std::vector<bool> kept)
    : metrics_(metrics),
      kept_(kept.empty() ? std::vector<bool>(metrics, true) : std::move(kept)),
      columns_(classes * metrics),
      counts_(classes, 0),
      temp_dir_(temp_dir) {
  if (kept_.size() != metrics) throw Error(ErrorKind::Internal, "ClassValueColumns: one 'kept' flag per metric");
  const uint64_t stored = std::max<uint64_t>(1, static_cast<uint64_t>(std::count(kept_.begin(), kept_.end(), true)));
  const uint64_t per_column = memory_bytes / std::max<uint64_t>(1, classes * stored) / sizeof(double);
  chunk_values_ = static_cast<size_t>(std::clamp<uint64_t>(per_column, 512, 65536));
}

void ClassValueColumns::add(size_t cls, const double* values) {
  for (size_t m = 0; m < metrics_; ++m) {
    if (!kept_[m]) continue;
    Column& c = column(cls, m);
    c.buffer.push_back(values[m]);
    if (c.buffer.size() == chunk_values_) {
      // The scratch file is made for the first full chunk: a landscape whose
      // values fit the buffers writes none.
      if (!spill_) spill_ = std::make_unique<SpillFile>(temp_folder(temp_dir_));
      c.chunks.push_back(spill_->size());
      spill_->append(c.buffer.data(), c.buffer.size() * sizeof(double));
      c.buffer.clear();
    }
  }
  ++counts_[cls];
}

void ClassValueColumns::for_each(size_t cls, size_t m, size_t w, const std::function<void(double, double)>& fn) const {
  if (!kept_[m] || !kept_[w]) throw Error(ErrorKind::Internal, "ClassValueColumns: a metric not kept was read");
  const Column& cm = column(cls, m);
  const Column& cw = column(cls, w);
  // All metrics of a class are added together, so their chunks cover the same patches.
  // The read buffers only where chunks went to the scratch file: zeroing
  // them costs a small landscape (a zone, a window) more than its metrics.
  // Buffers of this call's own: several columns are replayed at once (the
  // distributions of one level, each on a thread).
  std::vector<double> read_m, read_w;
  if (!cm.chunks.empty()) {
    read_m.resize(chunk_values_);
    if (w != m) read_w.resize(chunk_values_);
  }
  for (size_t k = 0; k < cm.chunks.size(); ++k) {
    spill_->read(cm.chunks[k], read_m.data(), chunk_values_ * sizeof(double));
    if (w != m) spill_->read(cw.chunks[k], read_w.data(), chunk_values_ * sizeof(double));
    const double* wv = w != m ? read_w.data() : read_m.data();
    for (size_t i = 0; i < chunk_values_; ++i) fn(read_m[i], wv[i]);
  }
  for (size_t i = 0; i < cm.buffer.size(); ++i) fn(cm.buffer[i], cw.buffer[i]);
}

}  // namespace lsm
