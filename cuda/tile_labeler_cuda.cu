// The CUDA TileLabeler: the strip that a row of tiles shares goes to the
// device once, packed to one byte per cell when its class codes allow
// (strip_packing.h), and each tile is labelled in place as a window of it by
// DeviceGridLabeler (device_grid_labeler.cu), which honours the CPU
// reference's contract exactly. Tiles alternate between two streams, each
// with its own buffers, so that the host finishes one tile while the device
// labels the other.
#include <algorithm>
#include <array>
#include <cstring>

#include "cuda_check.h"
#include "device_grid_labeler.h"
#include "device_pool.h"
#include "strip_packing.h"
#include "tile_labeler_cuda.h"

namespace lsm {
namespace {

struct Slot {
  cudaStream_t stream = nullptr;
  std::unique_ptr<DeviceGridLabeler> labeler;
  DeviceBuffer d_labels, d_border;
  PinnedBuffer h_border, h_records, h_labels;
  const TileInput* tile = nullptr;  // tile in flight
  TileLabels* out = nullptr;
  uint32_t count = 0;
  bool want_labels = false;
};

class CudaTileLabeler final : public TileLabeler {
 public:
  explicit CudaTileLabeler(int device) : device_(device) {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    prepare_device_pool(device_);
    for (Slot& s : slots_) {
      LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
      s.labeler = std::make_unique<DeviceGridLabeler>(s.stream);
    }
    LSM_CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_, cudaEventDisableTiming));
  }
  ~CudaTileLabeler() override {
    // Device buffers go back to the pool in stream order, then the streams go.
    for (Slot& s : slots_) {
      s.labeler.reset();
      for (DeviceBuffer* b : {&s.d_labels, &s.d_border}) b->release();
      if (&s == &slots_[0]) d_strip_.release();
      if (s.stream) {
        cudaStreamSynchronize(s.stream);
        cudaStreamDestroy(s.stream);
      }
    }
    if (uploaded_) cudaEventDestroy(uploaded_);
  }
  Backend backend() const override { return Backend::Cuda; }
  std::string name() const override { return "cuda"; }
  // One tile per strip: a tile costs a few launches and a wait for its
  // records whatever its size (29 000 tiles of 1024 columns took 6.5 s of a
  // 10 Gpx run).
  int64_t preferred_tile_width(int64_t raster_width) const override { return raster_width; }

