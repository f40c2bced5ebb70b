// CUDA labeling of a tile by class equality, after Playne & Hawick (2018),
// "A new algorithm for parallel connected-component labelling on GPUs":
//   init     every valid cell is its own root;
//   merge    each cell unites with its same-class neighbours W, N (and NW, NE
//            for the 8-cell rule) through a lock-free union-find that always
//            links the larger root under the smaller (atomicMin), so each
//            patch's final root is its smallest cell index, i.e. its first
//            cell in raster order;
//   compress every cell points straight at its root;
//   compact  root flags + an exclusive scan (CUB) number the roots 1..n in
//            raster order: exactly the CPU reference's labels;
//   stats    per-cell counts and edges, added to the fragment's counters
//            with warp-aggregated atomics (lanes holding the same label
//            reduce first, one atomic per label and warp).
// Tiles run on two streams; copies come from pinned buffers and device
// memory from the stream-ordered pool, so nothing synchronises the device.
#include <cub/device/device_scan.cuh>

#include <array>
#include <cstring>

#include "cuda_check.h"
#include "device_pool.h"
#include "tile_labeler_cuda.h"

namespace lsm {
namespace {

constexpr uint32_t kInvalid = 0xFFFFFFFFu;
constexpr int kThreads = 256;

struct DeviceFragment {
  int32_t class_code;
  uint32_t first;  // local cell index of the first cell
  uint32_t cells, perim_h, perim_v, class_h, class_v, pad;
  unsigned long long sum_x, sum_y;  // tile-local column and row sums
};

struct TileShape {
  int w, h;       // interior size
  int stride;     // w + 2
  uint32_t n;     // w * h
};

__device__ __forceinline__ int32_t cell_class(const int32_t* in, const TileShape& s, int x, int y) {
  return in[(y + 1) * s.stride + (x + 1)];
}

__device__ __forceinline__ uint32_t find_root(const uint32_t* L, uint32_t x) {
  uint32_t p = L[x];
  while (p != x) {
    x = p;
    p = L[x];
  }
  return x;
}

// Playne & Hawick's union: links the larger root under the smaller one and
// retries when another thread moved the root in between.
__device__ void unite(uint32_t* L, uint32_t a, uint32_t b) {
  bool done = false;
  do {
    a = find_root(L, a);
    b = find_root(L, b);
    if (a < b) {
      const uint32_t old = atomicMin(&L[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const uint32_t old = atomicMin(&L[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

__global__ void k_init(const int32_t* in, TileShape s, uint32_t* L) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  const int x = i % s.w, y = i / s.w;
  L[i] = cell_class(in, s, x, y) == kNoClass ? kInvalid : i;
}

__global__ void k_merge(const int32_t* in, TileShape s, bool eight, uint32_t* L) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  const int x = i % s.w, y = i / s.w;
  const int32_t c = cell_class(in, s, x, y);
  if (c == kNoClass) return;
  if (x > 0 && cell_class(in, s, x - 1, y) == c) unite(L, i, i - 1);
  if (y > 0) {
    if (cell_class(in, s, x, y - 1) == c) unite(L, i, i - s.w);
    if (eight) {
      if (x > 0 && cell_class(in, s, x - 1, y - 1) == c) unite(L, i, i - s.w - 1);
      if (x + 1 < s.w && cell_class(in, s, x + 1, y - 1) == c) unite(L, i, i - s.w + 1);
    }
  }
}

__global__ void k_compress(TileShape s, uint32_t* L, uint32_t* root_flag) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  const uint32_t l = L[i];
  if (l == kInvalid) {
    root_flag[i] = 0;
    return;
  }
  const uint32_t r = find_root(L, i);
  L[i] = r;
  root_flag[i] = r == i ? 1u : 0u;
}

// After the scan: the fragment index of root r is dense[r]. Roots set up
// their record; a later kernel adds the counts (kernel order makes this safe).
__global__ void k_init_fragments(const int32_t* in, TileShape s, const uint32_t* L, const uint32_t* dense,
                                 DeviceFragment* frags, uint32_t* count) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == s.n - 1) *count = dense[i] + (L[i] == i ? 1u : 0u);
  if (i >= s.n || L[i] != i) return;
  DeviceFragment f{};
  f.class_code = cell_class(in, s, i % s.w, i / s.w);
  f.first = i;
  frags[dense[i]] = f;
}

__global__ void k_stats(const int32_t* in, TileShape s, const uint32_t* L, const uint32_t* dense,
                        DeviceFragment* frags, uint32_t* labels) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool inside = i < s.n;
  const uint32_t root = inside ? L[i] : kInvalid;
  const bool valid = root != kInvalid;
  uint32_t frag = kInvalid, packed = 0, lx = 0, ly = 0;
  if (valid) {
    frag = dense[root];
    const int x = i % s.w, y = i / s.w;
    lx = x;
    ly = y;
    const int32_t c = cell_class(in, s, x, y);
    uint32_t ph = 0, pv = 0, ch = 0, cv = 0;
    const int32_t up = cell_class(in, s, x, y - 1), down = cell_class(in, s, x, y + 1);
    const int32_t west = cell_class(in, s, x - 1, y), east = cell_class(in, s, x + 1, y);
    ph = (up != c) + (down != c);
    ch = (up != c && up != kNoClass) + (down != c && down != kNoClass);
    pv = (west != c) + (east != c);
    cv = (west != c && west != kNoClass) + (east != c && east != kNoClass);
    packed = ph | (pv << 8) | (ch << 16) | (cv << 24);  // each field sums to <= 64 over a warp
  }
  if (inside) labels[i] = valid ? frag + 1 : 0;
  // Warp aggregation: lanes with the same fragment add their counts first.
  const uint32_t peers = __match_any_sync(0xFFFFFFFFu, frag);
  const uint32_t sum = __reduce_add_sync(peers, packed);
  // 32 lanes x a tile side < 2^27 fits 32 bits; the totals need 64.
  const uint32_t sx = __reduce_add_sync(peers, lx), sy = __reduce_add_sync(peers, ly);
  const int leader = __ffs(peers) - 1;
  if (valid && (threadIdx.x & 31) == leader) {
    DeviceFragment& f = frags[frag];
    atomicAdd(&f.cells, __popc(peers));
    if (sum & 0xFFu) atomicAdd(&f.perim_h, sum & 0xFFu);
    if ((sum >> 8) & 0xFFu) atomicAdd(&f.perim_v, (sum >> 8) & 0xFFu);
    if ((sum >> 16) & 0xFFu) atomicAdd(&f.class_h, (sum >> 16) & 0xFFu);
    if (sum >> 24) atomicAdd(&f.class_v, sum >> 24);
    if (sx) atomicAdd(&f.sum_x, static_cast<unsigned long long>(sx));
    if (sy) atomicAdd(&f.sum_y, static_cast<unsigned long long>(sy));
  }
}

// Border labels for the seam merge: top row, bottom row, left column, right column.
__global__ void k_border(TileShape s, const uint32_t* labels, uint32_t* border) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t w = s.w, h = s.h;
  if (i < w) {
    border[i] = labels[i];
    border[w + i] = labels[(h - 1) * w + i];
  }
  if (i < h) {
    border[2 * w + i] = labels[i * w];
    border[2 * w + h + i] = labels[i * w + w - 1];
  }
}

unsigned blocks_for(uint32_t n) { return (n + kThreads - 1) / kThreads; }

// One stream with its buffers; tiles alternate between two slots so that the
// host prepares and finishes one tile while the device labels the other.
struct Slot {
  cudaStream_t stream = nullptr;
  DeviceBuffer d_in, d_roots, d_flags, d_dense, d_frags, d_labels, d_border, d_count, d_scan;
  PinnedBuffer h_in, h_border, h_count, h_frags, h_labels;
  size_t scan_bytes = 0;
  const TileInput* tile = nullptr;  // tile in flight
  TileLabels* out = nullptr;
  bool want_labels = false;
};

class CudaTileLabeler final : public TileLabeler {
 public:
  explicit CudaTileLabeler(int device) : device_(device) {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    prepare_device_pool(device_);
    for (Slot& s : slots_) LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  }
  ~CudaTileLabeler() override {
    // Device buffers go back to the pool in stream order, then the streams go.
    for (Slot& s : slots_) {
      for (DeviceBuffer* b : {&s.d_in, &s.d_roots, &s.d_flags, &s.d_dense, &s.d_frags, &s.d_labels, &s.d_border,
                              &s.d_count, &s.d_scan})
        b->release();
      if (s.stream) {
        cudaStreamSynchronize(s.stream);
        cudaStreamDestroy(s.stream);
      }
    }
  }
  std::string name() const override { return "cuda"; }

