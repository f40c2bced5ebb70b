#pragma once
// A TileLabeler that spreads each call's tiles over several labelers at
// once: one worker per GPU when a machine has several. Each tile is labelled
// whole by one worker, so the result is the one a single worker gives, tile
// for tile, whatever the number of workers.
#include <memory>
#include <string>
#include <vector>

#include "tile_labeler.h"

namespace lsm {

class SplitTileLabeler final : public TileLabeler {
 public:
  /// `workers` must not be empty; each is used by one host thread at a time.
  /// Throws lsm::Error(Internal) when it is empty.
  explicit SplitTileLabeler(std::vector<std::unique_ptr<TileLabeler>> workers);

  /// "<worker name> x<count>", for example "cuda x4".
  std::string name() const override;
  /// The workers' backend (they are all of one kind).
  Backend backend() const override { return workers_.front()->backend(); }

  /// Worker k labels the k-th of `workers` contiguous shares of `tiles` on
  /// its own thread; `out` is in the order of `tiles`. The first worker error
  /// is rethrown after every worker has stopped.
  void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                   std::vector<TileLabels>& out) override;

  /// One tile of each strip per worker: its share of the raster's width.
  int64_t preferred_tile_width(int64_t raster_width) const override;

  size_t workers() const { return workers_.size(); }

 private:
  std::vector<std::unique_ptr<TileLabeler>> workers_;
};

}  // namespace lsm
