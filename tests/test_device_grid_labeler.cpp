// The device labeling (cuda/device_grid_labeler.h) on Byte and Int32 grids
// held in device memory, as the GPU benchmark uses it, against the brute-force
// reference: patch records, every cell's label and the border labels. The
// inputs include the adversarial ones (noise, one class, stripes, a serpentine
// crossing every block back and forth, a checkerboard joined only through
// corners). Skips where no CUDA device is usable.
#include <cuda_runtime.h>

#include "../bench/labeling_inputs.h"
#include "device_grid_labeler.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

MemoryClassRaster to_raster(const std::vector<uint8_t>& cells, int64_t w, int64_t h, int nodata) {
  std::vector<int32_t> c(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) c[i] = int(cells[i]) == nodata ? kNoClass : int32_t(cells[i]);
  return MemoryClassRaster(w, h, std::move(c), 1.0, 1.0);
}

std::vector<uint8_t> to_bytes(const MemoryClassRaster& r, uint8_t nodata) {
  std::vector<uint8_t> out(r.cells().size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = r.cells()[i] == kNoClass ? nodata : uint8_t(r.cells()[i]);
  return out;
}

std::vector<uint8_t> serpentine(int64_t w, int64_t h) {
  std::vector<uint8_t> g(static_cast<size_t>(w * h), 1);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      const bool corridor = y % 2 == 0 || x == ((y / 2) % 2 == 0 ? w - 1 : 0);
      if (corridor) g[static_cast<size_t>(y * w + x)] = 2;
    }
  return g;
}

std::vector<uint8_t> checkerboard(int64_t w, int64_t h) {
  std::vector<uint8_t> g(static_cast<size_t>(w * h));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) g[static_cast<size_t>(y * w + x)] = uint8_t(1 + (x + y) % 2);
  return g;
}

