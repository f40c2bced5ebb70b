// Device labeling by class equality with fused per-patch accumulators.
//
// The stages (docs/GPU_LABELING.md has the design notes and measurements):
//  1 k_label_blocks   one warp labels each 32 x 32 block of cells row by row,
//                     like a two-pass scan: a warp ballot finds the runs of
//                     equal class along the row, a run takes the provisional
//                     label of the first run above it touches (or starts a
//                     new one), and only runs touching different labels unite
//                     them (union-find in shared memory after Playne & Hawick
//                     2018, the larger root linked under the smaller with
//                     atomicMin, so a root is its component's first cell in
//                     raster order); every cell's parent becomes its
//                     block-local root, and each row writes one word of the
//                     root bitmap (one bit per cell, row-major) with a ballot;
//  2 k_join_blocks    only the cells on block borders unite across blocks, and
//                     only where a neighbour's union does not already imply
//                     it (about one union per run of cells along a border);
//                     finds halve their paths; a root that gets linked clears
//                     its bit, so the bitmap ends up marking exactly the final
//                     roots, each patch's first cell, and the root it goes
//                     under is marked "merged" (a final root so marked heads a
//                     patch that spans blocks);
//    rank             an exclusive sum (CUB) of the bitmap's word popcounts:
//                     a root's label is the prefix of its word plus the roots
//                     before it in the word, i.e. its rank in raster order;
//  3 k_init_merged_records  records of patches that span blocks are set up;
//  4 k_accumulate     a warp takes four rows of a block, each lane its column
//                     in registers; the warp's block-local roots, compacted
//                     into a list, find their patches' labels from the
//                     bitmaps (a rank, or a linked root's final root's) for
//                     the block; every cell writes its label, each run of one
//                     component along a row adds its sums (from warp ballots)
//                     into its block-local root's slot of a per-block table
//                     in shared memory; then, over the list again, a patch
//                     inside the block is written whole, and the components
//                     of one that spans blocks meet by label and send one
//                     set of global atomics per block.
// Only integer atomics are used, so the records are exact and the same for
// any thread schedule. Nothing waits on the host until finish().
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "cuda_check.h"
#include "device_grid_labeler.h"
#include "fast_divmod.h"
#include "raster.h"

namespace lsm {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr int kBlockW = 32;     // one warp per row of a block
constexpr int kBlockH = 32;     // rows of a block (labeling and accumulation)
constexpr int kThreadRows = 8;  // k_accumulate's blockDim.y: each thread takes kBlockH / kThreadRows rows
constexpr int kRowsPerThread = kBlockH / kThreadRows;
constexpr int kBlockCells = kBlockW * kBlockH;

// Reads class codes from a DeviceClassGrid of cell type T; outside the grid
// (and its halo, when it has one) is nodata: the kernels test the bounds.
template <class T>
struct GridReader {
  const T* cells;
  int64_t pitch;
  int w, h;
  bool halo;
  int nodata;

  __device__ __forceinline__ int32_t convert(T v) const;
  __device__ __forceinline__ int32_t inside(int x, int y) const { return convert(cells[y * pitch + x]); }
  // Inside the grid only (joins never reach into the halo).
  __device__ __forceinline__ int32_t within(int x, int y) const {
    return (x < 0 || y < 0 || x >= w || y >= h) ? kNoClass : inside(x, y);
  }
};
template <>
__device__ __forceinline__ int32_t GridReader<uint8_t>::convert(uint8_t v) const {
  return int(v) == nodata ? kNoClass : int32_t(v);
}
template <>
__device__ __forceinline__ int32_t GridReader<int32_t>::convert(int32_t v) const {
  return v;
}

template <class Index>
__device__ __forceinline__ uint32_t find_root(const Index* parent, uint32_t x) {
  uint32_t p = parent[x];
  while (p != x) {
    x = p;
    p = parent[x];
  }
  return x;
}

// find_root with path halving, for finds that run while other threads unite.
// The halving store is a compare-and-swap, so it never overwrites a parent
// that another thread has changed since it was read; it stores an ancestor
// into a cell that is not a root, and parents only decrease.
__device__ __forceinline__ uint32_t find_root_halving(uint32_t* parent, uint32_t x) {
  uint32_t p = parent[x];
  while (p != x) {
    const uint32_t gp = parent[p];
    if (gp != p) atomicCAS(&parent[x], p, gp);
    x = gp;
    p = parent[x];
  }
  return x;
}

// Union of the sets of a and b in the global union-find, linking the larger
// root under the smaller (Playne & Hawick's lock-free retry loop), with
// halving finds. Returns the root that was linked away, or kNone when a and
// b were already one set; `*into` gets the root it was linked under.
__device__ __forceinline__ uint32_t unite(uint32_t* parent, uint32_t a, uint32_t b, uint32_t* into) {
  while (true) {
    a = find_root_halving(parent, a);
    b = find_root_halving(parent, b);
    if (a == b) return kNone;
    if (a > b) {
      const uint32_t t = a;
      a = b;
      b = t;
    }
    const uint32_t old = atomicMin(&parent[b], a);
    if (old == b) {
      *into = a;
      return b;
    }
    b = old;  // another thread linked b meanwhile: retry from its new parent
  }
}

// Union in one block's union-find (shared memory, 16-bit entries: 16 KB per
// four blocks instead of 24, which let 56 warps share an SM instead of 36
// and took augusta's block labeling from 0.41 to 0.39 ms). The larger root
// goes under the smaller, as in unite, but by a compare-and-swap that links
// b only while it is still a root (there is no 16-bit atomicMin); when
// another lane linked b first, the finds start again. Finds only read.
__device__ __forceinline__ void unite_local(uint16_t* parent, uint32_t a, uint32_t b) {
  while (true) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return;
    if (a > b) {
      const uint32_t t = a;
      a = b;
      b = t;
    }
    if (atomicCAS(&parent[b], static_cast<unsigned short>(b), static_cast<unsigned short>(a)) == b) return;
  }
}

// The bitmaps have one bit per cell, a row of words per grid row. The
// union-find's parents are laid out with the same pitch, a row of
// words_per_row * 32 entries (pitch() below), and name cells by that index:
// a cell's word is its parent index / 32, its bit the index % 32, and every
// warp's row of parents starts on a 128-byte line.
struct BitmapShape {
  int w;
  uint32_t words_per_row;
  float inverse_words;  // 1 / words_per_row
  __host__ __device__ __forceinline__ uint32_t pitch() const { return words_per_row * 32u; }
  __device__ __forceinline__ uint32_t word_of(uint32_t cell, uint32_t* bit) const {
    *bit = cell & 31u;
    return cell >> 5;
  }
};