  void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                   std::vector<TileLabels>& out) override {
    LSM_CUDA_CHECK(cudaSetDevice(device_));
    out.resize(tiles.size());
    for (size_t i = 0; i < tiles.size(); ++i) {
      Slot& slot = slots_[i % slots_.size()];
      if (slot.tile) finish(slot);
      enqueue(slot, tiles[i], out[i], rule, want_labels);
    }
    for (size_t i = tiles.size(); i < tiles.size() + slots_.size(); ++i) {
      Slot& slot = slots_[i % slots_.size()];
      if (slot.tile) finish(slot);
    }
  }

 private:
  void enqueue(Slot& s, const TileInput& tile, TileLabels& out, NeighbourRule rule, bool want_labels) {
    const uint64_t n64 = static_cast<uint64_t>(tile.window.width) * static_cast<uint64_t>(tile.window.height);
    // Warp sums of local coordinates are 32-bit: each tile side below 2^27.
    if (n64 >= 0xFFFFFFFFull || tile.window.width >= (1 << 27) || tile.window.height >= (1 << 27))
      throw Error(ErrorKind::BadInput, "tile too large: at most 2^32-1 cells and 2^27-1 cells per side");
    TileShape shape{static_cast<int>(tile.window.width), static_cast<int>(tile.window.height),
                    static_cast<int>(tile.stride()), static_cast<uint32_t>(n64)};
    const size_t in_bytes = tile.cells.size() * sizeof(int32_t);
    const size_t n = shape.n;
    cudaStream_t st = s.stream;

    s.d_in.reserve(in_bytes, st);
    s.d_roots.reserve(n * 4, st);
    s.d_flags.reserve(n * 4, st);
    s.d_dense.reserve(n * 4, st);
    s.d_frags.reserve(n * sizeof(DeviceFragment), st);
    s.d_labels.reserve(n * 4, st);
    s.d_border.reserve((2 * shape.w + 2 * shape.h) * 4, st);
    s.d_count.reserve(4, st);
    size_t scan_bytes = 0;
    LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, s.d_flags.as<uint32_t>(),
                                                 s.d_dense.as<uint32_t>(), shape.n, st));
    s.d_scan.reserve(scan_bytes, st);
    s.h_in.reserve(in_bytes);
    s.h_border.reserve((2 * shape.w + 2 * shape.h) * 4);
    s.h_count.reserve(4);
    if (want_labels) s.h_labels.reserve(n * 4);

