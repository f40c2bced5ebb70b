#include "row_ranges.h"

#include <algorithm>
#include <numeric>

#include "byte_message.h"
#include "error.h"

namespace lsm {

namespace {

// Rows [first, first + rows) of a source as a raster of their own. The rows
// beyond them read as nodata (the scheduler's halo beyond a raster), which
// scan_row_range() then corrects against the true neighbours.
class RowRangeView final : public ClassRasterSource {
 public:
  RowRangeView(ClassRasterSource& source, int64_t first, int64_t rows)
      : source_(source), first_(first), info_(source.info()) {
    if (info_.geodesic) {
      const GeodesicRows& all = *info_.geodesic;
      auto part = std::make_shared<GeodesicRows>();
      part->cell_area_m2.assign(all.cell_area_m2.begin() + first, all.cell_area_m2.begin() + first + rows);
      part->side_h_m.assign(all.side_h_m.begin() + first, all.side_h_m.begin() + first + rows + 1);
      part->side_v_m.assign(all.side_v_m.begin() + first, all.side_v_m.begin() + first + rows);
      info_.geodesic = part;
    }
    info_.height = rows;
  }
  RasterInfo info() const override { return info_; }
  using ClassRasterSource::read;
  void read(const Window& w, int32_t* out, int64_t line_stride) override {
    source_.read(Window{w.x0, w.y0 + first_, w.width, w.height}, out, line_stride);
  }

 private:
  ClassRasterSource& source_;
  int64_t first_;
  RasterInfo info_;
};

// The sides across one edge row of the range: `pids` the range's PIDs of the
// edge row (class codes `codes`), `beyond` the true neighbouring row. The
// scan counted each side there as perimeter facing nodata: one facing its
// own class is none (the patch goes on), one facing another class is a
// class edge too; nodata stays as it was counted.
void correct_edge(const std::vector<uint32_t>& pids, const std::vector<int32_t>& codes,
                  const std::vector<int32_t>& beyond, std::vector<PatchStats>& patches) {
  for (size_t x = 0; x < pids.size(); ++x) {
    if (!pids[x] || beyond[x] == kNoClass) continue;
    PatchStats& p = patches[pids[x] - 1];
    if (beyond[x] == codes[x]) --p.perim_edges_h;
    else ++p.class_edges_h;
  }
}

constexpr uint32_t kSummaryMagic = 0x4c53525au;  // "LSRZ", version 1

}  // namespace

std::vector<std::pair<int64_t, int64_t>> tile_row_ranges(const TileGrid& grid, int ranks) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  const int64_t n = std::max(1, ranks), share = grid.rows / n, extra = grid.rows % n;
  int64_t first = 0;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t rows = share + (r < extra ? 1 : 0);
    ranges.emplace_back(first, first + rows);
    first += rows;
  }
  return ranges;
}