BitmapShape bitmap_shape(int width, uint32_t words_per_row) {
  return BitmapShape{width, words_per_row, 1.0f / static_cast<float>(words_per_row)};
}

// One warp labels one 32 x 32 block, row after row, like a two-pass scan:
// a run of equal class along the row (found with a ballot) takes the
// provisional label of the first run above that it touches under the rule
// or, touching none, starts a new one: its first cell's index. Only where a
// run touches runs above with different labels do those labels unite
// (union-find in shared memory, the larger root linked under the smaller),
// so a real landscape needs few unions; the earlier kernel, with eight warps
// uniting at every overlap of adjacent runs, spent most of its instructions
// in the finds. Roots are minimum indices: each patch's first cell in the
// block. The lane's column streams through registers, and the previous
// row's classes and labels come by shuffles. The row loop stays rolled:
// unrolled 4 times it ran as fast, unrolled fully (32 copies of its body
// and the inlined unions) it overflowed the instruction cache and took
// 2.8 times as long on augusta.
// Warps per thread block, one 32 x 32 block of cells each: two ran as fast,
// eight slower (augusta 0.42 -> 0.46 ms), measured when shared memory allowed
// 36 warps per SM (32-bit union-find entries).
constexpr int kBlocksPerCta = 4;

template <class T>
__global__ void __launch_bounds__(kBlockW* kBlocksPerCta)
    k_label_blocks(GridReader<T> g, bool eight, uint32_t* parent, uint32_t* root_bits, uint32_t* local_bits,
                   uint32_t* merged_bits, BitmapShape bm) {
  __shared__ uint16_t uf_of[kBlocksPerCta][kBlockH * kBlockW];  // union-find over run starts
  __shared__ uint16_t prov_of[kBlocksPerCta][kBlockH][kBlockW];  // provisional label of every cell
  constexpr uint32_t kAll = 0xFFFFFFFFu;
  constexpr uint16_t kNoLabel16 = 0xFFFFu;
  const int tx = threadIdx.x, warp = threadIdx.y;
  const uint32_t bx = blockIdx.x * kBlocksPerCta + warp;
  const int x0 = int(bx) * kBlockW, y0 = blockIdx.y * kBlockH, x = x0 + tx;
  if (x0 >= g.w) return;  // warp-uniform; warps never wait for each other
  uint16_t* uf = uf_of[warp];
  uint16_t(*prov)[kBlockW] = prov_of[warp];
  const bool in_x = x < g.w;
  const int rows = min(kBlockH, g.h - y0);
  // The lane's column is read two rows ahead, at an offset that steps a row
  // at a time (no 64-bit index product per row).
  int64_t ahead_at = (int64_t(y0) + 2) * g.pitch + x;
  auto class_at = [&](int r) { return in_x && r < rows ? g.inside(x, y0 + r) : kNoClass; };

  const uint32_t upto = kAll >> (31 - tx), below = upto >> 1;  // lanes 0..tx, lanes 0..tx-1
  int32_t cc = class_at(0), next = class_at(1);
  int32_t above = kNoClass, above_left = kNoClass, above_right = kNoClass;
  uint32_t prov_above = kNone, prov_above_left = kNone, prov_above_right = kNone;
#pragma unroll 1
  for (int r = 0; r < kBlockH; ++r) {
    const int32_t ahead = in_x && r + 2 < rows ? g.convert(g.cells[ahead_at]) : kNoClass;
    ahead_at += g.pitch;
    if (__all_sync(kAll, cc == above)) {
      // The row repeats the one above: the same runs, each touching only its
      // copy above (no corner beyond a run's end is of its class), so the
      // same labels, and nothing else changes.
      prov[r][tx] = prov_above == kNone ? kNoLabel16 : uint16_t(prov_above);
      cc = next;
      next = ahead;
      continue;
    }
    const int32_t left = __shfl_up_sync(kAll, cc, 1), right = __shfl_down_sync(kAll, cc, 1);
    const bool valid = cc != kNoClass;
    const bool starts = valid && (tx == 0 || left != cc), ends = valid && (tx == kBlockW - 1 || right != cc);
    const uint32_t start_bits = __ballot_sync(kAll, starts), end_bits = __ballot_sync(kAll, ends);
    const int run_start = 31 - __clz(start_bits & upto);
    const int run_end = __ffs(end_bits & ~below) - 1;  // the first run end at or after this lane
    // The labels above that this cell touches: its edge neighbour, else
    // (8-cell rule) the corners beyond its run's ends; a one-cell run may touch two.
    uint32_t touch = kNone, touch2 = kNone;
    if (valid) {
      if (above == cc) {
        touch = prov_above;
      } else if (eight) {
        if (starts && tx > 0 && above_left == cc) touch = prov_above_left;
        if (ends && tx < kBlockW - 1 && above_right == cc) {
          if (touch == kNone) touch = prov_above_right;
          else touch2 = prov_above_right;
        }
      }
    }
    const uint32_t run_mask = valid ? (kAll >> (31 - run_end)) & (kAll << run_start) : 0u;
    const uint32_t touching = __ballot_sync(kAll, touch != kNone) & run_mask;
    const uint32_t first_touch = __shfl_sync(kAll, touch, touching ? __ffs(touching) - 1 : tx);
    const uint32_t touch_left = __shfl_up_sync(kAll, touch, 1);
    uint32_t label = kNone;
    if (valid) {
      label = touching ? first_touch : uint32_t(r * kBlockW + run_start);
      if (!touching && starts) uf[label] = uint16_t(label);
      // Unite each other label touched: once per stretch of equal labels.
      if (touch != kNone && touch != label && !(tx > run_start && touch_left == touch)) unite_local(uf, touch, label);
      if (touch2 != kNone && touch2 != label) unite_local(uf, touch2, label);
    }
    prov[r][tx] = valid ? uint16_t(label) : kNoLabel16;
    __syncwarp();
    above = cc;
    above_left = left;
    above_right = right;
    prov_above = label;
    prov_above_left = __shfl_up_sync(kAll, label, 1);
    prov_above_right = __shfl_down_sync(kAll, label, 1);
    cc = next;
    next = ahead;
  }
  // Every cell's parent becomes its block-local root. Row r's word of the
  // root bitmap stays with lane r, and the 32 words go out after the loop
  // (stored by lane 0 inside it, with their address arithmetic, they were
  // a fifth of this epilogue's instructions). A cell's provisional label
  // mostly is a root or points at one; the rare longer paths are followed
  // here (finds only read). An earlier pass pointed every new label at its
  // root first, row by row: on augusta that was 10-15 % of this kernel's
  // instructions, and without it block labeling went 0.339 -> 0.320 ms
  // (bern_valais 0.226 -> 0.231, one class 0.19 -> 0.20, where the pass
  // had little to do; skipping the second load for labels that are their
  // own roots did not win that back).
  const uint32_t pitch = bm.pitch(), block_base = uint32_t(y0) * pitch + uint32_t(x0);
  uint32_t* parent_row = parent + (block_base + uint32_t(tx));
  uint32_t row_word = 0;
#pragma unroll 4
  for (int r = 0; r < kBlockH; ++r, parent_row += pitch) {
    const uint32_t label = prov[r][tx];
    const bool labelled = in_x && r < rows && label != kNoLabel16;
    uint32_t root = labelled ? uf[label] : 0u;
    if (labelled) {
      const uint32_t up = uf[root];
      if (up != root) root = find_root(uf, up);
    }
    if (in_x && r < rows) parent_row[0] = labelled ? block_base + (root / kBlockW) * pitch + root % kBlockW : kNone;
    const uint32_t word = __ballot_sync(kAll, labelled && root == uint32_t(r * kBlockW + tx));
    if (tx == r) row_word = word;
  }
  if (tx < rows) {
    const uint32_t k = uint32_t(y0 + tx) * bm.words_per_row + bx;
    root_bits[k] = row_word;
    local_bits[k] = row_word;
    merged_bits[k] = 0;
  }
}

