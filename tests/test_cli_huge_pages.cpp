// lsm restarts on huge pages for a large input only (tools/cli/huge_page_start.h),
// and its tables are the same bytes either way.
#include <gdal_priv.h>

#include <vector>

#include "cli_fixture.h"
#include "huge_page_malloc.h"
#include "huge_page_start.h"

namespace lsm::test {
namespace {

class CliHugePages : public CliFixture {};

constexpr const char* kRestarted = "restarting with glibc's malloc on huge pages";

int times_said(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(CliHugePages, ALargeInputRestartsOnceWithTheSameTables) {
  if (std::getenv("LSM_ASAN_PRELOAD")) GTEST_SKIP() << "the sanitizer build keeps its own malloc";
  if (!wants_huge_page_restart(this_process_setting()))
    GTEST_SKIP() << "this machine gains nothing from the restart (THP not in madvise mode, glibc before 2.35, "
                    "LSM_HUGE_PAGES=0 or a preloaded library)";
  // 2048 x 2048 cells, exactly the threshold: diagonal bands of three classes.
  const int side = 2048;
  static_assert(int64_t{2048} * 2048 == cli::kLargeInputCells, "the raster sits on the threshold");
  GDALAllRegister();
  const char* options[] = {"COMPRESS=DEFLATE", "TILED=YES", nullptr};
  GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(
      path("large.tif").c_str(), side, side, 1, GDT_Byte, const_cast<char**>(options));
  ASSERT_NE(d, nullptr);
  const double gt[6] = {0, 30, 0, 0, 0, -30};
  d->SetGeoTransform(const_cast<double*>(gt));
  std::vector<uint8_t> row(side);
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) row[static_cast<size_t>(x)] = static_cast<uint8_t>(((x / 37) + (y / 23)) % 3 + 1);
    ASSERT_EQ(d->GetRasterBand(1)->RasterIO(GF_Write, 0, y, side, 1, row.data(), side, 1, GDT_Byte, 0, 0), CE_None);
  }
  GDALClose(d);

  const CliRun restarted = run_lsm("metrics " + path("large.tif") + " --out " + path("hp") + " -q --debug ON");
  ASSERT_EQ(restarted.code, 0) << restarted.err;
  EXPECT_EQ(times_said(restarted.err, kRestarted), 1) << "once, by the first process";
  const CliRun as_started = run_shell("LSM_HUGE_PAGES=0 " + std::string(LSM_BINARY) + " metrics " + path("large.tif") +
                                      " --out " + path("plain") + " -q --debug ON");
  ASSERT_EQ(as_started.code, 0) << as_started.err;
  EXPECT_EQ(times_said(as_started.err, kRestarted), 0) << "LSM_HUGE_PAGES=0 keeps it as started";
  for (const char* table : {".patch.csv", ".class.csv", ".land.csv", ".adj.csv"}) {
    const std::string a = slurp(path(std::string("hp") + table)), b = slurp(path(std::string("plain") + table));
    EXPECT_FALSE(a.empty()) << table;
    EXPECT_EQ(a, b) << table;
  }

  const std::string small = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";
  const CliRun small_run = run_lsm("metrics " + small + " --out " + path("small") + " -q --debug ON");
  ASSERT_EQ(small_run.code, 0) << small_run.err;
  EXPECT_EQ(times_said(small_run.err, kRestarted), 0) << "a small raster is not worth the restart";
}

}  // namespace
}  // namespace lsm::test
