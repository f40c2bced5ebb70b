// A moving window's count-based metrics on the GPU (window_count_pass.h).
// One thread per focal column and run of focal rows: it counts its first
// window's cells and cell sides per class, then slides down one row at a
// time (each row's span changes only at its ends: the leaving top row out,
// the entering bottom row in, a round window's rows narrower or wider:
// O(window width) per cell) and evaluates window_count_formulas.h at every focal
// cell; for NP, PD and LPI it also labels each window run by run
// (O(window cells) per cell). Its counts live in shared memory, laid out so that the 32 threads of
// a warp touch 32 banks whatever classes they update. This file is compiled
// with --fmad=false: the formulas round as on the CPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.h"
#include "device_pool.h"
#include "error.h"
#include "tile_labeler_cuda.h"
#include "window_counts_cuda.h"

namespace lsm {

namespace {

using window_formulas::Program;

constexpr int kSmallWindowRuns = 512;  // up to 21 x 21 windows: less local memory per thread

// The counts of one thread: value (channel c, class a) at base[(c * k + a) * threads].
// `pairs`, where CONTAG needs it: the k x k adjacencies of the thread's
// window (local memory; both directions, double count), else null.
struct SharedCounts {
  int* base;
  int k, threads;
  int* pairs;
  __device__ int& at(int c, int a) const { return base[(c * k + a) * threads]; }
  __device__ int64_t operator()(int c, int32_t a) const { return base[(c * k + a) * threads]; }
  __device__ int64_t pair(int32_t a, int32_t b) const { return pairs[a * k + b]; }
  __device__ int32_t listed_classes() const { return k; }  // every class: a thread's window has no list
  __device__ int32_t listed_class(int32_t i) const { return i; }
};

__device__ inline void count_cell(const SharedCounts& s, uint8_t a, int sign) {
  if (a != kWindowOutsideIndex) s.at(window_formulas::kCells, a) += sign;
}

// Two neighbouring cells; `vertical`: one above the other (a top/bottom side, "h").
__device__ inline void count_pair(const SharedCounts& s, const uint8_t* background, uint8_t a, uint8_t b, bool vertical,
                                  int sign) {
  using namespace window_formulas;
  if (a == kWindowOutsideIndex || b == kWindowOutsideIndex) return;
  if (s.pairs) {
    s.pairs[a * s.k + b] += sign;
    s.pairs[b * s.k + a] += sign;
  }
  if (a == b) {
    s.at(vertical ? kLikeH : kLikeV, a) += 2 * sign;
    return;
  }
  const int other = vertical ? kOtherH : kOtherV, to_background = vertical ? kBackgroundH : kBackgroundV;
  s.at(other, a) += sign;
  s.at(other, b) += sign;
  if (background[b]) s.at(to_background, a) += sign;
  if (background[a]) s.at(to_background, b) += sign;
}

// A row's span of the window changes from [-h_old, h_old + extra] to
// [-h_new, h_new + extra] (extra 0 for its cells, -1 for the left cells of
// its left/right pairs; a negative half width or an inverted span: none):
// visit(dx, sign) for each element that leaves (-1) or enters (+1). The
// spans are centred, so they nest and only their ends change.
template <class Visit>
__device__ inline void span_change(int h_old, int h_new, int extra, Visit visit) {
  const bool had = h_old >= 0 && h_old + extra >= -h_old, has = h_new >= 0 && h_new + extra >= -h_new;
  if (!had && !has) return;
  if (!had) {
    for (int dx = -h_new; dx <= h_new + extra; ++dx) visit(dx, +1);
  } else if (!has) {
    for (int dx = -h_old; dx <= h_old + extra; ++dx) visit(dx, -1);
  } else if (h_new > h_old) {
    for (int dx = -h_new; dx < -h_old; ++dx) visit(dx, +1);
    for (int dx = h_old + extra + 1; dx <= h_new + extra; ++dx) visit(dx, +1);
  } else if (h_new < h_old) {
    for (int dx = -h_old; dx < -h_new; ++dx) visit(dx, -1);
    for (int dx = h_new + extra + 1; dx <= h_old + extra; ++dx) visit(dx, -1);
  }
}

// The window's half width at row offset o (0 .. 2 reach), -1 beyond.
__device__ inline int half_at(const int* halves, int reach, int o) { return o < 0 || o > 2 * reach ? -1 : halves[o]; }

// The window's top row moves from band row `from_top` to `to_top` (a window
// starts from none: from_top far away; or it slides one row down): each band
// row's span changes from its offset in the old window to that in the new.
__device__ inline void move_window(const SharedCounts& s, const uint8_t* background, const uint8_t* column,
                                   long long stride, const int* halves, int reach, long long from_top,
                                   long long to_top) {
  const long long first = min(from_top, to_top), last = max(from_top, to_top) + 2 * reach;
  for (long long r = first; r <= last; ++r) {
    const uint8_t* row = column + r * stride;
    const int o_old = static_cast<int>(r - from_top), o_new = static_cast<int>(r - to_top);
    const int h_old = from_top == to_top ? -1 : half_at(halves, reach, o_old), h_new = half_at(halves, reach, o_new);
    span_change(h_old, h_new, 0, [&](int dx, int sign) { count_cell(s, row[dx], sign); });
    span_change(h_old, h_new, -1,
                [&](int dx, int sign) { count_pair(s, background, row[dx], row[dx + 1], false, sign); });
    // Top/bottom pairs with the next band row: both cells in the window.
    const int v_old = from_top == to_top ? -1 : min(h_old, half_at(halves, reach, o_old + 1));
    const int v_new = min(h_new, half_at(halves, reach, o_new + 1));
    span_change(v_old, v_new, 0,
                [&](int dx, int sign) { count_pair(s, background, row[dx], row[dx + stride], true, sign); });
  }
}

// The patches of the window around column x whose top row is band row
// `top`: its cells run by run, each run joined to the touching runs of its
// class in the row above (a union-find over run indices, sizes at the
// roots), then each class's patch count, largest patch and squared sizes
// into the channels.
// nvcc cannot see that every run's parent is set before find() reads it.
#pragma nv_diag_suppress 549
template <int kMaxRuns>
__device__ void count_patches(const SharedCounts& s, const uint8_t* column, long long stride, long long top,
                              const int* halves, int reach, bool eight) {
  using namespace window_formulas;
  int16_t parent[kMaxRuns], size[kMaxRuns];
  int16_t first[kMaxRuns], last[kMaxRuns];  // column offsets: a one-row window may be 2047 cells wide
  uint8_t cls[kMaxRuns];
  auto find = [&](int a) {
    while (parent[a] != a) {
      parent[a] = parent[parent[a]];  // path halving
      a = parent[a];
    }
    return a;
  };
  int runs = 0, above_begin = 0, above_end = 0;
  for (int i = 0; i <= 2 * reach; ++i) {
    const uint8_t* row = column + (top + i) * stride;
    const int row_begin = runs, h = halves[i];
    int q = above_begin;  // runs above, in column order
    for (int dx = -h; dx <= h;) {
      const uint8_t c = row[dx];
      const int from = dx;
      while (dx < h && row[dx + 1] == c) ++dx;
      const int to = dx++;
      if (c == kWindowOutsideIndex) continue;
      const int id = runs++;
      parent[id] = static_cast<int16_t>(id);
      size[id] = static_cast<int16_t>(to - from + 1);
      first[id] = static_cast<int16_t>(from);
      last[id] = static_cast<int16_t>(to);
      cls[id] = c;
      const int lo = eight ? from - 1 : from, hi = eight ? to + 1 : to;
      while (q < above_end && last[q] < lo) ++q;  // runs above that end before this one's reach
      for (int r = q; r < above_end && first[r] <= hi; ++r) {
        if (cls[r] != c) continue;
        const int a = find(id), b = find(r);
        if (a == b) continue;
        const int root = a < b ? a : b, child = a < b ? b : a;
        parent[child] = static_cast<int16_t>(root);
        size[root] = static_cast<int16_t>(size[root] + size[child]);
      }
    }
    above_begin = row_begin;
    above_end = runs;
  }
  for (int c = 0; c < s.k; ++c) {
    s.at(kPatches, c) = 0;
    s.at(kLargest, c) = 0;
    s.at(kSquaredSizes, c) = 0;
  }
  for (int id = 0; id < runs; ++id)
    if (parent[id] == id) {
      const int n = size[id];
      s.at(kPatches, cls[id]) += 1;
      s.at(kSquaredSizes, cls[id]) += n * n;  // at most 2048^2
      if (n > s.at(kLargest, cls[id])) s.at(kLargest, cls[id]) = n;
    }
}

#pragma nv_diag_default 549

// kMaxRuns: 0 when no band reads patches, else at least the window's cells;
// kPairs: CONTAG's k x k adjacencies kept (k <= kWindowPassMaxPairClasses).
template <int kMaxRuns, bool kPairs>
__global__ void k_window_counts(Program p, const int* __restrict__ halves, int reach, int half,
                                const uint8_t* __restrict__ band, long long width, long long rows, int rows_per_thread,
                                WindowBlockPlace place, double* __restrict__ out) {
  extern __shared__ int shared_counts[];
  const long long x = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long y_first = static_cast<long long>(blockIdx.y) * rows_per_thread;
  if (x >= width || y_first >= rows) return;
  const long long y_end = min(rows, y_first + rows_per_thread);
  int pairs[kPairs ? kWindowPassMaxPairClasses * kWindowPassMaxPairClasses : 1];
  const SharedCounts s{shared_counts + threadIdx.x, p.k, static_cast<int>(blockDim.x), kPairs ? pairs : nullptr};
  for (int i = 0; i < window_formulas::kChannels * p.k; ++i) s.base[i * s.threads] = 0;
  if (kPairs)
    for (int i = 0; i < p.k * p.k; ++i) pairs[i] = 0;
  const long long stride = width + 2 * half;
  const uint8_t* column = band + half + x;  // band row j, column offset dx: column[j * stride + dx]
  // The window around (x, y_first): its top row is band row y_first.
  move_window(s, p.background, column, stride, halves, reach, y_first, y_first);
  const int band_count = static_cast<int>(p.band_count);
  for (long long y = y_first;; ++y) {
    double* values = out + (y * width + x) * band_count;
    const long long raster_y = place.first_row + y;
    const bool whole = raster_y - reach >= 0 && raster_y + reach < place.raster_height && x - half >= 0 &&
                       x + half < width;
    if (column[(y + reach) * stride] == kWindowOutsideIndex || (place.skip_partial && !whole)) {
      for (int b = 0; b < band_count; ++b) values[b] = window_formulas::nan_value();
    } else {
      if constexpr (kMaxRuns > 0) count_patches<kMaxRuns>(s, column, stride, y, halves, reach, p.eight_neighbours);
      window_formulas::evaluate(p, s, values);
    }
    if (y + 1 == y_end) break;
    move_window(s, p.background, column, stride, halves, reach, y, y + 1);  // one row down
  }
}

// The kernel for `runs` (0, kSmallWindowRuns or kWindowPassMaxRuns) run slots.
template <bool kPairs>
const void* kernel_for(int runs) {
  if (runs == 0) return reinterpret_cast<const void*>(&k_window_counts<0, kPairs>);
  if (runs == kSmallWindowRuns) return reinterpret_cast<const void*>(&k_window_counts<kSmallWindowRuns, kPairs>);
  return reinterpret_cast<const void*>(&k_window_counts<kWindowPassMaxRuns, kPairs>);
}

// Threads per thread block: as many (32 to 128) as leave each thread's counts
// within `shared_limit` bytes.
int threads_for(int32_t k, size_t shared_limit) {
  const size_t per_thread = sizeof(int) * window_formulas::kChannels * static_cast<size_t>(k);
  int threads = 128;
  while (threads > 32 && threads * per_thread > shared_limit) threads /= 2;
  return threads;
}

// One GPU's share: its stream, buffers and the program's tables on it.
class DeviceShare {
 public:
  explicit DeviceShare(int device) : stream_(device) {
    int optin = 0;
    LSM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    shared_limit_ = static_cast<size_t>(optin);
    for (const void* kernel : {kernel_for<false>(0), kernel_for<false>(kSmallWindowRuns), kernel_for<false>(kWindowPassMaxRuns),
                               kernel_for<true>(0), kernel_for<true>(kSmallWindowRuns), kernel_for<true>(kWindowPassMaxRuns)})
      LSM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  }