// Cells on the top row and the left column of each block unite with their
// neighbours in the blocks above and to the left. Along a border, a cell
// skips the unions that its predecessor in the same run (same class, the
// previous cell along the border) already made or implied: the predecessor
// is connected to it, its edge neighbour across the border is our corner
// neighbour, and its corner neighbour is our edge neighbour.
// A root that another gets linked under is marked "merged": at the end, a
// final root is marked iff its patch spans blocks (its last link under it
// marked it; a marked root that got linked itself is no longer final).
template <class T>
__global__ void k_join_blocks(GridReader<T> g, bool eight, uint32_t* parent, uint32_t* root_bits,
                              uint32_t* merged_bits, BitmapShape bm) {
  const int t = threadIdx.x, x0 = blockIdx.x * kBlockW, y0 = blockIdx.y * kBlockH;
  const bool top = t < kBlockW;
  int x, y;
  if (top) {
    x = x0 + t;
    y = y0;
    if (y0 == 0) return;
  } else {
    x = x0;
    y = y0 + (t - kBlockW);
    if (x0 == 0) return;
  }
  if (x >= g.w || y >= g.h) return;
  const int32_t c = g.inside(x, y);
  if (c == kNoClass) return;
  // Along the top row the border runs in x (across: y - 1); along the left column in y (across: x - 1).
  const int ax = top ? 0 : -1, ay = top ? -1 : 0;  // step across the border
  const int sx = top ? 1 : 0, sy = top ? 0 : 1;     // step along the border
  const bool pred_same = (top ? x > x0 : y > y0) && g.inside(x - sx, y - sy) == c;
  const bool across = g.within(x + ax, y + ay) == c;                   // edge neighbour across
  const bool across_prev = g.within(x + ax - sx, y + ay - sy) == c;    // corner, behind
  const bool across_next = g.within(x + ax + sx, y + ay + sy) == c;    // corner, ahead
  const uint32_t pitch = bm.pitch(), i = uint32_t(y) * pitch + uint32_t(x);
  // Finds start at the block-local roots, so that their halving never
  // touches a cell's own parent: k_accumulate finds a cell's block-local
  // root (its slot) there.
  auto join = [&](int nx, int ny) {
    uint32_t into = kNone;
    const uint32_t linked = unite(parent, parent[i], parent[uint32_t(ny) * pitch + uint32_t(nx)], &into);
    if (linked != kNone) {
      uint32_t bit;
      const uint32_t word = bm.word_of(linked, &bit);
      atomicAnd(&root_bits[word], ~(1u << bit));
      const uint32_t into_word = bm.word_of(into, &bit);
      atomicOr(&merged_bits[into_word], 1u << bit);
    }
  };
  if (eight) {
    if (pred_same) {
      // The predecessor joined (or implied) our edge neighbour and the corner behind.
      if (across_next && !across) join(x + ax + sx, y + ay + sy);
    } else {
      if (across) join(x + ax, y + ay);
      else {
        if (across_prev) join(x + ax - sx, y + ay - sy);
        if (across_next) join(x + ax + sx, y + ay + sy);
      }
    }
  } else if (across && !(pred_same && across_prev)) {
    join(x + ax, y + ay);
  }
}

struct Popcount {
  __host__ __device__ uint32_t operator()(uint32_t v) const {
#ifdef __CUDA_ARCH__
    return __popc(v);
#else
    return static_cast<uint32_t>(__builtin_popcount(v));
#endif
  }
};

__device__ __forceinline__ uint32_t rank_of(uint32_t root, const BitmapShape& bm, const uint32_t* root_bits,
                                            const uint32_t* root_rank) {
  uint32_t bit;
  const uint32_t word = bm.word_of(root, &bit);
  return root_rank[word] + __popc(root_bits[word] & ((1u << bit) - 1u));
}

__global__ void k_count(const uint32_t* root_bits, const uint32_t* root_rank, uint32_t words, uint32_t* count) {
  *count = root_rank[words - 1] + __popc(root_bits[words - 1]);
}

// A record in four 16-byte stores (records are 64 bytes, 16-byte aligned).
__device__ __forceinline__ void store_record(DevicePatchRecord* dst, const DevicePatchRecord& r) {
  static_assert(sizeof(DevicePatchRecord) == 4 * sizeof(uint4), "records are four 16-byte words");
  uint4 v[4];
  memcpy(v, &r, sizeof(r));
  uint4* out = reinterpret_cast<uint4*>(dst);
#pragma unroll
  for (int k = 0; k < 4; ++k) out[k] = v[k];
}