    std::memcpy(s.h_in.as<int32_t>(), tile.cells.data(), in_bytes);
    LSM_CUDA_CHECK(cudaMemcpyAsync(s.d_in.get(), s.h_in.as<int32_t>(), in_bytes, cudaMemcpyHostToDevice, st));
    const int32_t* in = s.d_in.as<int32_t>();
    uint32_t* L = s.d_roots.as<uint32_t>();
    const unsigned blocks = blocks_for(shape.n);
    k_init<<<blocks, kThreads, 0, st>>>(in, shape, L);
    LSM_CUDA_CHECK_LAUNCH();
    k_merge<<<blocks, kThreads, 0, st>>>(in, shape, rule == NeighbourRule::Eight, L);
    LSM_CUDA_CHECK_LAUNCH();
    k_compress<<<blocks, kThreads, 0, st>>>(shape, L, s.d_flags.as<uint32_t>());
    LSM_CUDA_CHECK_LAUNCH();
    LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(s.d_scan.get(), scan_bytes, s.d_flags.as<uint32_t>(),
                                                 s.d_dense.as<uint32_t>(), shape.n, st));
    k_init_fragments<<<blocks, kThreads, 0, st>>>(in, shape, L, s.d_dense.as<uint32_t>(),
                                                  s.d_frags.as<DeviceFragment>(), s.d_count.as<uint32_t>());
    LSM_CUDA_CHECK_LAUNCH();
    k_stats<<<blocks, kThreads, 0, st>>>(in, shape, L, s.d_dense.as<uint32_t>(), s.d_frags.as<DeviceFragment>(),
                                         s.d_labels.as<uint32_t>());
    LSM_CUDA_CHECK_LAUNCH();
    k_border<<<blocks_for(std::max(shape.w, shape.h)), kThreads, 0, st>>>(shape, s.d_labels.as<uint32_t>(),
                                                                          s.d_border.as<uint32_t>());
    LSM_CUDA_CHECK_LAUNCH();
    LSM_CUDA_CHECK(cudaMemcpyAsync(s.h_count.as<uint32_t>(), s.d_count.get(), 4, cudaMemcpyDeviceToHost, st));
    LSM_CUDA_CHECK(cudaMemcpyAsync(s.h_border.as<uint32_t>(), s.d_border.get(), (2 * shape.w + 2 * shape.h) * 4,
                                   cudaMemcpyDeviceToHost, st));
    if (want_labels)
      LSM_CUDA_CHECK(cudaMemcpyAsync(s.h_labels.as<uint32_t>(), s.d_labels.get(), n * 4, cudaMemcpyDeviceToHost, st));
    s.tile = &tile;
    s.out = &out;
    s.want_labels = want_labels;
  }

  void finish(Slot& s) {
    cudaStream_t st = s.stream;
    LSM_CUDA_CHECK(cudaStreamSynchronize(st));
    const TileInput& tile = *s.tile;
    TileLabels& out = *s.out;
    s.tile = nullptr;
    const uint32_t count = *s.h_count.as<uint32_t>();
    s.h_frags.reserve(std::max<size_t>(1, count) * sizeof(DeviceFragment));
    if (count)
      LSM_CUDA_CHECK(cudaMemcpyAsync(s.h_frags.as<DeviceFragment>(), s.d_frags.get(), count * sizeof(DeviceFragment),
                                     cudaMemcpyDeviceToHost, st));
    const int64_t w = tile.window.width, h = tile.window.height;
    const uint32_t* border = s.h_border.as<uint32_t>();
    out.count = count;
    out.top.assign(border, border + w);
    out.bottom.assign(border + w, border + 2 * w);
    out.left.assign(border + 2 * w, border + 2 * w + h);
    out.right.assign(border + 2 * w + h, border + 2 * w + 2 * h);
    if (s.want_labels) out.labels.assign(s.h_labels.as<uint32_t>(), s.h_labels.as<uint32_t>() + w * h);
    else out.labels.clear();
    LSM_CUDA_CHECK(cudaStreamSynchronize(st));
    out.fragments.resize(count);
    const DeviceFragment* f = s.h_frags.as<DeviceFragment>();
    for (uint32_t k = 0; k < count; ++k) {
      PatchStats& p = out.fragments[k];
      p.class_code = f[k].class_code;
      const uint64_t lx = f[k].first % static_cast<uint64_t>(w), ly = f[k].first / static_cast<uint64_t>(w);
      p.first_cell = static_cast<uint64_t>(tile.window.y0 + ly) * static_cast<uint64_t>(tile.raster_width) +
                     static_cast<uint64_t>(tile.window.x0 + lx);
      p.cells = f[k].cells;
      p.perim_edges_h = f[k].perim_h;
      p.perim_edges_v = f[k].perim_v;
      p.class_edges_h = f[k].class_h;
      p.class_edges_v = f[k].class_v;
      p.sum_col = f[k].sum_x + p.cells * static_cast<uint64_t>(tile.window.x0);
      p.sum_row = f[k].sum_y + p.cells * static_cast<uint64_t>(tile.window.y0);
    }
  }

  int device_;
  std::array<Slot, 2> slots_;
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

std::unique_ptr<TileLabeler> make_cuda_labeler(int device) { return std::make_unique<CudaTileLabeler>(device); }

}  // namespace lsm
