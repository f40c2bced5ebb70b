#pragma once
// The seam merge: joins the fragments of tile rows into patches with a
// union-find over the fragments of the current tile row and the patches still
// open at the scan frontier (the last raster row processed). A patch closes
// as soon as no cell of it lies on the frontier; closed patches leave the
// working set at once, so memory is bounded by the open patches plus one row
// of tiles, never by the raster.
//
// The frontier state (open patches + one row of labels) is all that links two
// row ranges of the raster, so ranges scanned by different processes merge
// the same way: a range's summary is a tile row whose top/bottom labels are
// its open patches (see docs/ENGINE.md).
#include <cstdint>
#include <vector>

#include "paged_array.h"
#include "patch_stats.h"
#include "raster.h"
#include "tile_labeler.h"

namespace lsm {

/// A patch whose cells are all known.
struct ClosedPatch {
  PatchStats stats;
  uint64_t node = 0;  ///< the fragment id that represents it (for the patch-ID raster)
};

class PatchFrontier {
 public:
  /// track_fragments: remember which patch every fragment belongs to, so that
  /// fragment_pids() can map tile-local labels to patch IDs (needed for the
  /// patch-ID raster; costs 8 bytes per fragment).
  /// `paged`: where the fragment links go (8 bytes a fragment; paged_array.h).
  PatchFrontier(int64_t raster_width, NeighbourRule rule, bool track_fragments, const PagedPolicy& paged = {});

  /// Merges the next tile row: `windows` and `tiles` left to right covering
  /// the raster's full width, directly below the previous row. `last` closes
  /// every patch. Fragment ids of tile i are fragment_base(i) + label - 1,
  /// counting tiles in the order they were added.
  void add_tile_row(const std::vector<Window>& windows, const std::vector<TileLabels>& tiles, bool last);

  /// Patches closed so far, in closing order; the caller may move them out.
  std::vector<ClosedPatch>& closed() { return closed_; }
  /// Number of patches still open at the frontier.
  size_t open_count() const { return open_.size(); }

  /// Fragment id of label 1 of the i-th tile added.
  uint64_t fragment_base(size_t tile_index) const { return tile_base_[tile_index]; }

  /// After the last row: the patch ID of every fragment, given the patch ID
  /// pids[i] of the closed patch represented by fragment nodes[i] (one entry
  /// per closed patch, see ClosedPatch::node). Requires track_fragments;
  /// frees the fragment union-find.
  /// The result is placed by `paged`, as the links were.
  PagedArray<uint32_t> fragment_pids(const PagedVector<uint64_t>& nodes, const PagedArray<uint32_t>& pids);

 private:
  struct OpenPatch {
    PatchStats stats;
    uint64_t node;
  };
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  uint32_t find(uint32_t x);
  void unite(uint32_t a, uint32_t b);
  uint64_t find_fragment(uint64_t x);

  int64_t width_;
  NeighbourRule rule_;
  bool track_;
  std::vector<OpenPatch> open_;
  std::vector<uint32_t> frontier_;  // open patch index of each cell of the last row, or kNone
  std::vector<ClosedPatch> closed_;
  std::vector<uint32_t> parent_;    // union-find of the row being merged (reused)
  uint64_t next_fragment_ = 0;
  std::vector<uint64_t> tile_base_;
  PagedPolicy paged_;
  PagedVector<uint64_t> fragment_parent_;  // when track_: fragment -> fragment it merged into
};

}  // namespace lsm
