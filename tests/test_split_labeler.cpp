// Tiles spread over several labelers (one per GPU on multi-GPU machines) give
// the single labeler's results, tile for tile; a worker's error surfaces.
#include <algorithm>

#include "cell_neighbourhood.h"
#include "error.h"
#include "split_tile_labeler.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

std::unique_ptr<TileLabeler> split_of(int workers, Backend backend) {
  std::vector<std::unique_ptr<TileLabeler>> w;
  for (int k = 0; k < workers; ++k) w.push_back(make_labeler(backend));
  return std::make_unique<SplitTileLabeler>(std::move(w));
}

PatchTable scan_with(MemoryClassRaster& raster, TileLabeler& labeler, int64_t tile) {
  ScanOptions o;
  o.tile_width = o.tile_height = tile;
  o.keep_patch_ids = true;
  return scan_patches(raster, labeler, o);
}

void expect_split_matches_brute_force(Backend backend) {
  auto raster = random_landscape(130, 90, 5, 7, 0.1);
  const Reference ref = brute_force(raster, NeighbourRule::Eight);
  // 3 workers over 10 tiles per row (uneven shares), 4 workers over 2 tiles
  // (fewer tiles than workers), and one tile per row (no split at all).
  for (auto [workers, tile] : {std::pair{3, 13}, std::pair{4, 65}, std::pair{2, 130}}) {
    auto split = split_of(workers, backend);
    const PatchTable t = scan_with(raster, *split, tile);
    EXPECT_EQ(t.patches, ref.patches) << workers << " workers, tile " << tile;
    MemoryLabelRaster sink(130, 90);
    write_patch_ids(raster, *split, t, sink);
    EXPECT_EQ(sink.labels(), ref.labels) << workers << " workers, tile " << tile;
  }
}

TEST(SplitTileLabeler, CpuWorkersMatchBruteForce) { expect_split_matches_brute_force(Backend::Cpu); }

TEST(SplitTileLabeler, CudaWorkersMatchBruteForce) {
  LSM_REQUIRE_CUDA();  // several workers on one device exercise the same split as one per device
  expect_split_matches_brute_force(Backend::Cuda);
}

TEST(SplitTileLabeler, NamesItsWorkers) { EXPECT_EQ(split_of(3, Backend::Cpu)->name(), "cpu x3"); }

// The backend is known by type: a split of CPU workers is the CPU (no GPU
// second pass), a split of CUDA workers ("cuda x2") is CUDA and gets the
// GPU's second pass as one GPU does.
TEST(SplitTileLabeler, IsOfItsWorkersBackend) {
  EXPECT_EQ(split_of(2, Backend::Cpu)->backend(), Backend::Cpu);
  EXPECT_EQ(second_pass_counter(*split_of(2, Backend::Cpu)), nullptr);
}

TEST(SplitTileLabeler, TwoCudaWorkersGetTheGpuSecondPass) {
  LSM_REQUIRE_CUDA();
  // On a host of several GPUs make_labeler(Cuda) is itself a split over them
  // ("cuda x2"), and two of those are "cuda x2 x2".
  const auto split = split_of(2, Backend::Cuda);
  EXPECT_EQ(split->name(), make_labeler(Backend::Cuda)->name() + " x2");
  EXPECT_EQ(split->backend(), Backend::Cuda);
  const auto counter = second_pass_counter(*split);
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->name(), make_neighbourhood_counter(Backend::Cuda)->name());
}

// One MPI rank per GPU (docs/SCALING.md): the ranks of a host share its GPUs.
TEST(GpuShare, OfHostRanks) {
  using V = std::vector<int>;
  EXPECT_EQ(gpus_of_host_rank(4, 0, 1), (V{0, 1, 2, 3}));  // alone: every GPU
  EXPECT_EQ(gpus_of_host_rank(2, 0, 2), (V{0}));
  EXPECT_EQ(gpus_of_host_rank(2, 1, 2), (V{1}));
  EXPECT_EQ(gpus_of_host_rank(4, 0, 2), (V{0, 1}));  // contiguous shares
  EXPECT_EQ(gpus_of_host_rank(4, 1, 2), (V{2, 3}));
  EXPECT_EQ(gpus_of_host_rank(5, 0, 2), (V{0, 1}));  // near-equal: 2 and 3
  EXPECT_EQ(gpus_of_host_rank(5, 1, 2), (V{2, 3, 4}));
  EXPECT_EQ(gpus_of_host_rank(2, 2, 3), (V{0}));  // more ranks than GPUs: shared
  EXPECT_EQ(gpus_of_host_rank(2, 3, 4), (V{1}));
  EXPECT_EQ(gpus_of_host_rank(0, 1, 2), V{});  // no GPU
  EXPECT_THROW(gpus_of_host_rank(2, 2, 2), Error);
  EXPECT_THROW(gpus_of_host_rank(2, 0, 0), Error);
}