// Records of the patches that span blocks are set up for the atomics of
// k_accumulate (a patch inside one block gets its whole record from that
// block). A thread per bitmap word, over its merged final roots (few). The
// class is left to k_accumulate's block of the first cell, which has it in
// registers (a load here made each record wait on it). Idempotent, so that
// the record pass can run again.
__global__ void k_init_merged_records(const uint32_t* root_bits, const uint32_t* merged_bits,
                                      const uint32_t* root_rank, BitmapShape bm, uint32_t words,
                                      DevicePatchRecord* records, uint64_t capacity) {
  const uint32_t word = blockIdx.x * blockDim.x + threadIdx.x;
  if (word >= words) return;
  const uint32_t finals = root_bits[word];
  uint32_t merged = merged_bits[word] & finals;
  if (!merged) return;
  const uint32_t y = word / bm.words_per_row, x_base = (word - y * bm.words_per_row) * 32u, rank = root_rank[word];
  while (merged) {
    const int b = __ffs(merged) - 1;
    merged &= merged - 1;
    const uint32_t label = rank + __popc(finals & ((1u << b) - 1u));
    if (label >= capacity) continue;
    DevicePatchRecord r{};
    r.first = y * uint32_t(bm.w) + x_base + uint32_t(b);
    r.col_min = kNone;
    r.row_min = y;  // the first cell is on the patch's top row
    store_record(&records[label], r);
  }
}

// Per-block sums of the patches present in the block, in shared memory,
// one slot per cell, used by the block-local roots: the slot of a cell's
// sums is its block-local root's index in the block, so no key or hash is
// needed (a patch with several block-local components in the block, joined
// outside it, has several slots, and spans blocks). Packed so that six
// blocks fit on an SM. The counts are 11-bit fields in three 32-bit words
// (packed_counts): a slot has at most 1024 cells, and at most 1024 sides
// across rows (two per vertical run of its cells in a column, at most 16
// runs in a column of 32) or along them. Three words, not one 64-bit word,
// because a 64-bit add to shared memory is a compare-and-swap loop, which
// serialised every lane of a warp that added to the same slot. Coordinate
// sums are block-local, the column sum in the low 16 bits and the row sum in
// the high 16 (each at most 31 * 1024 < 2^16); the columns and rows a patch
// occupies are bit masks.
namespace packed_counts {
constexpr int kWords = 3, kBits = 11, kMask = (1 << kBits) - 1;
// word 0: cells | perim_h << 11; word 1: class_h | perim_v << 11; word 2: class_v
__device__ __forceinline__ uint32_t low(uint32_t v) { return v & kMask; }
__device__ __forceinline__ uint32_t high(uint32_t v) { return v >> kBits; }
}  // namespace packed_counts
struct BlockSums {
  uint32_t counts[packed_counts::kWords][kBlockCells];
  uint32_t sum_xy[kBlockCells], col_mask[kBlockCells], row_mask[kBlockCells];
  uint32_t label[kBlockCells];  // the patch's label, at its block-local roots
};

// One block's sums of one patch go to its record: written whole when the
// patch lies inside the block (`inside`), else added with one set of
// integer atomics to the record that k_init_merged_records set up. `first` is the
// patch's first cell in the block (its grid index) and `first_row` that
// cell's row; counts are packed as in packed_counts, the coordinate sums and
// masks are block-local.
__device__ __forceinline__ void emit_block_sums(DevicePatchRecord* rec, bool inside, int32_t class_code, uint32_t first,
                                                uint32_t first_row, int x0, int y0, uint32_t count0, uint32_t count1,
                                                uint32_t count2, uint32_t sxy, uint32_t cols, uint32_t rows) {
  using namespace packed_counts;
  const uint32_t n = low(count0);
  const unsigned long long edges_h = high(count0) | static_cast<unsigned long long>(low(count1)) << 32;
  const unsigned long long edges_v = high(count1) | static_cast<unsigned long long>(count2) << 32;
  const unsigned long long sum_col = (sxy & 0xFFFFu) + static_cast<unsigned long long>(n) * x0;
  const unsigned long long sum_row = (sxy >> 16) + static_cast<unsigned long long>(n) * y0;
  const uint32_t col_min = uint32_t(x0 + __ffs(cols) - 1), col_max = uint32_t(x0 + 31 - __clz(cols));
  const uint32_t row_max = uint32_t(y0 + 31 - __clz(rows));
  if (inside) {
    DevicePatchRecord r;
    r.class_code = class_code;
    r.first = first;
    r.cells = n;
    r.col_min = col_min;
    r.col_max = col_max;
    r.row_min = first_row;
    r.row_max = row_max;
    r.pad = 0;
    r.edges_h = edges_h;
    r.edges_v = edges_v;
    r.sum_col = sum_col;
    r.sum_row = sum_row;
    store_record(rec, r);
    return;
  }
  atomicAdd(&rec->cells, n);
  atomicAdd(&rec->edges_h, edges_h);
  atomicAdd(&rec->edges_v, edges_v);
  atomicAdd(&rec->sum_col, sum_col);
  atomicAdd(&rec->sum_row, sum_row);
  atomicMin(&rec->col_min, col_min);
  atomicMax(&rec->col_max, col_max);
  atomicMax(&rec->row_max, row_max);
}

// Where the block-local roots of one patch that spans blocks meet before
// their sums go out: a patch can have several block-local components in a
// block, joined outside it (2-class noise: dozens), and one set of global
// atomics per component on the same record serialises. Keyed by label, open
// addressing; `root` is the slot in BlockSums of the component that took
// the key, which the others add into. Small, so that clearing it costs one
// store per thread: a component that finds it full sends its own sums.
constexpr int kMergedSlots = 256;
struct MergedRoots {
  uint32_t key[kMergedSlots];
  uint16_t root[kMergedSlots];
};

__device__ __forceinline__ uint32_t label_hash(uint32_t label) { return (label * 2654435761u) >> 24; }
static_assert(kMergedSlots == 1 << 8, "label_hash gives 8 bits");

// Finds the label's slot in `merged`, or -1 if it is not there (the table
// was full when the label's components probed it).
__device__ __forceinline__ int find_merged(const MergedRoots& merged, uint32_t label) {
  uint32_t h = label_hash(label);
  for (int probe = 0; probe < kMergedSlots; ++probe, h = (h + 1) & (kMergedSlots - 1)) {
    const uint32_t key = merged.key[h];
    if (key == label) return int(h);
    if (key == kNone) return -1;
  }
  return -1;
}

// What one thread adds to one slot: its sums of one patch over its rows,
// which lie one above the other, so that a patch that goes on downwards
// (most of a real landscape's cells) costs one set of shared atomics.
struct SlotSums {
  int slot = -1;
  uint32_t sum_xy = 0, col_mask = 0, row_mask = 0;
  uint32_t counts[packed_counts::kWords] = {0, 0, 0};

  __device__ __forceinline__ void flush(BlockSums& s) const {
    if (slot < 0) return;
#pragma unroll
    for (int k = 0; k < packed_counts::kWords; ++k) atomicAdd(&s.counts[k][slot], counts[k]);
    atomicAdd(&s.sum_xy[slot], sum_xy);
    atomicOr(&s.col_mask[slot], col_mask);
    atomicOr(&s.row_mask[slot], row_mask);
  }
};

