#include "patch_scan.h"

#include <parallel/algorithm>

#include <algorithm>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <deque>
#include <future>
#include <memory>
#include <numeric>
#include <queue>

#include "error.h"
#include "patch_frontier.h"
#include "patch_records.h"
#include "spill_file.h"

namespace lsm {
namespace {

// The closed patches' indices in PID order (raster order of each patch's
// first cell), from their first cells in closing order. Sorts 16-byte keys on
// all OpenMP threads (libstdc++'s parallel mode), not the 88-byte records:
// millions of patches took longer to sort than to label on the GPU.
std::vector<uint32_t> order_by_first_cell(const std::vector<uint64_t>& first_cells) {
  std::vector<std::pair<uint64_t, uint32_t>> keys(first_cells.size());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = {first_cells[i], i};
  __gnu_parallel::sort(keys.begin(), keys.end());
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].second;
  return order;
}

// pid_of_closed[i]: the PID of the i-th patch to close, from the patches'
// first cells in closing order (their ranks in raster order). In memory: one
// parallel sort of 16-byte keys. On a scratch file (beyond the budget):
// sorted runs of 4 Mi keys, then merged, so memory holds a page or so per
// run and the output's pages near the merge point.
PagedArray<uint32_t> pids_by_first_cell(const PagedVector<uint64_t>& first_cells, const PagedPolicy& paged) {
  struct Key {
    uint64_t first_cell;
    uint64_t index;
    bool operator<(const Key& o) const { return first_cell < o.first_cell; }
  };
  const size_t n = first_cells.size();
  PagedArray<Key> keys(n, paged);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = Key{first_cells[i], i};
    if ((i & 0xFFFFF) == 0xFFFFF) release_paged_memory();
  }
  PagedArray<uint32_t> pid_of_closed(n, paged);
  if (!keys.on_file()) {
    __gnu_parallel::sort(keys.begin(), keys.end());
    for (size_t rank = 0; rank < n; ++rank) pid_of_closed[keys[rank].index] = static_cast<uint32_t>(rank + 1);
    return pid_of_closed;
  }
  constexpr size_t kRun = size_t(1) << 22;
  std::vector<size_t> cursor, end;
  for (size_t first = 0; first < n; first += kRun) {
    cursor.push_back(first);
    end.push_back(std::min(n, first + kRun));
    __gnu_parallel::sort(keys.begin() + first, keys.begin() + end.back());
    release_paged_memory();
  }
  // Merge: the smallest head of the runs, one at a time.
  using Head = std::pair<uint64_t, size_t>;  // first cell, run
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (size_t r = 0; r < cursor.size(); ++r) heads.emplace(keys[cursor[r]].first_cell, r);
  for (size_t rank = 0; rank < n; ++rank) {
    const size_t r = heads.top().second;
    heads.pop();
    pid_of_closed[keys[cursor[r]].index] = static_cast<uint32_t>(rank + 1);
    if (++cursor[r] < end[r]) heads.emplace(keys[cursor[r]].first_cell, r);
    if ((rank & 0xFFFFF) == 0xFFFFF) release_paged_memory();
  }
  return pid_of_closed;
}

// Permutes `items` in place so that items[rank] becomes the old items[order[rank]]
// (following the permutation's cycles; memory of one bit per item).
template <class Container>
void apply_order(Container& items, const std::vector<uint32_t>& order) {
  std::vector<bool> placed(order.size(), false);
  for (size_t start = 0; start < order.size(); ++start) {
    if (placed[start] || order[start] == start) continue;
    auto held = items[start];
    size_t at = start;
    while (order[at] != start) {
      items[at] = items[order[at]];
      placed[at] = true;
      at = order[at];
    }
    items[at] = held;
    placed[at] = true;
  }
}

