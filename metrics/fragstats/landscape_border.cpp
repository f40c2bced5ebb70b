#include "landscape_border.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "cell_geometry.h"
#include "error.h"

namespace lsm {

namespace {

bool is_border(int32_t v) { return v < 0 && v != kNoClass; }
bool is_landscape(int32_t v) { return v >= 0; }

// Rows read at once: the source's block rows, fewer for very wide rasters
// (a strip stays below 64 MB of codes).
int64_t strip_rows(const RasterInfo& info) {
  const int64_t by_memory = std::max<int64_t>(1, (int64_t(64) << 20) / (4 * std::max<int64_t>(1, info.width)));
  return std::max<int64_t>(1, std::min<int64_t>({info.height, std::max(1, info.block_height), by_memory}));
}

}  // namespace

void LandscapeBorder::fill_row(int64_t y, int32_t* out) const {
  std::fill(out, out + width_, 0);
  if (y < 0 || y >= static_cast<int64_t>(rows_.size())) return;
  for (const Cell& c : rows_[static_cast<size_t>(y)]) out[c.x] = c.beyond;
}

std::vector<int32_t> LandscapeBorder::classes() const {
  std::vector<int32_t> codes;
  for (const auto& row : rows_)
    for (const Cell& c : row) codes.push_back(c.beyond);
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  return codes;
}

uint64_t LandscapeBorder::cells_kept() const {
  uint64_t n = 0;
  for (const auto& row : rows_) n += row.size();
  return n;
}

void border_class_row(const LandscapeBorder& border, const std::vector<int32_t>& classes, int64_t y, int32_t* out) {
  border.fill_row(y, out);
  for (int64_t x = 0; x < border.width(); ++x)
    if (int32_t& v = out[x]; v != 0)
      v = static_cast<int32_t>(std::lower_bound(classes.begin(), classes.end(), v) - classes.begin()) + 1;
}

LandscapeBorder BorderAsNodataSource::read_border(int reach, const ProgressFn& progress) {
  struct AsNodataAgain {
    ClassRasterSource& source;
    bool reader_maps;
    ~AsNodataAgain() {
      if (reader_maps) source.take_border_codes(BorderCodes::AsNodata);
    }
  } again{source_, reader_maps_};
  if (reader_maps_) source_.take_border_codes(BorderCodes::AsRead);
  return scan_landscape_border(source_, reach, progress);
}

void BorderAsNodataSource::read(const Window& window, int32_t* out, int64_t line_stride) {
  source_.read(window, out, line_stride);
  if (reader_maps_) return;  // the reader read them as nodata
  bool met = false;
  for (int64_t y = 0; y < window.height; ++y) {
    int32_t* row = out + y * line_stride;
    for (int64_t x = 0; x < window.width; ++x)
      if (is_border(row[x])) {
        row[x] = kNoClass;
        met = true;
      }
  }
  if (met) met_border_.store(true, std::memory_order_relaxed);
}

LandscapeBorder scan_landscape_border(ClassRasterSource& source, int reach, const ProgressFn& progress) {
  if (reach < 1) throw Error(ErrorKind::Internal, "the border's reach must be at least 1 cell");
  const RasterInfo info = source.info();
  const int64_t width = info.width, height = info.height;
  const CellGeometry geometry(info);
  LandscapeBorder border(width, height, reach, geometry.geodesic());
  const int64_t r = reach;
  // Ring of the last r + 1 rows of codes (row c = y - r is decided when row y
  // arrives), and of the last 2r + 2 rows' flags "a landscape cell within r
  // columns", whose column sums over rows c - r .. c + r say which border
  // cells of row c are within reach.
  std::vector<std::vector<int32_t>> codes(static_cast<size_t>(r + 1), std::vector<int32_t>(static_cast<size_t>(width)));
  std::vector<std::vector<uint8_t>> near(static_cast<size_t>(2 * r + 2), std::vector<uint8_t>(static_cast<size_t>(width)));
  std::vector<int32_t> near_rows(static_cast<size_t>(width), 0);
  std::map<std::pair<int32_t, int32_t>, BorderSides> sides;
  std::vector<uint8_t> seen;  // by code given, below 65536: the border's classes
  std::set<int32_t> seen_beyond;  // codes given above that
  auto add_side = [&](int32_t inside, int32_t border_code, bool horizontal, double length_m) {
    BorderSides& s = sides[{inside, -border_code}];
    (horizontal ? s.sides_h : s.sides_v) += 1;
    if (geometry.geodesic()) s.geodesic_m += length_m;
  };
  const int64_t strip = strip_rows(info);
  std::vector<int32_t> buffer;
  int64_t strip_y0 = -1;
  for (int64_t y = 0; y < height + r; ++y) {
    if (y < height) {
      if (strip_y0 < 0 || y >= strip_y0 + strip) {
        strip_y0 = y;
        const int64_t rows = std::min(strip, height - y);
        buffer.resize(static_cast<size_t>(rows * width));
        source.read(Window{0, y, width, rows}, buffer.data());
        if (progress && !progress(double(y) / double(height))) throw Error(ErrorKind::Io, "interrupted");
      }
      std::vector<int32_t>& row = codes[static_cast<size_t>(y % (r + 1))];
      std::copy(buffer.begin() + (y - strip_y0) * width, buffer.begin() + (y - strip_y0 + 1) * width, row.begin());
      // Sides with the cell to the left and the cell above.
      const std::vector<int32_t>* above = y > 0 ? &codes[static_cast<size_t>((y - 1) % (r + 1))] : nullptr;
      const double side_v = geometry.side_v_m(y), side_h = geometry.side_h_m(y);
      for (int64_t x = 0; x < width; ++x) {
        const int32_t v = row[static_cast<size_t>(x)];
        if (is_border(v)) {
          if (-v < 65536) {
            if (seen.size() <= static_cast<size_t>(-v)) seen.resize(static_cast<size_t>(-v) + 1, 0);
            seen[static_cast<size_t>(-v)] = 1;
          } else {
            seen_beyond.insert(-v);
          }
        }
        if (x > 0) {
          const int32_t left = row[static_cast<size_t>(x - 1)];
          if (is_landscape(v) && is_border(left)) add_side(v, left, false, side_v);
          if (is_landscape(left) && is_border(v)) add_side(left, v, false, side_v);
        }
        if (above) {
          const int32_t up = (*above)[static_cast<size_t>(x)];
          if (is_landscape(v) && is_border(up)) add_side(v, up, true, side_h);
          if (is_landscape(up) && is_border(v)) add_side(up, v, true, side_h);
        }
      }
    }
    // The window of rows y - 2r .. y: drop row y - 2r - 1's flags, add row y's.
    if (const int64_t gone = y - 2 * r - 1; gone >= 0 && gone < height) {
      const std::vector<uint8_t>& old = near[static_cast<size_t>(gone % (2 * r + 2))];
      for (int64_t x = 0; x < width; ++x) near_rows[static_cast<size_t>(x)] -= old[static_cast<size_t>(x)];
    }
    if (y < height) {
      const std::vector<int32_t>& row = codes[static_cast<size_t>(y % (r + 1))];
      std::vector<uint8_t>& flags = near[static_cast<size_t>(y % (2 * r + 2))];
      // A landscape cell within r columns: a sliding count over [x - r, x + r].
      int64_t in_window = 0;
      for (int64_t x = 0; x < std::min(width, r); ++x) in_window += is_landscape(row[static_cast<size_t>(x)]);
      for (int64_t x = 0; x < width; ++x) {
        if (x + r < width) in_window += is_landscape(row[static_cast<size_t>(x + r)]);
        if (x - r - 1 >= 0) in_window -= is_landscape(row[static_cast<size_t>(x - r - 1)]);
        flags[static_cast<size_t>(x)] = in_window > 0;
        near_rows[static_cast<size_t>(x)] += flags[static_cast<size_t>(x)];
      }
    }
    const int64_t c = y - r;  // rows c - r .. c + r are in the window
    if (c < 0) continue;
    const std::vector<int32_t>& row = codes[static_cast<size_t>(c % (r + 1))];
    std::vector<LandscapeBorder::Cell>& kept = border.rows_[static_cast<size_t>(c)];
    for (int64_t x = 0; x < width; ++x)
      if (is_border(row[static_cast<size_t>(x)]) && near_rows[static_cast<size_t>(x)] > 0)
        kept.push_back({static_cast<uint32_t>(x), -row[static_cast<size_t>(x)]});
    kept.shrink_to_fit();
  }
  for (size_t code = 0; code < seen.size(); ++code)
    if (seen[code]) border.all_classes_.push_back(static_cast<int32_t>(code));
  border.all_classes_.insert(border.all_classes_.end(), seen_beyond.begin(), seen_beyond.end());
  for (auto& [pair, s] : sides) {
    s.inside = pair.first;
    s.beyond = pair.second;
    border.sides_.push_back(s);
  }
  return border;
}

}  // namespace lsm