// The words of the bitmaps for one warp's rows of the block (the same for
// all its lanes), in shared memory so that one lane loads each.
namespace row_word {
constexpr int kLocal = 0, kFinal = 1, kMerged = 2, kRank = 3, kKinds = 4;
}

// Thread blocks of the record pass per SM: on Byte grids six (40
// registers, 4 bytes spilled) ran faster on augusta than five (48
// registers, none): 1.16 against 1.18 ms (v7); seven spill more. Int32
// grids spill 28 bytes at six and take five: real landscapes as fast,
// 28-class noise 2.12 -> 2.01 ms, one class 0.81 -> 0.77 (H100).
template <class T>
struct AccumulateOccupancy {
  static constexpr int kBlocksPerSm = 6;
};
template <>
struct AccumulateOccupancy<int32_t> {
  static constexpr int kBlocksPerSm = 5;
};

template <class T>
__global__ void __launch_bounds__(kBlockW* kThreadRows, AccumulateOccupancy<T>::kBlocksPerSm)
    k_accumulate(GridReader<T> g, const uint32_t* parent, const uint32_t* root_bits, const uint32_t* local_bits,
                 const uint32_t* merged_bits, const uint32_t* root_rank, BitmapShape bm,
                 DevicePatchRecord* records, uint64_t capacity, uint32_t* labels, uint32_t* border) {
  using namespace row_word;
  constexpr uint32_t kAll = 0xFFFFFFFFu;
  __shared__ BlockSums s;
  __shared__ MergedRoots merged;
  __shared__ uint32_t words_of[kThreadRows][kKinds][kRowsPerThread];
  // Each warp's block-local roots, compacted: row << 5 | lane.
  __shared__ uint8_t roots_of[kThreadRows][kRowsPerThread * kBlockW];
  const int tx = threadIdx.x, warp = threadIdx.y, tid = warp * kBlockW + tx;
  const int x0 = blockIdx.x * kBlockW, y0 = blockIdx.y * kBlockH, x = x0 + tx;
  const int ly0 = warp * kRowsPerThread;  // the warp's rows are ly0 .. ly0 + kRowsPerThread - 1 of the block
  const uint32_t w = uint32_t(g.w);
  uint32_t (*words)[kRowsPerThread] = words_of[warp];
  uint8_t* roots = roots_of[warp];

  // Every global load is issued before any is used (the pass is bound by
  // latency and instructions, not bandwidth): the lane's column of classes
  // over the warp's rows and one row above and below (lanes 0 and 31 also
  // the column beyond the block's side), its cells' parents, and the
  // bitmaps' words of the warp's rows, one per lane.
  // The rows are reached by stepping a row pointer by the pitch, a row's
  // bounds tested once for the warp and a column's once per lane: with
  // GridReader::at per cell (bounds, a 64-bit index product and the
  // parameters reloaded for each), the pass executed 30 M more of its 477 M
  // instructions on augusta. Only lanes 0 and 31 load the
  // column beyond the block's side, as a predicated load (as a branch taken
  // by those two lanes, the loads diverged into twelve branches).
  int32_t col[kRowsPerThread + 2], beyond[kRowsPerThread];
  const int lo = g.halo ? -1 : 0;
  const bool edge_lane = tx == 0 || tx == kBlockW - 1;
  const int beyond_x = tx == 0 ? x0 - 1 : x0 + kBlockW;
  const T* row = g.cells + int64_t(y0 + ly0 - 1) * g.pitch;
  uint32_t slot[kRowsPerThread];  // a cell's parent, its block-local root (kNone for nodata)
  const uint32_t pitch = bm.pitch();
  const uint32_t* parent_row = parent + (uint32_t(y0 + ly0) * pitch + uint32_t(x));
  // Most warps read only cells inside the grid (the rows above and below
  // and the columns beyond both sides included): they test no bounds.
  const bool inside_grid = y0 + ly0 - 1 >= lo && y0 + ly0 + kRowsPerThread < g.h - lo && x0 - 1 >= lo &&
                           x0 + kBlockW < g.w - lo;
  if (inside_grid) {
#pragma unroll
    for (int k = 0; k < kRowsPerThread + 2; ++k, row += g.pitch) {
      col[k] = g.convert(row[x]);
      if (k >= 1 && k <= kRowsPerThread) beyond[k - 1] = edge_lane ? g.convert(row[beyond_x]) : kNoClass;
    }
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r, parent_row += pitch) slot[r] = *parent_row;
  } else {
    const bool x_in = x < g.w - lo, beyond_in = edge_lane && beyond_x >= lo && beyond_x < g.w - lo;
#pragma unroll
    for (int k = 0; k < kRowsPerThread + 2; ++k, row += g.pitch) {
      const int y = y0 + ly0 - 1 + k;
      const bool y_in = y >= lo && y < g.h - lo;
      col[k] = y_in && x_in ? g.convert(row[x]) : kNoClass;
      if (k >= 1 && k <= kRowsPerThread) beyond[k - 1] = y_in && beyond_in ? g.convert(row[beyond_x]) : kNoClass;
    }
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r, parent_row += pitch)
      slot[r] = x < g.w && y0 + ly0 + r < g.h ? *parent_row : kNone;
  }
  if (tx < kKinds * kRowsPerThread) {
    const int kind = tx / kRowsPerThread, r = tx % kRowsPerThread, y = y0 + ly0 + r;
    const uint32_t* src = kind == kLocal ? local_bits : kind == kFinal ? root_bits : kind == kMerged ? merged_bits
                                                                                                     : root_rank;
    words[kind][r] = y < g.h ? src[uint32_t(y) * bm.words_per_row + blockIdx.x] : 0u;
  }
  static_assert(kMergedSlots == kBlockW * kThreadRows, "one key to clear per thread");
  merged.key[tid] = kNone;
  __syncwarp();

  // The warp's block-local roots go to a list, so that their work (few
  // lanes of a row each) takes one pass of the warp, not one per row.
  const uint32_t before = (1u << tx) - 1u;  // the lanes before this one
  int root_count = 0;
