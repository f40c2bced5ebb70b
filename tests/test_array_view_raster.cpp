// ArrayViewClassRaster (metrics/core/array_view_raster.h): a caller's array
// read in place. Every cell type reads the same class codes, nodata and
// INT32_MIN become kNoClass, rows apart in memory read right, bad shapes are
// refused, and the landscape job's tables equal those of MemoryClassRaster.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <limits>
#include <vector>

#include "array_view_raster.h"
#include "error.h"
#include "fragstats_tables.h"
#include "landscape_job.h"
#include "memory_raster.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

// Runs `f`, expecting lsm::Error of `kind` whose message holds `words`.
template <class F>
void expect_error(ErrorKind kind, const std::string& words, F f) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one with '" << words << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

const std::vector<int32_t> kCodes = {1, 1, 2, 2,  //
                                     1, 2, 7, 2,  //
                                     3, 3, 3, 2};

template <class T>
std::vector<int32_t> read_all(ArrayCellType type, std::optional<double> nodata) {
  const std::vector<T> cells(kCodes.begin(), kCodes.end());
  ArrayViewClassRaster raster(cells.data(), type, 4, 3, 4, 30, 30, nodata);
  std::vector<int32_t> out(12);
  raster.read(Window{0, 0, 4, 3}, out.data());
  return out;
}

TEST(ArrayViewRaster, EveryCellTypeReadsTheSameCodesWithNodata) {
  std::vector<int32_t> expected = kCodes;
  expected[6] = kNoClass;  // the 7
  EXPECT_EQ(read_all<uint8_t>(ArrayCellType::UInt8, 7), expected);
  EXPECT_EQ(read_all<uint16_t>(ArrayCellType::UInt16, 7), expected);
  EXPECT_EQ(read_all<int16_t>(ArrayCellType::Int16, 7), expected);
  EXPECT_EQ(read_all<int32_t>(ArrayCellType::Int32, 7), expected);
  EXPECT_EQ(read_all<uint8_t>(ArrayCellType::UInt8, std::nullopt), kCodes);
  // A nodata value the type cannot hold marks no cell (300 in uint8 is not 44).
  EXPECT_EQ(read_all<uint8_t>(ArrayCellType::UInt8, 300), kCodes);
  EXPECT_EQ(read_all<uint8_t>(ArrayCellType::UInt8, 7.5), kCodes);
}

TEST(ArrayViewRaster, ReadsAWindowOfRowsApartIntoAStride) {
  // Rows 6 cells apart, 4 of them the raster's (as numpy's a[:, :4] of a 6-wide array).
  std::vector<int16_t> cells(3 * 6, -1);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) cells[y * 6 + x] = static_cast<int16_t>(kCodes[y * 4 + x]);
  ArrayViewClassRaster raster(cells.data(), ArrayCellType::Int16, 4, 3, 6, 1, 1, std::nullopt);
  std::vector<int32_t> out(2 * 5, 99);
  raster.read(Window{1, 1, 3, 2}, out.data(), 5);
  EXPECT_EQ(out, (std::vector<int32_t>{2, 7, 2, 99, 99, 3, 3, 2, 99, 99}));
  EXPECT_EQ(raster.info().width, 4);
  EXPECT_EQ(raster.info().height, 3);
}

TEST(ArrayViewRaster, Int32MinimumIsOutsideTheLandscape) {
  const std::vector<int32_t> cells = {1, std::numeric_limits<int32_t>::min(), 1, 2};
  ArrayViewClassRaster raster(cells.data(), ArrayCellType::Int32, 2, 2, 2, 1, 1, std::nullopt);
  std::vector<int32_t> out(4);
  raster.read(Window{0, 0, 2, 2}, out.data());
  EXPECT_EQ(out[1], kNoClass);
}

TEST(ArrayViewRaster, NegativeCodesAreTheBorderAndRefused) {
  const std::vector<int16_t> cells = {1, 2, -12, 2, -1, 1};
  ArrayViewClassRaster raster(cells.data(), ArrayCellType::Int16, 3, 2, 3, 1, 1, std::nullopt);
  std::vector<int32_t> out(6);
  expect_error(ErrorKind::BadInput, "negative class code -12 at column 2, row 0", [&] {
    raster.read(Window{0, 0, 3, 2}, out.data());
  });
  ArrayViewClassRaster as_nodata(cells.data(), ArrayCellType::Int16, 3, 2, 3, 1, 1, -12);  // nodata: fine
  expect_error(ErrorKind::BadInput, "negative class code -1 at column 1, row 1", [&] {
    as_nodata.read(Window{0, 0, 3, 2}, out.data());
  });
  as_nodata.read(Window{0, 0, 3, 1}, out.data());  // the first row has no other negative code
  EXPECT_EQ(out[2], kNoClass);
}

TEST(ArrayViewRaster, RefusesWhatIsNoRaster) {
  const std::vector<uint8_t> cells(4, 1);
  const auto make = [&](const void* p, int64_t w, int64_t h, int64_t stride, double cw) {
    ArrayViewClassRaster r(p, ArrayCellType::UInt8, w, h, stride, cw, 1, std::nullopt);
  };
  expect_error(ErrorKind::BadInput, "no cells", [&] { make(nullptr, 2, 2, 2, 1); });
  expect_error(ErrorKind::BadInput, "at least one row and one column", [&] { make(cells.data(), 0, 2, 2, 1); });
  expect_error(ErrorKind::BadInput, "rows overlap", [&] { make(cells.data(), 2, 2, 1, 1); });
  expect_error(ErrorKind::BadInput, "positive number of metres", [&] { make(cells.data(), 2, 2, 2, 0); });
  expect_error(ErrorKind::BadInput, "positive number of metres", [&] { make(cells.data(), 2, 2, 2, std::nan("")); });
}

TEST(ArrayViewRaster, LandscapeJobEqualsTheMemoryRastersTables) {
  const int64_t w = 97, h = 61;
  std::vector<int32_t> codes(w * h);
  for (int64_t i = 0; i < w * h; ++i) codes[i] = static_cast<int32_t>((i * 7919 / 13 + i / w) % 5);
  const std::vector<uint8_t> bytes(codes.begin(), codes.end());
  LandscapeJobOptions options;
  options.backend = Backend::Cpu;
  MemoryClassRaster memory(w, h, codes, 30, 30);
  ArrayViewClassRaster view(bytes.data(), ArrayCellType::UInt8, w, h, w, 30, 30, std::nullopt);
  const LandscapeResults a = run_landscape_job(memory, options), b = run_landscape_job(view, options);
  for (const auto level : {MetricLevel::Patch, MetricLevel::Class, MetricLevel::Landscape}) {
    const MetricTable& ta = level == MetricLevel::Patch ? a.metrics.patch : level == MetricLevel::Class ? a.metrics.cls : a.metrics.land;
    const MetricTable& tb = level == MetricLevel::Patch ? b.metrics.patch : level == MetricLevel::Class ? b.metrics.cls : b.metrics.land;
    std::ostringstream sa, sb;
    write_table_csv(sa, ta, level);
    write_table_csv(sb, tb, level);
    EXPECT_EQ(sa.str(), sb.str());
    EXPECT_FALSE(ta.rows.empty());
  }
}

}  // namespace
}  // namespace lsm::test