RowRangeSummary scan_row_range(ClassRasterSource& source, TileLabeler& labeler, const ScanOptions& options,
                               const TileGrid& grid, int64_t first_tile_row, int64_t end_tile_row,
                               const ProgressFn& progress) {
  const RasterInfo info = source.info();
  RowRangeSummary s;
  s.width = info.width;
  s.first_row = std::min(info.height, first_tile_row * grid.tile_height);
  s.end_row = std::min(info.height, end_tile_row * grid.tile_height);
  if (s.end_row <= s.first_row) {
    s.end_row = s.first_row;
    return s;
  }
  const int64_t rows = s.end_row - s.first_row;
  RowRangeView view(source, s.first_row, rows);
  ScanOptions o = options;
  o.tile_width = grid.tile_width;
  o.tile_height = grid.tile_height;
  o.keep_patch_ids = true;
  o.keep_edge_rows = true;
  o.keep_labels_max_bytes = 0;
  o.max_record_bytes = UINT64_MAX;  // the records travel whole
  PatchTable t = scan_patches(view, labeler, o, progress);
  if (t.grid.cols != grid.cols || t.grid.tile_width != grid.tile_width)
    throw Error(ErrorKind::Internal, "a row range's tiles are not the grid's");
  s.patches = std::move(t.patches);
  // The edges against the true rows above and below the range.
  std::vector<int32_t> edge(static_cast<size_t>(info.width)), beyond(static_cast<size_t>(info.width));
  const auto row_of = [&](int64_t y, std::vector<int32_t>& out) { source.read(Window{0, y, info.width, 1}, out.data()); };
  if (s.first_row > 0) {
    row_of(s.first_row, edge);
    row_of(s.first_row - 1, beyond);
    correct_edge(t.first_row_pids, edge, beyond, s.patches);
  }
  if (s.end_row < info.height) {
    row_of(s.end_row - 1, edge);
    row_of(s.end_row, beyond);
    correct_edge(t.last_row_pids, edge, beyond, s.patches);
  }
  // Raster coordinates.
  const uint64_t shift = static_cast<uint64_t>(s.first_row);
  for (PatchStats& p : s.patches) {
    p.first_cell += shift * static_cast<uint64_t>(info.width);
    p.sum_row += shift * p.cells;
    p.row_min += static_cast<uint32_t>(shift);
    p.row_max += static_cast<uint32_t>(shift);
  }
  s.first_row_pids = std::move(t.first_row_pids);
  s.last_row_pids = std::move(t.last_row_pids);
  s.fragment_pid.assign(t.fragment_pid.begin(), t.fragment_pid.end());
  s.tile_fragment_base = std::move(t.tile_fragment_base);
  return s;
}

std::vector<uint8_t> serialize_summary(const RowRangeSummary& s) {
  ByteWriter w;
  w.value(kSummaryMagic);
  w.value(static_cast<uint32_t>(sizeof(PatchStats)));
  w.value(s.first_row);
  w.value(s.end_row);
  w.value(s.width);
  w.value(static_cast<uint8_t>(s.met_border));
  w.value(static_cast<uint8_t>(s.error_kind));
  w.text(s.error);
  w.array(s.patches);
  w.array(s.first_row_pids);
  w.array(s.last_row_pids);
  w.array(s.fragment_pid);
  w.array(s.tile_fragment_base);
  return std::move(w.bytes);
}

RowRangeSummary deserialize_summary(const std::vector<uint8_t>& bytes) {
  ByteReader r{bytes, "a row range summary"};
  if (r.value<uint32_t>() != kSummaryMagic || r.value<uint32_t>() != sizeof(PatchStats))
    throw Error(ErrorKind::Internal, "not a row range summary of this lsm");
  RowRangeSummary s;
  s.first_row = r.value<int64_t>();
  s.end_row = r.value<int64_t>();
  s.width = r.value<int64_t>();
  s.met_border = r.value<uint8_t>() != 0;
  const uint8_t kind = r.value<uint8_t>();
  if (kind > static_cast<uint8_t>(ErrorKind::Internal)) throw Error(ErrorKind::Internal, "not a row range summary of this lsm");
  s.error_kind = static_cast<ErrorKind>(kind);
  s.error = r.text();
  s.patches = r.array<PatchStats>();
  s.first_row_pids = r.array<uint32_t>();
  s.last_row_pids = r.array<uint32_t>();
  s.fragment_pid = r.array<uint32_t>();
  s.tile_fragment_base = r.array<uint64_t>();
  return s;
}