#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) {
    const uint32_t local = words[kLocal][r];
    if ((local >> tx) & 1u) {
      roots[root_count + __popc(local & before)] = uint8_t(r << 5 | tx);
      slot[r] = uint32_t((ly0 + r) * kBlockW + tx);
    } else if (slot[r] != kNone) {
      // A block-local root lies in the block: its index less the block's
      // first is dy * pitch + dx, dx < 32, so that index / 32 is exactly
      // dy * words_per_row, a multiple with a quotient below 32.
      const uint32_t rel = slot[r] - (uint32_t(y0) * pitch + uint32_t(x0));
      const uint32_t dy = exact_small_quotient(rel >> 5, bm.inverse_words);
      slot[r] = dy * kBlockW + (rel - dy * pitch);
    }
    root_count += __popc(local);
  }
  __syncwarp();
  // Each block-local root finds its patch's label from the bitmaps: its own
  // rank among the final roots or, linked, its final root's (a read-only
  // find: nothing writes parents in this pass), and clears its slot.
#pragma unroll 1
  for (int j = tx; j < root_count; j += kBlockW) {
    const int r = roots[j] >> 5, b = roots[j] & 31, ly = ly0 + r;
    const uint32_t finals = words[kFinal][r];
    uint32_t label;
    if ((finals >> b) & 1u) {
      label = words[kRank][r] + __popc(finals & ((1u << b) - 1u));
    } else {
      const uint32_t cell = uint32_t(y0 + ly) * bm.pitch() + uint32_t(x0 + b);
      label = rank_of(find_root(parent, parent[cell]), bm, root_bits, root_rank);
    }
    const int k = ly * kBlockW + b;
    s.label[k] = label;
    s.counts[0][k] = s.counts[1][k] = s.counts[2][k] = 0;
    s.sum_xy[k] = s.col_mask[k] = s.row_mask[k] = 0;
  }
  __syncthreads();

  // Row by row, every cell writes its label, and each run of lanes holding
  // the same slot along the row (cells of one class side by side: one
  // component) adds its sums, taken by the run's last lane from warp
  // ballots: its cell count, column sum and columns follow from its ends;
  // its sides across the row from the ballots of "the cell above/below
  // differs" (and "is nodata", which is a perimeter side but not a class
  // edge); its sides along the row lie at its ends (inside a run the
  // neighbours are of its class). A cell of a patch of one cell is a run
  // like any other.
  const uint32_t upto = kAll >> (31 - tx);  // lanes 0..tx
  // Where the warp's cells and their neighbours hold no nodata (most of a
  // land-cover raster), every cell is valid and no side faces nodata: the
  // three nodata ballots per row are skipped, and the class edges equal the
  // perimeter sides.
  bool clean = !edge_lane || (beyond[0] != kNoClass && beyond[1] != kNoClass && beyond[2] != kNoClass &&
                              beyond[3] != kNoClass);
  static_assert(kRowsPerThread == 4, "the nodata test above names the four rows");
#pragma unroll
  for (int k = 0; k < kRowsPerThread + 2; ++k) clean = clean && col[k] != kNoClass;
  clean = __all_sync(kAll, clean);
  // The label raster's cells of the lane's column, and whether the block
  // touches the grid's border (only then are border cells written).
  const bool write_labels = labels != nullptr && x < g.w;
  uint32_t* label_column = write_labels ? labels + (uint32_t(y0 + ly0) * w + uint32_t(x)) : nullptr;
  const bool on_border = border != nullptr && (y0 == 0 || y0 + kBlockH >= g.h || x0 == 0 || x0 + kBlockW >= g.w);
  SlotSums pending;
#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) {
    const int ly = ly0 + r, y = y0 + ly;
    const uint32_t key = slot[r];
    const bool valid = key != kNone;
    const uint32_t label = valid ? s.label[key] : kNone;
    const uint32_t out = label == kNone ? 0u : label + 1u;
    if (write_labels && y < g.h) label_column[r * w] = out;
    if (on_border && x < g.w && y < g.h) {
      if (y == 0) border[x] = out;
      if (y == g.h - 1) border[w + x] = out;
      if (x == 0) border[2 * w + y] = out;
      if (x == g.w - 1) border[2 * w + g.h + y] = out;
    }
    const int32_t c = col[r + 1], up = col[r], down = col[r + 2];
    int32_t west = __shfl_up_sync(kAll, c, 1), east = __shfl_down_sync(kAll, c, 1);
    if (tx == 0) west = beyond[r];
    if (tx == kBlockW - 1) east = beyond[r];
    const uint32_t up_side = __ballot_sync(kAll, valid && up != c);
    const uint32_t down_side = __ballot_sync(kAll, valid && down != c);
    const uint32_t west_side = __ballot_sync(kAll, valid && west != c);
    uint32_t up_nodata = 0, down_nodata = 0, west_nodata = 0;
    if (!clean) {
      up_nodata = __ballot_sync(kAll, valid && up == kNoClass);
      down_nodata = __ballot_sync(kAll, valid && down == kNoClass);
      west_nodata = __ballot_sync(kAll, valid && west == kNoClass);
    }
    const uint32_t key_west = __shfl_up_sync(kAll, key, 1);
    const uint32_t starts = __ballot_sync(kAll, tx == 0 || key_west != key);
    const bool leader = tx == kBlockW - 1 || ((starts >> (tx + 1)) & 1u);
    if (!valid || !leader) continue;
    const int start = 31 - __clz(starts & upto);
    const uint32_t run = upto & (kAll << start), n = uint32_t(tx - start + 1);
    const uint32_t perim_h = __popc(run & up_side) + __popc(run & down_side);
    const uint32_t class_h = perim_h - __popc(run & up_nodata) - __popc(run & down_nodata);
    const uint32_t perim_v = ((west_side >> start) & 1u) + (east != c);
    const uint32_t class_v = perim_v - ((west_nodata >> start) & 1u) - (!clean && east == kNoClass);
    if (int(key) != pending.slot) {
      pending.flush(s);
      pending = SlotSums{};
      pending.slot = int(key);
    }
    using packed_counts::kBits;
    pending.counts[0] += n | perim_h << kBits;
    pending.counts[1] += class_h | perim_v << kBits;
    pending.counts[2] += class_v;
    pending.sum_xy += uint32_t(start + tx) * n / 2 | (n * uint32_t(ly)) << 16;
    pending.col_mask |= run;
    pending.row_mask |= 1u << ly;
  }
  pending.flush(s);
  __syncthreads();

  // Then the block's sums go out, each from its block-local root's lane: a
  // patch inside the block (a final root that nothing was linked under) is
  // complete here and written whole; the components of a patch that spans
  // blocks first meet in `merged`, by label, and the first one to take the
  // label sends their sums with one set of atomics (one that finds the
  // table full sends its own).
  auto inside = [&](int r, int b) { return ((words[kFinal][r] & ~words[kMerged][r]) >> b) & 1u; };
  bool waiting = false;
