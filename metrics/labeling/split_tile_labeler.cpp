#include "split_tile_labeler.h"

#include <algorithm>
#include <exception>
#include <future>

#include "error.h"

namespace lsm {

SplitTileLabeler::SplitTileLabeler(std::vector<std::unique_ptr<TileLabeler>> workers) : workers_(std::move(workers)) {
  if (workers_.empty()) throw Error(ErrorKind::Internal, "SplitTileLabeler needs at least one worker");
}

std::string SplitTileLabeler::name() const {
  return workers_.front()->name() + " x" + std::to_string(workers_.size());
}

void SplitTileLabeler::label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                                   std::vector<TileLabels>& out) {
  const size_t shares = std::min(workers_.size(), tiles.size());
  if (shares <= 1) {
    workers_.front()->label_tiles(tiles, rule, want_labels, out);
    return;
  }
  // Contiguous shares: a worker's tiles are neighbours in the strip.
  std::vector<std::vector<TileInput>> share_tiles(shares);
  std::vector<std::vector<TileLabels>> share_out(shares);
  for (size_t k = 0; k < shares; ++k) {
    const size_t begin = tiles.size() * k / shares, end = tiles.size() * (k + 1) / shares;
    share_tiles[k].assign(tiles.begin() + static_cast<std::ptrdiff_t>(begin),
                          tiles.begin() + static_cast<std::ptrdiff_t>(end));
  }
  std::vector<std::future<void>> running;
  for (size_t k = 0; k < shares; ++k)
    running.push_back(std::async(std::launch::async, [&, k]() {
      workers_[k]->label_tiles(share_tiles[k], rule, want_labels, share_out[k]);
    }));
  std::exception_ptr failure;
  for (std::future<void>& f : running) {
    try {
      f.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  out.clear();
  out.reserve(tiles.size());
  for (std::vector<TileLabels>& s : share_out)
    for (TileLabels& l : s) out.push_back(std::move(l));
}

int64_t SplitTileLabeler::preferred_tile_width(int64_t raster_width) const {
  const int64_t n = static_cast<int64_t>(workers_.size());
  return std::max<int64_t>(workers_[0]->preferred_tile_width((raster_width + n - 1) / n), 1);
}

}  // namespace lsm