// The records of `closed` (closing order) written to a new scratch file in
// PID order: read a block at a time, each block's records written where
// their PIDs put them, in runs of consecutive PIDs (patches close nearly in
// PID order, so the runs are long).
std::unique_ptr<SpillFile> records_in_pid_order(SpillFile& closed, const PagedArray<uint32_t>& pid_of_closed,
                                                const std::string& temp_dir) {
  auto out = std::make_unique<SpillFile>(temp_folder(temp_dir));
  constexpr size_t kBlock = size_t(1) << 16;
  std::vector<PatchStats> block(kBlock), sorted(kBlock);
  std::vector<uint32_t> index(kBlock);
  for (size_t first = 0; first < pid_of_closed.size(); first += kBlock) {
    const size_t n = std::min(kBlock, pid_of_closed.size() - first);
    closed.read(first * sizeof(PatchStats), block.data(), n * sizeof(PatchStats));
    std::iota(index.begin(), index.begin() + static_cast<int64_t>(n), 0u);
    std::sort(index.begin(), index.begin() + static_cast<int64_t>(n),
              [&](uint32_t a, uint32_t b) { return pid_of_closed[first + a] < pid_of_closed[first + b]; });
    for (size_t i = 0; i < n; ++i) sorted[i] = block[index[i]];
    for (size_t run = 0; run < n;) {
      size_t end = run + 1;
      while (end < n && pid_of_closed[first + index[end]] == pid_of_closed[first + index[end - 1]] + 1) ++end;
      const uint64_t pid = pid_of_closed[first + index[run]];
      out->write_at((pid - 1) * sizeof(PatchStats), sorted.data() + run, (end - run) * sizeof(PatchStats));
      run = end;
    }
    release_paged_memory();
  }
  return out;
}

}  // namespace