// The share of the last rank of a host with as many ranks as GPUs.
class LastGpuOfTheHost {
 public:
  explicit LastGpuOfTheHost(int gpus) { use_gpu_share_of_host_rank(gpus - 1, gpus); }
  ~LastGpuOfTheHost() { use_gpu_share_of_host_rank(0, 1); }
};

TEST(GpuShare, ARankOfAHostLabelsOnItsGpuAlone) {
  LSM_REQUIRE_CUDA();
  const int gpus = static_cast<int>(gpus_of_this_process().size());
  if (gpus < 2) GTEST_SKIP() << "one GPU here: the share of a rank needs a host with several";
  LastGpuOfTheHost share(gpus);
  EXPECT_EQ(gpus_of_this_process(), std::vector<int>{gpus - 1});
  const auto labeler = make_labeler(Backend::Cuda);
  EXPECT_EQ(labeler->name(), "cuda");  // one GPU: no split
  auto raster = random_landscape(130, 90, 5, 7, 0.1);
  const Reference ref = brute_force(raster, NeighbourRule::Eight);
  EXPECT_EQ(scan_with(raster, *labeler, 13).patches, ref.patches);
  ASSERT_NE(second_pass_counter(*labeler), nullptr);
}

// A labeler that wants tiles `width` cells wide, labelling them as the CPU does.
class WideTileLabeler final : public TileLabeler {
 public:
  explicit WideTileLabeler(int64_t width) : width_(width) {}
  std::string name() const override { return "wide"; }
  void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                   std::vector<TileLabels>& out) override {
    cpu_->label_tiles(tiles, rule, want_labels, out);
  }
  int64_t preferred_tile_width(int64_t raster_width) const override { return std::min(width_, raster_width); }

 private:
  int64_t width_;
  std::unique_ptr<TileLabeler> cpu_ = make_labeler(Backend::Cpu);
};

TEST(SplitTileLabeler, ScansUseThePreferredTileWidth) {
  auto raster = random_landscape(2100, 40, 5, 3, 0.1);
  const Reference ref = brute_force(raster, NeighbourRule::Eight);
  ScanOptions o;  // no tile size named
  EXPECT_EQ(scan_patches(raster, *make_labeler(Backend::Cpu), o).grid.tile_width, 1024);
  WideTileLabeler whole(1 << 20);  // the whole strip, as the CUDA backend asks
  const PatchTable t = scan_patches(raster, whole, o);
  EXPECT_EQ(t.grid.cols, 1);
  EXPECT_EQ(t.patches, ref.patches);
  // Split among three workers: one tile per worker and strip.
  std::vector<std::unique_ptr<TileLabeler>> w;
  for (int k = 0; k < 3; ++k) w.push_back(std::make_unique<WideTileLabeler>(1 << 20));
  SplitTileLabeler split(std::move(w));
  EXPECT_EQ(split.preferred_tile_width(2100), 700);
  const PatchTable s = scan_patches(raster, split, o);
  EXPECT_EQ(s.grid.cols, 3);
  EXPECT_EQ(s.patches, ref.patches);
}

class FailingLabeler final : public TileLabeler {
 public:
  std::string name() const override { return "failing"; }
  void label_tiles(const std::vector<TileInput>&, NeighbourRule, bool, std::vector<TileLabels>&) override {
    throw Error(ErrorKind::Device, "worker failed");
  }
};

TEST(SplitTileLabeler, AWorkersErrorSurfaces) {
  std::vector<std::unique_ptr<TileLabeler>> w;
  w.push_back(make_labeler(Backend::Cpu));
  w.push_back(std::make_unique<FailingLabeler>());
  SplitTileLabeler split(std::move(w));
  auto raster = random_landscape(40, 30, 3, 1, 0.0);
  try {
    scan_with(raster, split, 10);
    FAIL() << "the failing worker's error was lost";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Device);
    EXPECT_STREQ(e.what(), "worker failed");
  }
  EXPECT_THROW(SplitTileLabeler(std::vector<std::unique_ptr<TileLabeler>>{}), Error);
}

}  // namespace
}  // namespace lsm::test