// Labels `raster` on the device as a grid of `type`: Byte cells (nodata as
// 255) or Int32 cells (kNoClass for nodata, any code), and compares records,
// labels and border labels with the brute-force reference.
void check_raster(const char* name, const MemoryClassRaster& raster, DeviceCellType type, NeighbourRule rule) {
  const int64_t w = raster.info().width, h = raster.info().height;
  const bool bytes = type == DeviceCellType::UInt8;
  SCOPED_TRACE(std::string(name) + " " + std::to_string(w) + "x" + std::to_string(h) + " rule " +
               std::to_string(int(rule)) + (bytes ? " Byte" : " Int32"));
  const Reference ref = brute_force(raster, rule);
  const size_t n = raster.cells().size(), border_n = static_cast<size_t>(2 * w + 2 * h);
  const size_t cell_bytes = bytes ? 1 : sizeof(int32_t);
  const std::vector<uint8_t> byte_cells = bytes ? to_bytes(raster, 255) : std::vector<uint8_t>();
  const void* host_cells = bytes ? static_cast<const void*>(byte_cells.data()) : raster.cells().data();
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  void* d_cells = nullptr;
  uint32_t *d_labels = nullptr, *d_border = nullptr;
  ASSERT_EQ(cudaMalloc(&d_cells, n * cell_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_labels, n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_border, border_n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_cells, host_cells, n * cell_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  // Poison the outputs: every cell must be written.
  ASSERT_EQ(cudaMemset(d_labels, 0xAB, n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_border, 0xAB, border_n * 4), cudaSuccess);
  std::vector<PatchStats> patches;
  std::vector<uint32_t> labels(n), border(border_n);
  {
    DeviceGridLabeler labeler(stream);
    DeviceClassGrid grid;
    grid.cells = d_cells;
    grid.type = type;
    grid.pitch = w;
    grid.width = int(w);
    grid.height = int(h);
    grid.nodata = bytes ? 255 : -1;
    // Twice, so that reused buffers are covered too.
    for (int round = 0; round < 2; ++round) {
      const uint32_t count = labeler.label(grid, rule, d_labels, d_border);
      std::vector<DevicePatchRecord> records(count);
      ASSERT_EQ(cudaMemcpyAsync(records.data(), labeler.records(), count * sizeof(DevicePatchRecord),
                                cudaMemcpyDeviceToHost, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      patches.clear();
      for (const DevicePatchRecord& r : records) patches.push_back(to_patch_stats(r, w, 0, 0, w));
    }
  }
  ASSERT_EQ(cudaMemcpy(labels.data(), d_labels, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(border.data(), d_border, border_n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d_cells);
  cudaFree(d_labels);
  cudaFree(d_border);
  cudaStreamDestroy(stream);

  ASSERT_EQ(patches.size(), ref.patches.size());
  for (size_t k = 0; k < patches.size(); ++k)
    if (!(patches[k] == ref.patches[k])) {
      ADD_FAILURE() << "first differing patch: label " << k + 1 << " (of " << patches.size() << "), cells "
                    << patches[k].cells << " vs " << ref.patches[k].cells << ", first cell " << patches[k].first_cell
                    << " vs " << ref.patches[k].first_cell;
      break;
    }
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] != ref.labels[i]) {
      ADD_FAILURE() << "first differing label: cell (" << i % w << ", " << i / w << "): " << labels[i] << " vs "
                    << ref.labels[i];
      break;
    }
  std::vector<uint32_t> want_border;
  for (int64_t x = 0; x < w; ++x) want_border.push_back(ref.labels[x]);
  for (int64_t x = 0; x < w; ++x) want_border.push_back(ref.labels[(h - 1) * w + x]);
  for (int64_t y = 0; y < h; ++y) want_border.push_back(ref.labels[y * w]);
  for (int64_t y = 0; y < h; ++y) want_border.push_back(ref.labels[y * w + w - 1]);
  EXPECT_EQ(border, want_border);
}

void check(const char* name, const std::vector<uint8_t>& cells, int64_t w, int64_t h, int nodata,
           NeighbourRule rule) {
  check_raster(name, to_raster(cells, w, h, nodata), DeviceCellType::UInt8, rule);
}

class DeviceGridLabeling : public ::testing::TestWithParam<int> {
 protected:
  NeighbourRule rule() const { return GetParam() == 4 ? NeighbourRule::Four : NeighbourRule::Eight; }
};

TEST_P(DeviceGridLabeling, RealisticLandscapesOfEveryShape) {
  LSM_REQUIRE_CUDA();
  // Sizes off the 32 x 32 blocks, single rows and columns, and a larger one.
  for (auto [w, h] : {std::pair<int64_t, int64_t>{150, 97}, {1, 37}, {37, 1}, {33, 65}, {1000, 700}}) {
    const MemoryClassRaster r = random_landscape(w, h, 5, uint64_t(w * 31 + h), 0.1);
    check("landscape", to_bytes(r, 255), w, h, 255, rule());
  }
}

TEST_P(DeviceGridLabeling, AdversarialInputs) {
  LSM_REQUIRE_CUDA();
  check("noise 2", bench::uniform_noise(300, 211, 2, 7), 300, 211, -1, rule());
  check("noise 28", bench::uniform_noise(300, 211, 28, 8), 300, 211, -1, rule());
  check("one class", bench::one_class(257, 129), 257, 129, -1, rule());
  check("stripes", bench::stripes(200, 130, 16), 200, 130, -1, rule());
  check("serpentine", serpentine(161, 143), 161, 143, -1, rule());
  check("checkerboard", checkerboard(96, 70), 96, 70, -1, rule());
  // Every cell nodata: no patch, every label 0.
  check("all nodata", bench::one_class(40, 40), 40, 40, 1, rule());
}

TEST_P(DeviceGridLabeling, MirrorMosaicOfARealisticLandscape) {
  LSM_REQUIRE_CUDA();
  const MemoryClassRaster r = random_landscape(90, 70, 6, 11, 0.05);
  const std::vector<uint8_t> mosaic = bench::mirror_mosaic(to_bytes(r, 255), 90, 70, 400, 300);
  check("mosaic", mosaic, 400, 300, 255, rule());
}

TEST_P(DeviceGridLabeling, Int32GridsWithCodesBeyondAByte) {
  LSM_REQUIRE_CUDA();
  for (auto [w, h] : {std::pair<int64_t, int64_t>{150, 97}, {33, 65}, {1000, 700}}) {
    const MemoryClassRaster r = random_landscape(w, h, 5, uint64_t(w * 17 + h), 0.1);
    check_raster("landscape", with_wide_codes(r), DeviceCellType::Int32, rule());
  }
  check_raster("noise 28", with_wide_codes(to_raster(bench::uniform_noise(300, 211, 28, 8), 300, 211, -1)),
               DeviceCellType::Int32, rule());
  check_raster("serpentine", with_wide_codes(to_raster(serpentine(161, 143), 161, 143, -1)), DeviceCellType::Int32,
               rule());
  check_raster("all nodata", to_raster(bench::one_class(40, 40), 40, 40, 1), DeviceCellType::Int32, rule());
}

// Grids the labeler cannot index are refused before any work: empty ones,
// and ones whose rows, rounded up to 32 cells for the union-find's indices,
// hold 2^31 cells or more (a single column of 2^26 rows: 67 M cells, 2^31
// once rounded). No cell is read, so no grid memory is needed.
TEST(DeviceGridLabelingBadInput, EmptyOrTooLargeGridsAreRefused) {
  LSM_REQUIRE_CUDA();
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    DeviceGridLabeler labeler(stream);
    DeviceClassGrid grid;
    grid.cells = nullptr;
    grid.width = 0;
    grid.height = 10;
    EXPECT_THROW(labeler.enqueue(grid, NeighbourRule::Eight, nullptr, nullptr), Error);
    grid.width = 1;
    grid.pitch = 1;
    grid.height = 1 << 26;
    try {
      labeler.enqueue(grid, NeighbourRule::Eight, nullptr, nullptr);
      ADD_FAILURE() << "a 1 x 2^26 grid was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput);
      EXPECT_NE(std::string(e.what()).find("rounded up to 32"), std::string::npos) << e.what();
    }
  }
  cudaStreamDestroy(stream);
}

INSTANTIATE_TEST_SUITE_P(NeighbourRules, DeviceGridLabeling, ::testing::Values(4, 8),
                         [](const auto& info) { return "rule" + std::to_string(info.param); });

}  // namespace
}  // namespace lsm::test
