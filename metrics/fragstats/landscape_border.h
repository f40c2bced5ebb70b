#pragma once
// FRAGSTATS' landscape border (FRAGSTATS 4.2 User Guidelines, "Backgrounds,
// borders and boundaries"): cells with a negative class code lie outside the
// landscape (not in TA, no patches, no class) but give the landscape
// boundary beside them its type: the code -c says that class c lies beyond.
// Along a border, a boundary side is true edge when c differs from the
// class inside (TE, ED, and for CWED, TECI and ECON the weight of the pair),
// no edge when c is the class inside (the patch continues beyond the
// boundary: no edge, and core may reach the boundary), and background edge
// when c is a background class; --boundary-edge then applies only to the
// boundary where no border lies (the raster's edge, nodata).
//
// The landscape job reads the raster once more when the first pass met a
// border (scan_landscape_border()): it keeps the border cells within reach
// of the landscape (the edge depth, at least 1 cell) and counts the sides
// between landscape and border cells by pair of classes. The labeler, the
// patch records and every other pass see the border as nodata
// (BorderAsNodataSource). docs/FRAGSTATS.md says what the border changes.
#include <atomic>
#include <cstdint>
#include <vector>

#include "progress.h"
#include "raster.h"

namespace lsm {

/// Cell sides between landscape cells of class `inside` and border cells
/// that give class `beyond` (the border code negated), of one raster.
struct BorderSides {
  int32_t inside = 0;        ///< class code inside the landscape (a class or a background class)
  int32_t beyond = 0;        ///< class code the border gives (>= 1)
  uint64_t sides_h = 0;      ///< top/bottom sides (length: cell width)
  uint64_t sides_v = 0;      ///< left/right sides (length: cell height)
  double geodesic_m = 0;     ///< geographic rasters: the sides' lengths on the ellipsoid (m); else 0
  /// Length in m: geodesic_m on geographic rasters, else the sides times the cell sizes.
  double length_m(double cell_width, double cell_height, bool geodesic) const {
    return geodesic ? geodesic_m
                    : static_cast<double>(sides_h) * cell_width + static_cast<double>(sides_v) * cell_height;
  }
};

/// The border cells near the landscape and the border's sides, of one raster.
class LandscapeBorder {
 public:
  struct Cell {
    uint32_t x;      ///< column
    int32_t beyond;  ///< class code the border cell gives (its code negated, >= 1)
  };
  LandscapeBorder() = default;
  LandscapeBorder(int64_t width, int64_t height, int reach, bool geodesic)
      : width_(width), reach_(reach), geodesic_(geodesic), rows_(static_cast<size_t>(height)) {}

  /// Writes row `y`'s border cells within reach of the landscape into `out`
  /// (`width` codes: the class code each gives, 0 elsewhere). Rows outside
  /// the raster give all 0.
  void fill_row(int64_t y, int32_t* out) const;
  /// Sides by pair of classes, sorted by (inside, beyond).
  const std::vector<BorderSides>& sides() const { return sides_; }
  /// The classes the border gives within reach of the landscape, ascending.
  std::vector<int32_t> classes() const;
  /// The classes the border gives anywhere in the raster, ascending (IJI's
  /// patch types include them).
  const std::vector<int32_t>& all_classes() const { return all_classes_; }
  /// Cells of the landscape's border within reach are kept: Chebyshev distance in cells.
  int reach() const { return reach_; }
  int64_t width() const { return width_; }
  bool geodesic() const { return geodesic_; }
  /// Border cells kept (8 bytes each).
  uint64_t cells_kept() const;

 private:
  friend LandscapeBorder scan_landscape_border(ClassRasterSource&, int, const ProgressFn&);
  int64_t width_ = 0;
  int reach_ = 1;
  bool geodesic_ = false;
  std::vector<std::vector<Cell>> rows_;  // [row]: cells by ascending column
  std::vector<BorderSides> sides_;
  std::vector<int32_t> all_classes_;
};

/// Reads `source` (whose negative codes are the border: a source that holds
/// them as given, or one asked to read them as they are,
/// ClassRasterSource::take_border_codes(AsRead)) strip by strip and keeps
/// the border cells within `reach` cells (Chebyshev, >= 1) of a landscape
/// cell, with the sides between landscape and border cells. Memory: the
/// strip being read, 2 x reach + 1 rows of flags, and 8 bytes a kept cell.
/// Throws lsm::Error (Io for reads, "interrupted" when `progress` returns false).
LandscapeBorder scan_landscape_border(ClassRasterSource& source, int reach, const ProgressFn& progress = {});

/// Row `y` of `border` as columns of a pair table: 0 where no border cell
/// is kept, j + 1 for a border cell giving `classes[j]` (`classes`
/// ascending, holding every class of border.classes()). `out`: width cells.
void border_class_row(const LandscapeBorder& border, const std::vector<int32_t>& classes, int64_t y, int32_t* out);

/// `source` with its border cells (negative codes) read as nodata, for the
/// labeler and every pass that treats the border as outside the landscape,
/// noting whether it met any: a reader that can maps them in its own loop
/// over the cells (take_border_codes(AsNodata): no pass more); for one that
/// holds codes as given, this source maps them. While it lives, `source`
/// takes border codes as nodata except within read_border_as_codes().
class BorderAsNodataSource : public ClassRasterSource {
 public:
  explicit BorderAsNodataSource(ClassRasterSource& source)
      : source_(source), reader_maps_(source_.take_border_codes(BorderCodes::AsNodata)) {}
  ~BorderAsNodataSource() override { source_.take_border_codes(BorderCodes::Refuse); }
  BorderAsNodataSource(const BorderAsNodataSource&) = delete;
  BorderAsNodataSource& operator=(const BorderAsNodataSource&) = delete;
  RasterInfo info() const override { return source_.info(); }
  void read(const Window& window, int32_t* out, int64_t line_stride) override;
  using ClassRasterSource::read;
  /// Whether a read met a border cell.
  bool met_border() const {
    return reader_maps_ ? source_.met_border_codes() : met_border_.load(std::memory_order_relaxed);
  }
  /// The landscape border of `source` (scan_landscape_border(), the codes
  /// read as they are), then border codes as nodata again.
  LandscapeBorder read_border(int reach, const ProgressFn& progress = {});

 private:
  ClassRasterSource& source_;
  bool reader_maps_;
  std::atomic<bool> met_border_{false};
};

}  // namespace lsm
