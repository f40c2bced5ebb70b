#include "patch_row_pass.h"

#include <algorithm>
#include <vector>

namespace lsm {
namespace {

// Collects the tiles of one tile row into a full-width strip and hands the
// strip's rows to the visitor once every tile of it has arrived.
class StripAssembler : public LabelRasterSink {
 public:
  StripAssembler(int64_t width, PatchRowVisitor& visitor, LabelRasterSink* also)
      : width_(width), visitor_(visitor), also_(also) {}

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
    for (int64_t r = 0; r < height_; ++r) visitor_.row(y0_ + r, strip_.data() + r * width_);
    received_ = 0;
  }

 private:
  int64_t width_;
  PatchRowVisitor& visitor_;
  LabelRasterSink* also_;
  std::vector<uint32_t> strip_;
  int64_t y0_ = 0, height_ = 0, received_ = 0;
};

}  // namespace

void visit_patch_rows(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                      PatchRowVisitor& visitor, LabelRasterSink* also_write, const ProgressFn& progress) {
  StripAssembler strips(table.raster.width, visitor, also_write);
  write_patch_ids(source, labeler, table, strips, progress);
  visitor.finish();
}

}  // namespace lsm