PatchTable scan_patches(ClassRasterSource& source, TileLabeler& labeler, const ScanOptions& options,
                        const ProgressFn& progress) {
  PatchTable table;
  table.raster = source.info();
  // Patch records hold bounding boxes and the second pass runs in 32-bit cell indices.
  if (table.raster.width > INT32_MAX || table.raster.height > INT32_MAX)
    throw Error(ErrorKind::BadInput, "rasters with a side above 2^31 - 1 cells are not supported");
  table.rule = options.rule;
  table.grid = plan_tiles(table.raster,
                          options.tile_width ? options.tile_width : labeler.preferred_tile_width(table.raster.width),
                          options.tile_height, options.max_strip_cells);

  // Per-patch and per-fragment arrays beyond their budget live on scratch files (paged_array.h).
  const PagedPolicy paged{options.max_patch_array_bytes, options.temp_dir};
  PatchFrontier frontier(table.raster.width, options.rule, options.keep_patch_ids, paged);
  // Closed patches in closing order, in blocks: no reallocation that copies
  // every record so far (a growing vector peaks at twice its size).
  std::deque<PatchStats> patches;
  PagedVector<uint64_t> closed_nodes(paged);
  // Beyond options.max_record_bytes the closed records go to a scratch file
  // in closing order; only their first cells (the sort keys) stay.
  std::unique_ptr<SpillFile> closed_file;
  PagedVector<uint64_t> first_cells(paged);
  auto spill_closed = [&]() {
    if (!closed_file) closed_file = std::make_unique<SpillFile>(temp_folder(options.temp_dir));
    for (const PatchStats& p : patches) {
      closed_file->append(&p, sizeof p);
      first_cells.push_back(p.first_cell);
    }
    patches.clear();
  };
  const int64_t label_bytes = table.raster.width * table.raster.height * static_cast<int64_t>(sizeof(uint32_t));
  const bool keep_labels = options.keep_patch_ids && label_bytes <= options.keep_labels_max_bytes;
  // Three stages overlap: the scheduler reads row r + 1 while the backend
  // labels row r and the seam merge takes row r - 1 (rows merge in order).
  // With keep_edge_rows: the fragment of each cell of the first and last rows.
  constexpr uint64_t kNoFragment = UINT64_MAX;
  std::vector<uint64_t> first_row_fragments, last_row_fragments;
  const bool edge_rows = options.keep_edge_rows && options.keep_patch_ids;
  auto merge_row = [&](int64_t row, const std::vector<Window>& windows, std::vector<TileLabels>& labels) {
    frontier.add_tile_row(windows, labels, row + 1 == table.grid.rows);
    if (edge_rows && (row == 0 || row + 1 == table.grid.rows)) {
      for (const bool first : {true, false}) {
        if (first ? row != 0 : row + 1 != table.grid.rows) continue;
        std::vector<uint64_t>& out = first ? first_row_fragments : last_row_fragments;
        out.assign(static_cast<size_t>(table.raster.width), kNoFragment);
        for (size_t t = 0; t < labels.size(); ++t) {
          const uint64_t base = frontier.fragment_base(static_cast<size_t>(row * table.grid.cols) + t);
          const std::vector<uint32_t>& edge = first ? labels[t].top : labels[t].bottom;
          for (int64_t x = 0; x < windows[t].width; ++x)
            if (edge[static_cast<size_t>(x)]) out[static_cast<size_t>(windows[t].x0 + x)] = base + edge[static_cast<size_t>(x)] - 1;
        }
      }
    }
    if (keep_labels)
      for (TileLabels& l : labels) table.tile_labels.push_back(std::move(l.labels));
    // Move closed patches out at once so the frontier's memory stays bounded.
    for (const ClosedPatch& c : frontier.closed()) {
      patches.push_back(c.stats);
      if (options.keep_patch_ids) closed_nodes.push_back(c.node);
    }
    frontier.closed().clear();
    if (patches.size() * sizeof(PatchStats) > options.max_record_bytes) spill_closed();
    release_paged_memory();  // arrays on scratch files keep only what the next tile row touches
  };
  // Declared after everything the merge uses, merge_row included: when a read
  // fails mid-scan, its destructor waits for the merge in flight before they
  // go (found by fuzz_class_raster under ASan: stack-use-after-scope).
  std::future<void> merging;
  stream_tile_rows(
      source, table.grid,
      [&](int64_t row, std::vector<TileInput>& tiles) {
        std::vector<TileLabels> labels;
        labeler.label_tiles(tiles, options.rule, keep_labels, labels);
        std::vector<Window> windows;
        for (const TileInput& t : tiles) windows.push_back(t.window);
        if (merging.valid()) merging.get();  // the previous row is merged (or its error surfaces here)
        if (row + 1 == table.grid.rows) {  // the last row: nothing left to overlap its merge
          merge_row(row, windows, labels);
          return;
        }
        merging = std::async(std::launch::async,
                             [&merge_row, row, windows = std::move(windows), labels = std::move(labels)]() mutable {
                               merge_row(row, windows, labels);
                             });
      },
      progress);
  if (merging.valid()) merging.get();

  if (closed_file) spill_closed();  // the last ones too
  const size_t total = closed_file ? first_cells.size() : patches.size();
  if (total >= 0xFFFFFFFFull)
    throw Error(ErrorKind::BadInput, "more than 4294967294 patches: patch tables and patch IDs are indexed by UInt32");
  // order[rank]: the closing index of the patch with PID rank + 1 (records in memory);
  // pid_of_closed[i]: the PID of the i-th patch to close.
  std::vector<uint32_t> order;
  PagedArray<uint32_t> pid_of_closed;
  if (closed_file) {
    pid_of_closed = pids_by_first_cell(first_cells, paged);
    first_cells.clear();
  } else {
    // Patches often close in PID order already (one row of tiles, say): then
    // no sort and no copy.
    const bool in_order = std::is_sorted(patches.begin(), patches.end(), [](const PatchStats& a, const PatchStats& b) {
      return a.first_cell < b.first_cell;
    });
    if (in_order) {
      order.resize(patches.size());
      std::iota(order.begin(), order.end(), 0u);
    } else {
      std::vector<uint64_t> keys;
      keys.reserve(patches.size());
      for (const PatchStats& p : patches) keys.push_back(p.first_cell);
      order = order_by_first_cell(keys);
      apply_order(patches, order);
    }
    // Moved into one array from the front, each block of the deque freed as it
    // empties; the array's pages are touched only as they fill, so the records
    // are held once, not twice.
    table.patches.reserve(patches.size());
    while (!patches.empty()) {
      table.patches.push_back(patches.front());
      patches.pop_front();
#ifdef __GLIBC__
      // The deque's blocks are small heap chunks that malloc keeps; hand their
      // pages back to the system as they empty, or they stay in the process.
      if (table.patches.size() % (size_t(1) << 20) == 0) malloc_trim(0);
#endif
    }
#ifdef __GLIBC__
    // Only after many records: a trim walks every arena under its lock, which
    // costs a small landscape (a zone's) more than its whole scan.
    if (table.patches.size() >= (size_t(1) << 16)) malloc_trim(0);
#endif
  }
  if (!closed_file && !options.keep_patch_ids) return table;
  if (!closed_file) {
    pid_of_closed.assign(order.size(), paged);
    for (uint32_t rank = 0; rank < order.size(); ++rank) pid_of_closed[order[rank]] = rank + 1;
    std::vector<uint32_t>().swap(order);
  }
  if (closed_file) {
    table.record_file = std::make_shared<PatchRecordFile>(
        records_in_pid_order(*closed_file, pid_of_closed, options.temp_dir), total);
    closed_file.reset();
  }
  if (!options.keep_patch_ids) return table;
  // The fragment of each closed patch travels with it through the sort.
  table.fragment_pid = frontier.fragment_pids(closed_nodes, pid_of_closed);
  const size_t n_tiles = static_cast<size_t>(table.grid.rows * table.grid.cols);
  table.tile_fragment_base.resize(n_tiles);
  for (size_t i = 0; i < n_tiles; ++i) table.tile_fragment_base[i] = frontier.fragment_base(i);
  if (edge_rows)
    for (const auto& [fragments, pids] : {std::pair{&first_row_fragments, &table.first_row_pids},
                                          std::pair{&last_row_fragments, &table.last_row_pids}}) {
      pids->resize(fragments->size());
      for (size_t x = 0; x < fragments->size(); ++x)
        (*pids)[x] = (*fragments)[x] == kNoFragment ? 0 : table.fragment_pid[(*fragments)[x]];
    }
  return table;
}