  // Whether a block of at least 32 threads has room for their counts.
  bool takes(const Program& program) const {
    return sizeof(int) * window_formulas::kChannels * static_cast<size_t>(program.k) * 32 <= shared_limit_;
  }

  void run(const Program& program, const WindowSpans& spans, const uint8_t* band, int64_t width, int64_t rows,
           const WindowBlockPlace& place, double* out) {
    if (rows == 0 || width == 0) return;
    const int64_t reach = spans.reach, half = spans.half;
    stream_.activate();
    const int threads = threads_for(program.k, shared_limit_);
    const size_t shared = sizeof(int) * window_formulas::kChannels * static_cast<size_t>(program.k) * threads;
    if (shared > shared_limit_)
      throw Error(ErrorKind::BadInput, "the GPU window's counts of " + std::to_string(program.k) +
                                           " classes need more shared memory than this GPU has "
                                           "(--backend cpu or auto computes them on the CPU)");
    const size_t band_bytes = static_cast<size_t>(rows + 2 * reach) * static_cast<size_t>(width + 2 * half);
    const size_t out_bytes = sizeof(double) * static_cast<size_t>(rows) * static_cast<size_t>(width) * program.band_count;
    const size_t halves_bytes = sizeof(int32_t) * static_cast<size_t>(2 * reach + 1);
    const size_t table_bytes = sizeof(window_formulas::Band) * program.band_count;
    band_.reserve(band_bytes, stream_);
    out_.reserve(out_bytes, stream_);
    tables_.reserve(halves_bytes + table_bytes + static_cast<size_t>(program.k), stream_);
    LSM_CUDA_CHECK(cudaMemcpyAsync(band_.get(), band, band_bytes, cudaMemcpyHostToDevice, stream_));
    LSM_CUDA_CHECK(cudaMemcpyAsync(tables_.get(), spans.half_widths, halves_bytes, cudaMemcpyHostToDevice, stream_));
    auto* bands = reinterpret_cast<window_formulas::Band*>(tables_.as<uint8_t>() + halves_bytes);
    LSM_CUDA_CHECK(cudaMemcpyAsync(bands, program.bands, table_bytes, cudaMemcpyHostToDevice, stream_));
    uint8_t* background = tables_.as<uint8_t>() + halves_bytes + table_bytes;
    LSM_CUDA_CHECK(cudaMemcpyAsync(background, program.background, static_cast<size_t>(program.k),
                                   cudaMemcpyHostToDevice, stream_));
    Program on_device = program;
    on_device.bands = bands;
    on_device.background = background;
    // Runs of rows per thread: long enough to repay a run's first window
    // (O(window cells)), short enough to fill the GPU.
    const int64_t cells = rows * width;
    const int rows_per_thread = static_cast<int>(std::clamp<int64_t>(cells / (1 << 18), 8, 64));
    const dim3 grid(static_cast<unsigned>((width + threads - 1) / threads),
                    static_cast<unsigned>((rows + rows_per_thread - 1) / rows_per_thread));
    if (program.needs_patches && spans.cells > kWindowPassMaxRuns)
      throw Error(ErrorKind::BadInput, "NP, PD, LPI, DIVISION, MESH and SPLIT on the GPU take windows of at most " +
                                           std::to_string(kWindowPassMaxRuns) + " cells");
    if (program.needs_pairs && program.k > kWindowPassMaxPairClasses)
      throw Error(ErrorKind::BadInput, "CONTAG on the GPU takes at most " + std::to_string(kWindowPassMaxPairClasses) +
                                           " classes");
    const int runs = !program.needs_patches ? 0 : spans.cells <= kSmallWindowRuns ? kSmallWindowRuns : kWindowPassMaxRuns;
    const void* kernel = program.needs_pairs ? kernel_for<true>(runs) : kernel_for<false>(runs);
    long long width_arg = width, rows_arg = rows;
    int reach_arg = static_cast<int>(reach), half_arg = static_cast<int>(half);
    const int* halves_arg = tables_.as<int>();
    const uint8_t* band_arg = band_.as<uint8_t>();
    double* out_arg = out_.as<double>();
    void* args[] = {&on_device, &halves_arg, &reach_arg, &half_arg, &band_arg, &width_arg, &rows_arg,
                    const_cast<int*>(&rows_per_thread), const_cast<WindowBlockPlace*>(&place), &out_arg};
    LSM_CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(threads), args, shared, stream_));
    LSM_CUDA_CHECK_LAUNCH();
    LSM_CUDA_CHECK(cudaMemcpyAsync(out, out_.get(), out_bytes, cudaMemcpyDeviceToHost, stream_));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  DeviceStream stream_;  // first: the buffers below are released on it before it goes
  DeviceBuffer band_, out_, tables_;
  size_t shared_limit_ = 0;
};

class CudaWindowCountPass final : public WindowCountPass {
 public:
  explicit CudaWindowCountPass(const std::vector<int>& devices) {
    for (int d : devices) shares_.push_back(std::make_unique<DeviceShare>(d));
  }