#pragma unroll 1
  for (int j = tx; j < root_count; j += kBlockW) {
    const int r = roots[j] >> 5, b = roots[j] & 31, k = (ly0 + r) * kBlockW + b;
    const uint32_t label = s.label[k];
    if (label >= capacity || inside(r, b)) continue;
    uint32_t h = label_hash(label);
    for (int probe = 0; probe < kMergedSlots; ++probe, h = (h + 1) & (kMergedSlots - 1)) {
      const uint32_t old = atomicCAS(&merged.key[h], kNone, label);
      if (old == kNone) merged.root[h] = uint16_t(k);
      if (old == label) waiting = true;
      if (old == kNone || old == label) break;
    }
  }
  if (__syncthreads_or(waiting)) {
#pragma unroll 1
    for (int j = tx; j < root_count; j += kBlockW) {
      const int r = roots[j] >> 5, b = roots[j] & 31, k = (ly0 + r) * kBlockW + b;
      const uint32_t label = s.label[k];
      if (label >= capacity || inside(r, b)) continue;
      const int h = find_merged(merged, label);
      if (h < 0 || merged.root[h] == k) continue;
      const int first = merged.root[h];
#pragma unroll
      for (int c = 0; c < packed_counts::kWords; ++c) atomicAdd(&s.counts[c][first], s.counts[c][k]);
      atomicAdd(&s.sum_xy[first], s.sum_xy[k]);
      atomicOr(&s.col_mask[first], s.col_mask[k]);
      atomicOr(&s.row_mask[first], s.row_mask[k]);
    }
    __syncthreads();
  }
  // The whole warp takes each pass, so that a root's class comes from its
  // lane's registers by a shuffle instead of a dependent global load.
#pragma unroll 1
  for (int pass = 0; pass < root_count; pass += kBlockW) {
    const int j = pass + tx, entry = j < root_count ? roots[j] : 0;
    const int r = entry >> 5, b = entry & 31, ly = ly0 + r, k = ly * kBlockW + b;
    int32_t class_code = kNoClass;
#pragma unroll
    for (int rr = 0; rr < kRowsPerThread; ++rr) {
      const int32_t c = __shfl_sync(kAll, col[rr + 1], b);
      if (rr == r) class_code = c;
    }
    if (j >= root_count) continue;
    const uint32_t label = s.label[k];
    if (label >= capacity) continue;
    const bool whole = inside(r, b);
    if (!whole) {
      // The block of a spanning patch's first cell gives its record the class.
      if ((words[kFinal][r] >> b) & 1u) records[label].class_code = class_code;
      const int h = find_merged(merged, label);
      if (h >= 0 && merged.root[h] != k) continue;  // added into the first component's slot
    }
    const int y = y0 + ly, xb = x0 + b;
    emit_block_sums(&records[label], whole, class_code, uint32_t(y) * w + uint32_t(xb), uint32_t(y), x0, y0,
                    s.counts[0][k], s.counts[1][k], s.counts[2][k], s.sum_xy[k], s.col_mask[k], s.row_mask[k]);
  }
}

unsigned ceil_div(int64_t a, int64_t b) { return static_cast<unsigned>((a + b - 1) / b); }

template <class T>
GridReader<T> reader_of(const DeviceClassGrid& grid) {
  return GridReader<T>{static_cast<const T*>(grid.cells), grid.pitch, grid.width, grid.height, grid.halo,
                       grid.nodata};
}

template <class T>
void enqueue_labeling(const GridReader<T>& g, bool eight, uint32_t* parent, uint32_t* bits, uint32_t* local_bits,
                      uint32_t* merged_bits, BitmapShape bm, cudaStream_t st, cudaEvent_t joined) {
  const dim3 blocks(ceil_div(g.w, kBlockW), ceil_div(g.h, kBlockH));
  const dim3 warp_ctas(ceil_div(blocks.x, kBlocksPerCta), blocks.y);
  k_label_blocks<T><<<warp_ctas, dim3(kBlockW, kBlocksPerCta), 0, st>>>(g, eight, parent, bits, local_bits,
                                                                        merged_bits, bm);
  LSM_CUDA_CHECK_LAUNCH();
  if (joined) LSM_CUDA_CHECK(cudaEventRecord(joined, st));
  k_join_blocks<T><<<blocks, kBlockW + kBlockH, 0, st>>>(g, eight, parent, bits, merged_bits, bm);
  LSM_CUDA_CHECK_LAUNCH();
}

template <class T>
void enqueue_record_kernels(const GridReader<T>& g, const uint32_t* parent, const uint32_t* bits,
                            const uint32_t* local_bits, const uint32_t* merged_bits, const uint32_t* rank,
                            BitmapShape bm, uint32_t words,
                            DevicePatchRecord* records, uint64_t capacity, uint32_t* labels, uint32_t* border,
                            cudaStream_t st, cudaEvent_t roots_labelled) {
  k_init_merged_records<<<ceil_div(words, 256), 256, 0, st>>>(bits, merged_bits, rank, bm, words, records, capacity);
  LSM_CUDA_CHECK_LAUNCH();
  if (roots_labelled) LSM_CUDA_CHECK(cudaEventRecord(roots_labelled, st));
  const dim3 threads(kBlockW, kThreadRows);
  const dim3 blocks(ceil_div(g.w, kBlockW), ceil_div(g.h, kBlockH));
  k_accumulate<T><<<blocks, threads, 0, st>>>(g, parent, bits, local_bits, merged_bits, rank, bm, records,
                                              capacity, labels, border);
  LSM_CUDA_CHECK_LAUNCH();
}

}  // namespace

DeviceGridLabeler::DeviceGridLabeler(cudaStream_t stream) : stream_(stream) { host_count_.reserve(sizeof(uint32_t)); }

DeviceGridLabeler::~DeviceGridLabeler() {
  for (cudaEvent_t& e : events_)
    if (e) cudaEventDestroy(e);
}

void DeviceGridLabeler::set_stage_timing(bool on) {
  timing_ = on;
  if (on && !events_[0])
    for (cudaEvent_t& e : events_) LSM_CUDA_CHECK(cudaEventCreate(&e));
}

DeviceLabelingStages DeviceGridLabeler::stages() const {
  DeviceLabelingStages t;
  if (!timing_) return t;
  LSM_CUDA_CHECK(cudaEventElapsedTime(&t.label_blocks, events_[0], events_[1]));
  LSM_CUDA_CHECK(cudaEventElapsedTime(&t.join_blocks, events_[1], events_[2]));
  LSM_CUDA_CHECK(cudaEventElapsedTime(&t.rank_roots, events_[2], events_[3]));
  LSM_CUDA_CHECK(cudaEventElapsedTime(&t.label_roots, events_[3], events_[4]));
  LSM_CUDA_CHECK(cudaEventElapsedTime(&t.accumulate, events_[4], events_[5]));
  return t;
}