PatchTable merge_row_ranges(const RasterInfo& raster, NeighbourRule rule, const TileGrid& grid,
                            std::vector<RowRangeSummary> summaries) {
  PatchTable table;
  table.raster = raster;
  table.rule = rule;
  table.grid = grid;
  std::vector<RowRangeSummary*> ranges;
  int64_t covered = 0;
  for (RowRangeSummary& s : summaries) {
    if (s.end_row == s.first_row) continue;
    if (s.first_row != covered || s.width != raster.width)
      throw Error(ErrorKind::Internal, "row range summaries do not follow each other");
    covered = s.end_row;
    ranges.push_back(&s);
  }
  if (covered != raster.height) throw Error(ErrorKind::Internal, "row range summaries do not cover the raster");
  // Every range's patch is a node, numbered range after range in each
  // range's PID order; only those on a range's first or last row can join
  // (the seam merge's rule across a border of rows: a side, or a corner
  // under the 8-cell rule, between cells of one class).
  std::vector<uint64_t> offset(ranges.size() + 1, 0);
  for (size_t i = 0; i < ranges.size(); ++i) offset[i + 1] = offset[i] + ranges[i]->patches.size();
  if (offset.back() >= 0xFFFFFFFFull)
    throw Error(ErrorKind::BadInput, "more than 4294967294 patch fragments across the row ranges");
  const size_t nodes = static_cast<size_t>(offset.back());
  // Node n's record, in place in its range's summary.
  std::vector<uint32_t> range_of(nodes);
  for (size_t i = 0; i < ranges.size(); ++i)
    std::fill(range_of.begin() + static_cast<int64_t>(offset[i]), range_of.begin() + static_cast<int64_t>(offset[i + 1]),
              static_cast<uint32_t>(i));
  const auto record = [&](uint32_t n) -> PatchStats& { return ranges[range_of[n]]->patches[n - offset[range_of[n]]]; };
  std::vector<uint32_t> parent(nodes);
  std::iota(parent.begin(), parent.end(), 0u);
  const auto find = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const int64_t reach = rule == NeighbourRule::Eight ? 1 : 0;
  for (size_t i = 1; i < ranges.size(); ++i) {
    const std::vector<uint32_t>& above = ranges[i - 1]->last_row_pids;
    const std::vector<uint32_t>& below = ranges[i]->first_row_pids;
    for (int64_t x = 0; x < raster.width; ++x) {
      if (!above[static_cast<size_t>(x)]) continue;
      const uint32_t a = static_cast<uint32_t>(offset[i - 1] + above[static_cast<size_t>(x)] - 1);
      for (int64_t nx = std::max<int64_t>(0, x - reach); nx <= std::min(raster.width - 1, x + reach); ++nx) {
        if (!below[static_cast<size_t>(nx)]) continue;
        const uint32_t b = static_cast<uint32_t>(offset[i] + below[static_cast<size_t>(nx)] - 1);
        if (record(a).class_code != record(b).class_code) continue;
        const uint32_t ra = find(a), rb = find(b);
        if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
      }
    }
  }
  // A patch's root is its node of least number: in the first range it
  // touches, its fragment of least range PID, which holds its first cell.
  // So the roots in node order are in raster order of first cells, the
  // order of PIDs, with no sort; each patch's counts are its nodes' sums.
  for (uint32_t n = 0; n < nodes; ++n)
    if (const uint32_t r = find(n); r != n) record(r).merge(record(n));
  std::vector<uint32_t>& pid_of_node = parent;  // every node's root, then its PID
  table.patches.reserve(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    if (pid_of_node[n] == n) {
      table.patches.push_back(record(n));
      pid_of_node[n] = static_cast<uint32_t>(table.patches.size());
    } else {
      pid_of_node[n] = pid_of_node[pid_of_node[n]];  // the root, numbered before its other nodes
    }
  }
  if (table.patches.size() >= 0xFFFFFFFFull)
    throw Error(ErrorKind::BadInput, "more than 4294967294 patches: patch tables and patch IDs are indexed by UInt32");
  // Each tile's fragments through their range's PIDs to the patches'.
  uint64_t fragments = 0;
  for (const RowRangeSummary* s : ranges) fragments += s->fragment_pid.size();
  std::vector<uint32_t>().swap(range_of);
  table.fragment_pid.assign(static_cast<size_t>(fragments), PagedPolicy{});
  table.tile_fragment_base.reserve(static_cast<size_t>(grid.rows * grid.cols));
  uint64_t at = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const RowRangeSummary& s = *ranges[i];
    for (size_t f = 0; f < s.fragment_pid.size(); ++f)
      table.fragment_pid[at + f] = pid_of_node[offset[i] + s.fragment_pid[f] - 1];
    for (uint64_t b : s.tile_fragment_base) table.tile_fragment_base.push_back(at + b);
    at += s.fragment_pid.size();
  }
  if (table.tile_fragment_base.size() != static_cast<size_t>(grid.rows * grid.cols))
    throw Error(ErrorKind::Internal, "row range summaries do not hold every tile");
  table.patches.shrink_to_fit();
  return table;
}

}  // namespace lsm