  void run(const Program& program, const WindowSpans& spans, const uint8_t* band, int64_t width, int64_t rows,
           const WindowBlockPlace& place, double* out) override {
    if (program.k > kWindowPassMaxClasses)
      throw Error(ErrorKind::BadInput, "the GPU window takes at most " + std::to_string(kWindowPassMaxClasses) +
                                           " classes; this raster has " + std::to_string(program.k));
    // Each GPU takes a contiguous share of the rows, with its reach of band rows.
    const int64_t n = static_cast<int64_t>(shares_.size());
    const int64_t share = (rows + n - 1) / n;
    const int64_t stride = width + 2 * static_cast<int64_t>(spans.half);
    auto run_share = [&](size_t d) {
      const int64_t r0 = std::min(rows, static_cast<int64_t>(d) * share), r1 = std::min(rows, r0 + share);
      WindowBlockPlace part = place;
      part.first_row = place.first_row + r0;
      shares_[d]->run(program, spans, band + r0 * stride, width, r1 - r0, part,
                      out + static_cast<size_t>(r0) * static_cast<size_t>(width) * program.band_count);
    };
    if (shares_.size() == 1) return run_share(0);
    std::vector<std::exception_ptr> failures(shares_.size());
    std::vector<std::thread> threads;
    for (size_t d = 0; d < shares_.size(); ++d)
      threads.emplace_back([&, d] {
        try {
          run_share(d);
        } catch (...) {
          failures[d] = std::current_exception();
        }
      });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& f : failures)
      if (f) std::rethrow_exception(f);
  }

  int devices() const override { return static_cast<int>(shares_.size()); }

  bool takes(const Program& program) const override {
    for (const auto& share : shares_)
      if (!share->takes(program)) return false;
    return true;
  }

 private:
  std::vector<std::unique_ptr<DeviceShare>> shares_;
};

}  // namespace

std::unique_ptr<WindowCountPass> make_cuda_window_count_pass(std::vector<int> devices) {
  if (devices.empty()) throw Error(ErrorKind::Backend, "no CUDA device");
  return std::make_unique<CudaWindowCountPass>(devices);
}

}  // namespace lsm