  void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                   std::vector<TileLabels>& out) override {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    out.resize(tiles.size());
    const TileStrip* on_device = nullptr;
    for (size_t i = 0; i < tiles.size(); ++i) {
      if (tiles[i].strip.get() != on_device) {  // the scheduler's tiles of one call share one strip
        finish_all();
        on_device = tiles[i].strip.get();
        upload(tiles, i);
      }
      Slot& slot = slots_[i % slots_.size()];
      if (slot.tile) finish(slot);
      enqueue(slot, tiles[i], out[i], rule, want_labels);
    }
    finish_all();
  }

 private:
  void finish_all() {
    for (Slot& s : slots_)
      if (s.tile) finish(s);
  }

  // Copies to the device the columns of the strip that its tiles from
  // tiles[first] on need, halos included (all of it on one GPU, a share of
  // it when the tiles are split among GPUs), after every tile of the
  // previous strip is done, and makes every slot's stream wait for the copy.
  void upload(const std::vector<TileInput>& tiles, size_t first) {
    const TileStrip& strip = *tiles[first].strip;
    int64_t x_lo = tiles[first].window.x0, x_hi = x_lo;
    for (size_t i = first; i < tiles.size() && tiles[i].strip.get() == &strip; ++i) {
      x_lo = std::min(x_lo, tiles[i].window.x0);
      x_hi = std::max(x_hi, tiles[i].window.x0 + tiles[i].window.width);
    }
    // Raster columns x_lo - 1 .. x_hi are strip columns x_lo .. x_hi + 1.
    strip_x0_ = x_lo;
    strip_pitch_ = x_hi - x_lo + 2;
    const int32_t* codes = strip.cells.data() + x_lo;
    cudaStream_t st = slots_[0].stream;
    LSM_CUDA_CHECK(cudaStreamSynchronize(st));  // the pinned buffer is free again
    const size_t n = static_cast<size_t>(strip.rows * strip_pitch_);
    h_strip_.reserve(n * sizeof(int32_t));
    packed_ = pack_class_bytes(codes, strip.rows, strip_pitch_, strip.stride, h_strip_.as<uint8_t>());
    size_t bytes = n;
    if (!packed_) {
      bytes = n * sizeof(int32_t);
      for (int64_t y = 0; y < strip.rows; ++y)
        std::memcpy(h_strip_.as<int32_t>() + y * strip_pitch_, codes + y * strip.stride,
                    static_cast<size_t>(strip_pitch_) * sizeof(int32_t));
    }
    d_strip_.reserve(bytes, st);
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_strip_.get(), h_strip_.get(), bytes, cudaMemcpyHostToDevice, st));
    LSM_CUDA_CHECK(cudaEventRecord(uploaded_, st));
    for (Slot& s : slots_)
      if (s.stream != st) LSM_CUDA_CHECK(cudaStreamWaitEvent(s.stream, uploaded_, 0));
  }

  void enqueue(Slot& s, const TileInput& tile, TileLabels& out, NeighbourRule rule, bool want_labels) {
    const int64_t w = tile.window.width, h = tile.window.height;  // DeviceGridLabeler checks the size
    const size_t n = static_cast<size_t>(w * h), border_bytes = static_cast<size_t>(2 * w + 2 * h) * 4;
    cudaStream_t st = s.stream;
    s.d_border.reserve(border_bytes, st);
    if (want_labels) s.d_labels.reserve(n * 4, st);
    s.h_border.reserve(border_bytes);
    if (want_labels) s.h_labels.reserve(n * 4);

    const TileStrip& strip = *tile.strip;
    // Interior cell (0, 0): raster column x0 is column x0 + 1 - strip_x0_ of what was uploaded.
    const int64_t origin = (tile.window.y0 - strip.top) * strip_pitch_ + tile.window.x0 + 1 - strip_x0_;
    DeviceClassGrid grid;
    if (packed_) {
      grid.cells = d_strip_.as<uint8_t>() + origin;
      grid.type = DeviceCellType::UInt8;
      grid.nodata = kPackedNodata;
    } else {
      grid.cells = d_strip_.as<int32_t>() + origin;
      grid.type = DeviceCellType::Int32;
    }
    grid.pitch = strip_pitch_;
    grid.width = static_cast<int>(w);
    grid.height = static_cast<int>(h);
    grid.halo = true;
    uint32_t* labels = want_labels ? s.d_labels.as<uint32_t>() : nullptr;
    s.labeler->enqueue(grid, rule, labels, s.d_border.as<uint32_t>());
    // Labels do not depend on the record pass, so they can come back now.
    LSM_CUDA_CHECK(cudaMemcpyAsync(s.h_border.get(), s.d_border.get(), border_bytes, cudaMemcpyDeviceToHost, st));
    if (want_labels)
      LSM_CUDA_CHECK(cudaMemcpyAsync(s.h_labels.get(), labels, n * 4, cudaMemcpyDeviceToHost, st));
    s.tile = &tile;
    s.out = &out;
    s.want_labels = want_labels;
  }

  void finish(Slot& s) {
    s.count = s.labeler->finish();  // waits for the slot's stream
    s.h_records.reserve(std::max<size_t>(1, s.count) * sizeof(DevicePatchRecord));
    if (s.count) {
      LSM_CUDA_CHECK(cudaMemcpyAsync(s.h_records.get(), s.labeler->records(), s.count * sizeof(DevicePatchRecord),
                                     cudaMemcpyDeviceToHost, s.stream));
      LSM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    }
    const TileInput& tile = *s.tile;
    TileLabels& out = *s.out;
    s.tile = nullptr;
    const int64_t w = tile.window.width, h = tile.window.height;
    const uint32_t* border = s.h_border.as<uint32_t>();
    out.count = s.count;
    out.top.assign(border, border + w);
    out.bottom.assign(border + w, border + 2 * w);
    out.left.assign(border + 2 * w, border + 2 * w + h);
    out.right.assign(border + 2 * w + h, border + 2 * w + 2 * h);
    if (s.want_labels) out.labels.assign(s.h_labels.as<uint32_t>(), s.h_labels.as<uint32_t>() + w * h);
    else out.labels.clear();
    out.fragments.resize(s.count);
    const DevicePatchRecord* r = s.h_records.as<DevicePatchRecord>();
    for (uint32_t k = 0; k < s.count; ++k)
      out.fragments[k] = to_patch_stats(r[k], w, tile.window.x0, tile.window.y0, tile.raster_width);
  }

  int device_;
  std::array<Slot, 2> slots_;
  DeviceBuffer d_strip_;  // the strip of the tiles in flight
  PinnedBuffer h_strip_;
  bool packed_ = false;   // d_strip_ holds bytes (kPackedNodata = nodata), else int32
  int64_t strip_x0_ = 0, strip_pitch_ = 0;  // d_strip_ holds strip columns strip_x0_ .. + strip_pitch_ - 1
  cudaEvent_t uploaded_ = nullptr;
};

}  // namespace

bool cuda_device_present(std::string* why_not) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (why_not) *why_not = e != cudaSuccess ? std::string("no CUDA device (") + cudaGetErrorString(e) + ")" : "no CUDA device";
    cudaGetLastError();  // clear the sticky-free error state for later calls
    return false;
  }
  return true;
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::unique_ptr<TileLabeler> make_cuda_labeler(int device) { return std::make_unique<CudaTileLabeler>(device); }

}  // namespace lsm