void DeviceGridLabeler::enqueue(const DeviceClassGrid& grid, NeighbourRule rule, uint32_t* labels, uint32_t* border) {
  const uint64_t n = static_cast<uint64_t>(grid.width) * static_cast<uint64_t>(grid.height);
  if (grid.width <= 0 || grid.height <= 0) throw Error(ErrorKind::BadInput, "empty grid");
  if (n >= (uint64_t(1) << 31)) throw Error(ErrorKind::BadInput, "grid too large: at most 2^31-1 cells per labeling");
  grid_ = grid;
  labels_ = labels;
  border_ = border;
  words_per_row_ = ceil_div(grid.width, 32);
  // Parents are indexed with rows rounded up to 32 cells (BitmapShape).
  if (uint64_t(words_per_row_) * 32u * uint64_t(grid.height) >= (uint64_t(1) << 31))
    throw Error(ErrorKind::BadInput, "grid too large: at most 2^31-1 cells per labeling, each row rounded up to 32");
  words_ = words_per_row_ * static_cast<uint32_t>(grid.height);
  const BitmapShape bm = bitmap_shape(grid.width, words_per_row_);
  const bool eight = rule == NeighbourRule::Eight;
  cudaStream_t st = stream_;
  parents_.reserve(size_t(bm.pitch()) * size_t(grid.height) * sizeof(uint32_t), st);
  root_bits_.reserve(words_ * sizeof(uint32_t), st);
  local_bits_.reserve(words_ * sizeof(uint32_t), st);
  merged_bits_.reserve(words_ * sizeof(uint32_t), st);
  root_rank_.reserve(words_ * sizeof(uint32_t), st);
  count_.reserve(sizeof(uint32_t), st);
  // Records for up to one patch per 16 cells, or as many as the last labeling had.
  record_capacity_ = std::max<uint64_t>(record_capacity_, n / 16 + 1);
  records_.reserve(record_capacity_ * sizeof(DevicePatchRecord), st);
  uint32_t* parent = parents_.as<uint32_t>();
  uint32_t* bits = root_bits_.as<uint32_t>();
  uint32_t* local = local_bits_.as<uint32_t>();
  uint32_t* merged = merged_bits_.as<uint32_t>();
  uint32_t* rank = root_rank_.as<uint32_t>();

  if (timing_) LSM_CUDA_CHECK(cudaEventRecord(events_[0], st));
  cudaEvent_t joined = timing_ ? events_[1] : nullptr;
  if (grid.type == DeviceCellType::UInt8)
    enqueue_labeling(reader_of<uint8_t>(grid), eight, parent, bits, local, merged, bm, st, joined);
  else
    enqueue_labeling(reader_of<int32_t>(grid), eight, parent, bits, local, merged, bm, st, joined);
  if (timing_) LSM_CUDA_CHECK(cudaEventRecord(events_[2], st));

  thrust::transform_iterator<Popcount, const uint32_t*> popcounts(bits, Popcount{});
  size_t temp_bytes = 0;
  LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, popcounts, rank, words_, st));
  scan_temp_.reserve(temp_bytes, st);
  LSM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp_.get(), temp_bytes, popcounts, rank, words_, st));
  k_count<<<1, 1, 0, st>>>(bits, rank, words_, count_.as<uint32_t>());
  LSM_CUDA_CHECK_LAUNCH();
  LSM_CUDA_CHECK(cudaMemcpyAsync(host_count_.get(), count_.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  if (timing_) LSM_CUDA_CHECK(cudaEventRecord(events_[3], st));
  enqueue_records();
  if (timing_) LSM_CUDA_CHECK(cudaEventRecord(events_[5], st));
}

void DeviceGridLabeler::enqueue_records() {
  const BitmapShape bm = bitmap_shape(grid_.width, words_per_row_);
  DevicePatchRecord* records = records_.as<DevicePatchRecord>();
  const uint32_t* parent = parents_.as<uint32_t>();
  const uint32_t* bits = root_bits_.as<uint32_t>();
  const uint32_t* local = local_bits_.as<uint32_t>();
  const uint32_t* merged = merged_bits_.as<uint32_t>();
  const uint32_t* rank = root_rank_.as<uint32_t>();
  cudaEvent_t roots_labelled = timing_ ? events_[4] : nullptr;
  if (grid_.type == DeviceCellType::UInt8)
    enqueue_record_kernels(reader_of<uint8_t>(grid_), parent, bits, local, merged, rank, bm, words_, records,
                           record_capacity_, labels_, border_, stream_, roots_labelled);
  else
    enqueue_record_kernels(reader_of<int32_t>(grid_), parent, bits, local, merged, rank, bm, words_, records,
                           record_capacity_, labels_, border_, stream_, roots_labelled);
}

uint32_t DeviceGridLabeler::finish() {
  LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const uint32_t count = *host_count_.as<uint32_t>();
  if (count > record_capacity_) {  // more patches than records: grow, then the record pass again
    record_capacity_ = count;
    records_.reserve(record_capacity_ * sizeof(DevicePatchRecord), stream_);
    enqueue_records();
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  return count;
}

PatchStats to_patch_stats(const DevicePatchRecord& r, int64_t grid_width, int64_t x0, int64_t y0,
                          int64_t raster_width) {
  PatchStats p;
  p.class_code = r.class_code;
  const uint64_t fx = r.first % static_cast<uint64_t>(grid_width), fy = r.first / static_cast<uint64_t>(grid_width);
  p.first_cell =
      (static_cast<uint64_t>(y0) + fy) * static_cast<uint64_t>(raster_width) + static_cast<uint64_t>(x0) + fx;
  p.cells = r.cells;
  p.perim_edges_h = r.edges_h & 0xFFFFFFFFull;
  p.class_edges_h = r.edges_h >> 32;
  p.perim_edges_v = r.edges_v & 0xFFFFFFFFull;
  p.class_edges_v = r.edges_v >> 32;
  p.sum_col = r.sum_col + p.cells * static_cast<uint64_t>(x0);
  p.sum_row = r.sum_row + p.cells * static_cast<uint64_t>(y0);
  p.col_min = r.col_min + static_cast<uint64_t>(x0);
  p.col_max = r.col_max + static_cast<uint64_t>(x0);
  p.row_min = r.row_min + static_cast<uint64_t>(y0);
  p.row_max = r.row_max + static_cast<uint64_t>(y0);
  return p;
}

}  // namespace lsm
