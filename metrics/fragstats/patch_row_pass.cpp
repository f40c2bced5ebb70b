#include "patch_row_pass.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "error.h"
#include "paged_array.h"
#include "serial_thresholds.h"

namespace lsm {
namespace {

// Collects the tiles of one tile row into a full-width strip and hands the
// strip's rows to the visitor once every tile of it has arrived.
class StripAssembler : public LabelRasterSink {
 public:
  StripAssembler(int64_t width, const std::vector<PatchRowVisitor*>& visitors,
                 const std::vector<PatchRowVisitor*>& parallel_visitors, LabelRasterSink* also)
      : width_(width), visitors_(visitors), parallel_visitors_(parallel_visitors), also_(also) {}

  void write(const Window& w, const uint32_t* labels) override {
    if (also_) also_->write(w, labels);
    if (received_ == 0) {
      y0_ = w.y0;
      height_ = w.height;
      strip_.assign(static_cast<size_t>(width_ * height_), 0);
    }
    for (int64_t r = 0; r < w.height; ++r)
      std::copy(labels + r * w.width, labels + (r + 1) * w.width, strip_.begin() + r * width_ + w.x0);
    received_ += w.width;
    if (received_ < width_) return;
    // The visitors share no mutable state: each takes the strip's rows on its own thread.
    std::exception_ptr failure;
    const int n = static_cast<int>(visitors_.size());
#pragma omp parallel for schedule(dynamic, 1) if (n > 1 && height_ * width_ > kSerialCells)
    for (int i = 0; i < n; ++i) {
      try {
        for (int64_t r = 0; r < height_; ++r) visitors_[static_cast<size_t>(i)]->row(y0_ + r, strip_.data() + r * width_);
      } catch (...) {
#pragma omp critical(lsm_strip_visitor_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    for (PatchRowVisitor* v : parallel_visitors_)
      for (int64_t r = 0; r < height_; ++r) v->row(y0_ + r, strip_.data() + r * width_);
    received_ = 0;
    release_paged_memory();  // per-patch arrays on scratch files: keep what the next strip touches
  }

 private:
  int64_t width_;
  const std::vector<PatchRowVisitor*>& visitors_;
  const std::vector<PatchRowVisitor*>& parallel_visitors_;
  LabelRasterSink* also_;
  std::vector<uint32_t> strip_;
  int64_t y0_ = 0, height_ = 0, received_ = 0;
};

}  // namespace

bool has_kept_labels(const PatchTable& table) {
  return !table.tile_labels.empty() &&
         table.tile_labels.size() == static_cast<size_t>(table.grid.rows * table.grid.cols);
}

std::vector<uint32_t> assemble_patch_ids(const PatchTable& table) {
  if (!has_kept_labels(table)) throw Error(ErrorKind::Internal, "assemble_patch_ids needs the scan's tile labels");
  const TileGrid& g = table.grid;
  const int64_t width = table.raster.width;
  std::vector<uint32_t> pids(static_cast<size_t>(width * table.raster.height));
  const int64_t tiles = g.rows * g.cols;
#pragma omp parallel for schedule(dynamic, 1) if (tiles > 1)
  for (int64_t t = 0; t < tiles; ++t) {
    const Window w = g.tile(t / g.cols, t % g.cols);
    const uint32_t* local = table.tile_labels[static_cast<size_t>(t)].data();
    // Fragment v (1-based) of tile t is entry base + v - 1; a tile without
    // fragments (a raster with no patch) never indexes the empty table.
    const uint32_t* fragment_pid = table.fragment_pid.data();
    const size_t base = table.tile_fragment_base[static_cast<size_t>(t)];
    for (int64_t r = 0; r < w.height; ++r) {
      uint32_t* out = pids.data() + (w.y0 + r) * width + w.x0;
      for (int64_t c = 0; c < w.width; ++c) {
        const uint32_t v = local[r * w.width + c];
        out[c] = v ? fragment_pid[base + v - 1] : 0;
      }
    }
  }
  return pids;
}

void visit_rows_in_memory(const std::vector<uint32_t>& pids, int64_t width, int64_t height,
                          const std::vector<PatchRowVisitor*>& visitors) {
  std::exception_ptr failure;
  const int n = static_cast<int>(visitors.size());
#pragma omp parallel for schedule(dynamic, 1) if (n > 1 && width * height > kSerialCells)
  for (int i = 0; i < n; ++i) {
    try {
      for (int64_t y = 0; y < height; ++y) {
        visitors[static_cast<size_t>(i)]->row(y, pids.data() + y * width);
        // Per-patch arrays on scratch files: keep what the next rows touch.
        if (i == 0 && (y & 255) == 255) release_paged_memory();
      }
      visitors[static_cast<size_t>(i)]->finish();
    } catch (...) {
#pragma omp critical(lsm_row_visitor_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

void visit_rows_in_memory_in_turn(const std::vector<uint32_t>& pids, int64_t width, int64_t height,
                                  const std::vector<PatchRowVisitor*>& parallel_visitors, const ProgressFn& progress,
                                  double from, double to) {
  const double rows = static_cast<double>(height) * static_cast<double>(parallel_visitors.size());
  double done = 0;
  for (PatchRowVisitor* v : parallel_visitors) {
    for (int64_t y = 0; y < height; ++y, ++done) {
      v->row(y, pids.data() + y * width);
      if ((y & 63) == 63 && progress && !progress(from + (to - from) * done / rows))
        throw Error(ErrorKind::Io, "interrupted");
    }
    v->finish();
  }
}

void visit_patch_rows(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                      const std::vector<PatchRowVisitor*>& visitors,
                      const std::vector<PatchRowVisitor*>& parallel_visitors, LabelRasterSink* also_write,
                      const ProgressFn& progress) {
  StripAssembler strips(table.raster.width, visitors, parallel_visitors, also_write);
  write_patch_ids(source, labeler, table, strips, progress);
  for (PatchRowVisitor* v : visitors) v->finish();
  for (PatchRowVisitor* v : parallel_visitors) v->finish();
}

}  // namespace lsm