std::vector<int32_t> class_codes(const PatchTable& table) {
  // Few classes, millions of patches: a sorted set of the codes seen so far,
  // and the last code checked first (neighbouring patches often share it).
  std::vector<int32_t> codes;
  int32_t last = 0;
  for_each_patch_block(table, size_t(1) << 16, [&](size_t, const PatchStats* records, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const PatchStats& p = records[i];
      if (!codes.empty() && p.class_code == last) continue;
      last = p.class_code;
      const auto at = std::lower_bound(codes.begin(), codes.end(), last);
      if (at == codes.end() || *at != last) codes.insert(at, last);
    }
  });
  return codes;
}

void write_patch_ids(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                     LabelRasterSink& sink, const ProgressFn& progress) {
  if (table.tile_fragment_base.empty())
    throw Error(ErrorKind::Internal, "write_patch_ids needs a scan with keep_patch_ids");
  std::vector<TileLabels> labels;
  std::future<void> writing;
  stream_tile_rows(
      source, table.grid,
      [&](int64_t row, std::vector<TileInput>& tiles) {
        labeler.label_tiles(tiles, table.rule, true, labels);
        std::vector<std::pair<Window, std::vector<uint32_t>>> out;
        out.reserve(tiles.size());
        for (size_t t = 0; t < tiles.size(); ++t) {
          const uint64_t base = table.tile_fragment_base[row * table.grid.cols + t];
          std::vector<uint32_t>& ids = labels[t].labels;
          for (uint32_t& v : ids)
            if (v) v = table.fragment_pid[base + v - 1];
          out.emplace_back(tiles[t].window, std::move(ids));
        }
        if (writing.valid()) writing.get();  // one row in flight: bounded memory, errors surface
        writing = std::async(std::launch::async, [&sink, out = std::move(out)]() {
          for (const auto& [window, ids] : out) sink.write(window, ids.data());
        });
      },
      progress);
  if (writing.valid()) writing.get();
}

}  // namespace lsm
