// Regression tests from fuzzing lsm (issue "Hardening"): inputs are never
// overwritten, every failure names its cause, options are bounded, degenerate
// rasters are refused or defined, and runs are deterministic.
#include <cpl_error.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <optional>

#include "cli_fixture.h"
#include "error.h"
#include "geotiff_output.h"

namespace lsm::test {
namespace {

class Hardening : public CliFixture {
 protected:
  std::string sample() const { return std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif"; }

  /// A copy of the sample raster in the scratch folder, as `name`.
  std::string copy_of_sample(const std::string& name) {
    std::filesystem::create_directories(std::filesystem::path(path(name)).parent_path());
    std::filesystem::copy_file(sample(), path(name), std::filesystem::copy_options::overwrite_existing);
    return path(name);
  }

  /// Writes `width` x `height` Byte cells of `value` (`creation` options).
  std::string write_filled(const std::string& name, int width, int height, int value, std::vector<const char*> creation,
                           std::optional<double> nodata = std::nullopt) {
    GDALAllRegister();
    creation.push_back(nullptr);
    GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(
        path(name).c_str(), width, height, 1, GDT_Byte, const_cast<char**>(creation.data()));
    const double gt[6] = {0, 30, 0, 0, 0, -30};
    d->SetGeoTransform(const_cast<double*>(gt));
    if (nodata) d->GetRasterBand(1)->SetNoDataValue(*nodata);
    if (value != 0) d->GetRasterBand(1)->Fill(value);
    GDALClose(d);
    return path(name);
  }

  /// The sample written as a striped LZW GeoTIFF (10 rows a strip).
  std::string striped_lzw(const std::string& name) {
    GDALAllRegister();
    GDALDataset* src = GDALDataset::Open(sample().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY);
    const char* options[] = {"COMPRESS=LZW", "BLOCKYSIZE=10", nullptr};
    GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->CreateCopy(
        path(name).c_str(), src, FALSE, const_cast<char**>(options), nullptr, nullptr);
    GDALClose(d);
    GDALClose(src);
    return path(name);
  }
};

// The command lines that write one output from INPUT, with OUT for the output.
std::vector<std::string> commands_with_output() {
  return {"label INPUT OUT -q",        "patchmetric INPUT OUT --metric AREA -q", "kmeans INPUT OUT --k 3 -q",
          "gradient INPUT OUT -q",     "hog INPUT OUT -q",                       "fuzzy INPUT OUT --seed 10,10 -q"};
}

std::string with(std::string command, const std::string& input, const std::string& output) {
  command.replace(command.find("INPUT"), 5, input);
  command.replace(command.find("OUT"), 3, output);
  return command;
}

TEST_F(Hardening, AnOutputThatIsTheInputIsRefusedForEveryCommand) {
  const std::string input = copy_of_sample("in.tif");
  const std::string before = slurp(input);
  std::filesystem::create_directories(path("sub"));
  std::filesystem::create_symlink(input, path("link.tif"));
  // The same file spelled as itself, through a symlink, through "sub/..", and
  // its .aux.xml sidecar.
  const std::vector<std::pair<std::string, std::string>> spellings = {
      {input, input}, {path("link.tif"), input}, {input, path("sub/../in.tif")}, {input, path("link.tif")},
      {input, input + ".aux.xml"}};
  for (const std::string& command : commands_with_output())
    for (const auto& [in, out] : spellings) {
      SCOPED_TRACE(with(command, in, out));
      const CliRun r = run_lsm(with(command, in, out));
      EXPECT_EQ(r.code, 1);
      EXPECT_NE(r.err.find("lsm never overwrites an input"), std::string::npos) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  // pyramid: the input is OUTDIR/level_00.tif; metrics: a table named like the input.
  std::filesystem::create_directories(path("levels"));
  std::filesystem::copy_file(input, path("levels/level_00.tif"));
  const CliRun pyramid = run_lsm("pyramid " + path("levels/level_00.tif") + " " + path("levels") + " -q");
  EXPECT_EQ(pyramid.code, 1);
  EXPECT_NE(pyramid.err.find("lsm never overwrites an input"), std::string::npos) << pyramid.err;
  EXPECT_TRUE(slurp(path("levels/level_00.tif")) == before);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(path("levels")), {}), 1);
  // Through an LSM: string, whose dataset lists its source file (GetFileList).
  const CliRun through_driver = run_shell(std::string("GDAL_DRIVER_PATH=") + LSM_PLUGIN_DIR + " " + LSM_BINARY +
                                          " label LSM:label:" + input + " " + input + " -q");
  EXPECT_EQ(through_driver.code, 1);
  EXPECT_NE(through_driver.err.find("lsm never overwrites an input"), std::string::npos) << through_driver.err;
  const CliRun metrics = run_lsm("metrics " + input + " --out " + path("in.tif.aux") + " -q");  // .aux.csv etc.: fine
  EXPECT_EQ(metrics.code, 0) << metrics.err;
  EXPECT_TRUE(slurp(input) == before);
}

// Successful runs leave nothing beside their input (no .aux.xml statistics).
TEST_F(Hardening, NoCommandWritesASidecarBesideItsInput) {
  const std::string input = copy_of_sample("in/in.tif");
  for (const std::string& command : commands_with_output()) {
    const CliRun r = run_lsm(with(command, input, path("out.tif")));
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
  }
  EXPECT_EQ(run_lsm("metrics " + input + " --out " + path("m") + " -q").code, 0);
  EXPECT_EQ(run_lsm("pyramid " + input + " " + path("levels") + " --levels 3 -q").code, 0);
  std::vector<std::string> beside;
  for (const auto& e : std::filesystem::directory_iterator(path("in"))) beside.push_back(e.path().filename().string());
  EXPECT_EQ(beside, std::vector<std::string>{"in.tif"});
}

// Truncated and corrupted GeoTIFFs: the error line ends with GDAL's reason.
// A run's cancel flag stops the final copy of a copy-only format (the COG a
// service job writes: a dismissal or a time-out reaches it) and nothing is
// left; the output limit refuses a raster before it is created.
TEST_F(Hardening, CancelStopsTheFinalCopyAndTheOutputLimitHolds) {
  GDALAllRegister();
  std::atomic<bool> cancel{false};
  RasterFormat cog;
  cog.driver = "COG";
  cog.staging_dir = path("");
  cog.cancel = &cancel;
  const auto before = files();
  {
    GeoTiffOutput out(path("o.tif"), cog, 512, 512, GDT_Float32, GeoReference{}, std::nullopt);
    std::vector<float> cells(512 * 512, 1.5f);
    out.write(Window{0, 0, 512, 512}, cells.data(), GDT_Float32);
    cancel = true;  // as a DELETE during the copy would
    try {
      out.commit();
      ADD_FAILURE() << "the copy was not stopped";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "interrupted");
    }
  }
  EXPECT_EQ(files(), before);
  cancel = false;
  {
    GeoTiffOutput out(path("o.tif"), cog, 64, 64, GDT_Float32, GeoReference{}, std::nullopt);
    std::vector<float> cells(64 * 64, 1.5f);
    out.write(Window{0, 0, 64, 64}, cells.data(), GDT_Float32);
    out.commit();
  }
  EXPECT_TRUE(std::filesystem::exists(path("o.tif")));
  RasterFormat limited;
  limited.max_bytes = 1 << 20;
  try {
    GeoTiffOutput big(path("big.tif"), limited, 1024, 1024, GDT_Float32, GeoReference{}, std::nullopt);
    ADD_FAILURE() << "a 4 MiB raster passed a 1 MiB limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    EXPECT_NE(std::string(e.what()).find("would hold 4194304 bytes (1024 x 1024 cells, 1 bands), more than the limit of "
                                         "1048576 bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path("big.tif")));
}

TEST_F(Hardening, ReadFailuresNameGdalsReason) {
  const std::string lzw = striped_lzw("lzw.tif");
  const std::string bytes = slurp(lzw);
  std::ofstream(path("truncated.tif"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::string corrupted = bytes;
  for (size_t i = 2000; i + 3000 < corrupted.size(); i += 97) corrupted[i] ^= 0x5a;
  std::ofstream(path("corrupted.tif"), std::ios::binary) << corrupted;
  for (const char* name : {"truncated.tif", "corrupted.tif"})
    for (const std::string command : {"metrics " + path(name) + " --out " + path("m") + " -q",
                                      "label " + path(name) + " " + path("l.tif") + " -q",
                                      "kmeans " + path(name) + " " + path("k.tif") + " --k 2 -q"}) {
      SCOPED_TRACE(command);
      const CliRun r = run_lsm(command);
      EXPECT_EQ(r.code, 1);
      ASSERT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      const std::string reason = r.err.substr(r.err.rfind(": ") + 2);
      EXPECT_GT(reason.size(), 6u) << r.err;  // never "...'x.tif': " with nothing after the colon
      EXPECT_EQ(reason.find("GDAL gave no reason"), std::string::npos) << r.err;
    }
  EXPECT_EQ(files(), (std::vector<std::string>{"corrupted.tif", "lzw.tif", "truncated.tif"}));
}

// A raster without any patch (all nodata, a single nodata cell) gives
// tables with their headers and empty values, never inf.
TEST_F(Hardening, ARasterWithoutPatchesGivesEmptyTables) {
  write_filled("nodata.tif", 30, 20, 0, {}, 0.0);
  write_filled("one.tif", 1, 1, 7, {}, 7.0);
  for (const char* name : {"nodata.tif", "one.tif"}) {
    SCOPED_TRACE(name);
    const CliRun r = run_lsm("metrics " + path(name) + " --out " + path("m") + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string cls = slurp(path("m.class.csv")), land = slurp(path("m.land.csv"));
    EXPECT_EQ(std::count(cls.begin(), cls.end(), '\n'), 1) << cls;  // the header alone
    EXPECT_EQ(slurp(path("m.patch.csv")).find('\n') + 1, slurp(path("m.patch.csv")).size());
    EXPECT_EQ(land.find("inf"), std::string::npos) << land;
    EXPECT_EQ(land.find("nan"), std::string::npos) << land;
    EXPECT_EQ(run_lsm("label " + path(name) + " " + path("l.tif") + " -q").code, 0);
    EXPECT_EQ(run_lsm("patchmetric " + path(name) + " " + path("p.tif") + " --metric ENN -q").code, 0);
  }
}

// A damaged header that makes every block gigabytes (58 881 samples per
// pixel, found by bench/fuzz_campaign.py: GDAL would decode 3.9 GB for one
// block) is refused before any read.
TEST_F(Hardening, RastersWithHugeBlocksAreRefused) {
  const std::string damaged =
      std::string(LSM_SOURCE_DIR) + "/tests/fuzz/corpus/class_raster/found_58881_bands_interleaved_by_pixel";
  for (const std::string command : {"metrics " + damaged + " --out " + path("m"), "label " + damaged + " " + path("l.tif"),
                                    "kmeans " + damaged + " " + path("k.tif") + " --k 2"}) {
    const CliRun r = run_lsm(command + " -q");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("x 58881 bands take 3.9 GB each, more than lsm reads at once (1 GB)"), std::string::npos)
        << r.err;
  }
  EXPECT_TRUE(files().empty());
}

// A raster too wide for memory is refused before any work, naming the sizes.
TEST_F(Hardening, ATooWideRasterIsRefusedClearly) {
  write_filled("wide.tif", 2147483647, 2, 0, {"SPARSE_OK=YES"});
  const CliRun r = run_lsm("metrics " + path("wide.tif") + " --out " + path("m") + " -q");
  EXPECT_EQ(r.code, 1);
  // Striped: one block is a whole row (2.1 GB), refused before the strips are planned.
  EXPECT_NE(r.err.find("its blocks of 2147483647 x 1 cells take 2.1 GB each"), std::string::npos) << r.err;
  // Tiled: small blocks, but a strip of whole rows would not fit.
  write_filled("wide_tiled.tif", 2147483647, 2, 0, {"SPARSE_OK=YES", "TILED=YES"});
  const CliRun tiled = run_lsm("metrics " + path("wide_tiled.tif") + " --out " + path("m") + " -q");
  EXPECT_EQ(tiled.code, 1);
  EXPECT_NE(tiled.err.find("a row of 2147483647 cells needs"), std::string::npos) << tiled.err;
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
}

// A sparse raster of 604 Mcells (a 2.4 GB patch-ID raster; a few hundred kB
// on disk) through the driver's LSM:label streams: the first block read does
// not allocate the whole raster. --max-cells refuses it before any work.
TEST_F(Hardening, SparseRastersStreamInBoundedMemory) {
  write_filled("sparse.tif", 24576, 24576, 0, {"SPARSE_OK=YES", "TILED=YES", "COMPRESS=DEFLATE"}, 0.0);
  const CliRun r = run_gdal_tool("GDAL_CACHEMAX=64 gdal_translate -q -srcwin 0 0 256 256 LSM:label:" + path("sparse.tif") +
                                 " " + path("block.tif"));
  ASSERT_EQ(r.code, 0) << r.err;
  struct rusage usage {};
  getrusage(RUSAGE_CHILDREN, &usage);
  EXPECT_LT(usage.ru_maxrss, 1200 * 1024) << "peak resident memory in kB; the whole raster would take 2.4 GB";
  const CliRun refused = run_lsm("metrics " + path("sparse.tif") + " --out " + path("m") + " --max-cells 100000000");
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("the input has 603979776 cells, more than --max-cells 100000000"), std::string::npos)
      << refused.err;
}

// Every image operation checks its needs against --memory-limit before any
// work (no output created, no GB allocated) and says what it needs; on a
// small raster each runs within a small limit.
TEST_F(Hardening, ImageOperationsCheckTheirMemoryBeforeAnyWork) {
  write_filled("wide.tif", 2147483647, 2, 0, {"SPARSE_OK=YES", "TILED=YES"});
  write_filled("sparse.tif", 65536, 65536, 0, {"SPARSE_OK=YES", "TILED=YES", "COMPRESS=DEFLATE"});
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"gradient " + path("wide.tif") + " " + path("g.tif"), "error: gradient needs about"},
      {"pyramid " + path("wide.tif") + " " + path("levels") + " --levels 2", "error: pyramid needs about"},
      {"hog " + path("wide.tif") + " " + path("h.tif"), "error: hog needs about"},
      {"kmeans " + path("wide.tif") + " " + path("k.tif") + " --k 2", "error: kmeans needs about"},
      {"kmeans " + path("sparse.tif") + " " + path("k.tif") + " --k 2 --memory 100", "--memory is 100.00 MiB"},
      {"fuzzy " + path("sparse.tif") + " " + path("f.tif") + " --seed 1,1", "error: fuzzy needs about 32.00 GiB"},
      {"synth " + path("s.tif") + " --width 1000000 --height 10 --memory-limit 64M", "error: synth needs about 1.91 GiB"},
  };
  for (const auto& [command, message] : refused) {
    const CliRun r = run_lsm(command + " -q");
    EXPECT_EQ(r.code, 1) << command;
    EXPECT_NE(r.err.find(message), std::string::npos) << command << ": " << r.err;
    EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
    struct rusage usage {};
    getrusage(RUSAGE_CHILDREN, &usage);
    EXPECT_LT(usage.ru_maxrss, 1200 * 1024) << command << ": peak resident memory in kB";
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"sparse.tif", "wide.tif"}));
  const std::string in = sample();
  for (const std::string command : {"gradient " + in + " " + path("g.tif"), "pyramid " + in + " " + path("levels"),
                                    "hog " + in + " " + path("h.tif"), "kmeans " + in + " " + path("k.tif") + " --k 3",
                                    "fuzzy " + in + " " + path("f.tif") + " --seed 10,10"})
    EXPECT_EQ(run_lsm(command + " --memory-limit 16M -q").code, 0) << command;
}

// Options at and past their limits; 64-bit values are never narrowed.
TEST_F(Hardening, OptionsAreBoundedAndNeverNarrowed) {
  const std::string in = sample();
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"metrics " + in + " --out " + path("m") + " --edge-depth 1001", "--edge-depth must be in 1..1000 (got 1001)"},
      {"gradient " + in + " " + path("g.tif") + " --radius 4294967297", "--radius must be in 1..32 (got 4294967297)"},
      {"kmeans " + in + " " + path("k.tif") + " --k 3 --n-init 1000000", "--n-init must be in 1..100"},
      {"kmeans " + in + " " + path("k.tif") + " --k 4294967299", "--k must be in 2..65534 (got 4294967299)"},
      {"hog " + in + " " + path("h.tif") + " --bins 99999999999999999999", "--bins must be in 1..180"},
      {"synth " + path("s.tif") + " --cell-size nan", "--cell-size must be a finite number, not 'nan'"},
      {"synth " + path("s.tif") + " --cell-size 1e309", "--cell-size must be between"},
      {"pyramid " + in + " " + path("p") + " --levels 1000000", "--levels must be in 1..1000"},
      {"metrics " + in + " --out " + path("m") + " --max-cells 1000", "the input has 120000 cells, more than --max-cells 1000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const CliRun r = run_lsm(c.args);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  // Each spec: every number has a range, every integer fits an int64 exactly.
  const CliRun describe = run_lsm("--describe");
  size_t unbounded = 0, at = 0;
  while ((at = describe.out.find("\"type\": \"integer\"", at + 1)) != std::string::npos) {
    const size_t end = describe.out.find('}', at);
    const std::string p = describe.out.substr(at, end - at);
    if (p.find("\"maximum\"") == std::string::npos) ++unbounded;
  }
  EXPECT_EQ(unbounded, 0u) << "integer parameters without a maximum in lsm --describe";
}

// --init files: NaN, beyond float, endless, a folder: one line naming it.
TEST_F(Hardening, InitialCentresFilesAreReadWithLimits) {
  std::ofstream(path("nan.txt")) << "1\nnan\n2\n";
  std::ofstream(path("huge.txt")) << "1\n1e308\n2\n";
  std::filesystem::create_directories(path("folder"));
  const std::string kmeans = "kmeans " + sample() + " " + path("k.tif") + " --k 3 --init ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {path("nan.txt"), "'nan' is not a finite number"},
      {path("huge.txt"), "'1e308' is beyond the 32-bit floating-point range"},
      {"/dev/zero", "is larger than 16 MiB"},
      {path("folder"), "is a folder"}};
  for (const auto& [file, message] : cases) {
    SCOPED_TRACE(file);
    const CliRun r = run_lsm(kmeans + file + " -q");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

// Cell sizes of zero or 1e308, or a sheared geotransform, cannot be measured;
// a rotated raster is measured along its axes (same tables as north-up).
TEST_F(Hardening, DegenerateGeoreferencingIsRefusedOrDefined) {
  GDALAllRegister();
  const auto with_geotransform = [&](const std::string& name, std::vector<double> gt) {
    const std::string p = copy_of_sample(name);
    GDALDataset* d = GDALDataset::Open(p.c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE);
    d->SetGeoTransform(gt.data());
    GDALClose(d);
    return p;
  };
  const std::vector<std::pair<std::vector<double>, std::string>> refused = {
      {{4000000, 0, 0, 3000000, 0, 0}, "has a cell size of 0 map units"},
      {{0, 1e308, 0, 0, 0, -1e308}, "has a cell size of 1e+308 map units"},
      {{0, 30, 5, 0, 0, -30}, "has a sheared geotransform"}};
  for (const auto& [gt, message] : refused) {
    const CliRun r = run_lsm("metrics " + with_geotransform("bad.tif", gt) + " --out " + path("m") + " -q");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  const std::string rotated = with_geotransform("rotated.tif", {0, 24, -18, 0, -18, -24});  // 30 m cells, rotated
  ASSERT_EQ(run_lsm("metrics " + rotated + " --out " + path("r") + " -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + sample() + " --out " + path("n") + " -q").code, 0);
  EXPECT_EQ(slurp(path("r.land.csv")), slurp(path("n.land.csv")));
}

// The driver reports a failure once, with GDAL's reason, and quotes at most
// 200 characters of a connection string.
TEST_F(Hardening, DriverFailuresAreReportedOnceWithTheirReason) {
  GDALAllRegister();
  CPLSetConfigOption("GDAL_DRIVER_PATH", LSM_PLUGIN_DIR);
  GetGDALDriverManager()->AutoLoadDrivers();
  std::vector<std::string> messages;
  CPLPushErrorHandlerEx(
      [](CPLErr level, CPLErrorNum, const char* message) {
        if (level >= CE_Failure)
          static_cast<std::vector<std::string>*>(CPLGetErrorHandlerUserData())->push_back(message);
      },
      &messages);
  std::filesystem::create_directories(path("folder"));
  EXPECT_EQ(GDALOpen(("LSM:label:" + path("folder")).c_str(), GA_ReadOnly), nullptr);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("not a raster format GDAL can read"), std::string::npos) << messages[0];

  messages.clear();
  std::string long_string = "LSM:label:";
  for (int i = 0; i < 15000; ++i) long_string += "band=1:";
  long_string += std::string(50000, 'x');
  EXPECT_EQ(GDALOpen(long_string.c_str(), GA_ReadOnly), nullptr);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_LT(messages[0].size(), 400u);

  messages.clear();
  // A host that decodes on all cores (as lsm itself does): GDAL meets the
  // failure in one of its threads, whose messages go to the host's handler;
  // the driver still names GDAL's reason, once.
  const std::string threads = CPLGetConfigOption("GDAL_NUM_THREADS", "");
  CPLSetConfigOption("GDAL_NUM_THREADS", "ALL_CPUS");
  const std::string lzw = striped_lzw("lzw.tif");
  const std::string bytes = slurp(lzw);
  std::ofstream(path("truncated.tif"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  GDALDatasetH d = GDALOpen(("LSM:label:" + path("truncated.tif")).c_str(), GA_ReadOnly);
  ASSERT_NE(d, nullptr);
  std::vector<uint32_t> block(400 * 300);
  EXPECT_NE(GDALRasterIO(GDALGetRasterBand(d, 1), GF_Read, 0, 0, 400, 300, block.data(), 400, 300, GDT_UInt32, 0, 0),
            CE_None);
  GDALClose(d);
  CPLPopErrorHandler();
  CPLSetConfigOption("GDAL_NUM_THREADS", threads.empty() ? nullptr : threads.c_str());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("TIFF"), std::string::npos) << messages[0];
}

// SIGTERM in the middle of a pyramid: none of its levels is left.
TEST_F(Hardening, ASignalDuringAPyramidLeavesNoLevel) {
  ASSERT_EQ(run_lsm("synth " + path("big.tif") + " --width 6000 --height 6000 -q").code, 0);
  const CliRun r = run_shell("(" + std::string(LSM_BINARY) + " pyramid " + path("big.tif") + " " + path("levels") +
                             " -q & pid=$!; sleep 1.5; kill -TERM $pid; wait $pid)");
  EXPECT_EQ(r.code, 128 + 15) << "the run ended before the signal: make the raster larger";
  EXPECT_EQ(files(), std::vector<std::string>{"big.tif"});
}

// hog --pyramid: the levels appear together at the end, so a signal once
// the second level is being written (the first one done) leaves none.
TEST_F(Hardening, ASignalDuringAHogPyramidLeavesNoLevel) {
  ASSERT_EQ(run_lsm("synth " + path("big.tif") + " --width 3000 --height 3000 -q").code, 0);
  std::filesystem::create_directories(path("out"));
  const std::string out = path("out");
  const CliRun r = run_shell("(" + std::string(LSM_BINARY) + " hog " + path("big.tif") + " " + out +
                             "/h.tif --pyramid 8,1.2 -q & pid=$!; for i in $(seq 600); do ls -d " + out +
                             "/h_level_01.tif.lsm-tmp-* >/dev/null 2>&1 && break; sleep 0.05; done; kill -TERM $pid; wait $pid)");
  EXPECT_EQ(r.code, 128 + 15) << "the run ended before the signal";
  EXPECT_TRUE(std::filesystem::is_empty(out));
}

// Every file of an output dataset (ENVI's header, GDAL's .aux.xml of a PNG
// or an ENVI band description) appears at its final name, and only on
// success: nothing under a temporary name is left, before or after.
TEST_F(Hardening, SideFilesOfAnOutputAppearOnlyAtTheirFinalNames) {
  ASSERT_EQ(run_lsm("gradient " + sample() + " " + path("g.envi") + " -of ENVI -q").code, 0);
  ASSERT_EQ(run_lsm("synth " + path("ids.png") + " --width 60 --height 40 -of PNG -q").code, 0);
  ASSERT_EQ(run_lsm("patchmetric " + sample() + " " + path("area.tif") + " --metric AREA -of COG -q").code, 0);
  EXPECT_EQ(files(), (std::vector<std::string>{"area.tif", "g.envi", "g.envi.aux.xml", "g.hdr", "ids.png", "ids.png.aux.xml"}));
  // A run that fails after its output was created leaves none of its files.
  std::filesystem::create_directories(path("failed"));
  {
    GDALAllRegister();
    GDALDataset* f = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path("failed/half.tif").c_str(), 40, 30, 1,
                                                                            GDT_Float32, nullptr);
    std::vector<float> cells(40 * 30, 1.0f);
    cells[20 * 40 + 7] = 1.5f;  // not a class code: the scan stops there, the output already created
    const double gt[6] = {0, 30, 0, 0, 0, -30};
    f->SetGeoTransform(const_cast<double*>(gt));
    EXPECT_EQ(f->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 40, 30, cells.data(), 40, 30, GDT_Float32, 0, 0, nullptr), CE_None);
    GDALClose(f);
  }
  const CliRun r = run_lsm("label " + path("failed/half.tif") + " " + path("failed/ids.envi") + " -of ENVI -q");
  EXPECT_EQ(r.code, 1);
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(path("failed"))) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"half.tif"}));
}

// A raster too wide for the machine is refused by label and patchmetric
// before their output exists (the output folder here does not exist: were
// the output created first, that would be the error).
TEST_F(Hardening, TooWideRastersAreRefusedBeforeTheOutputExists) {
  const double memory = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));
  if (memory > 70e9) GTEST_SKIP() << "this machine holds three strips of 2^31 cells: nothing to refuse";
  std::ofstream(path("wide.vrt")) << "<VRTDataset rasterXSize=\"2147483647\" rasterYSize=\"2\">"
                                     "<VRTRasterBand dataType=\"Byte\" band=\"1\"/></VRTDataset>\n";
  for (const std::string& command : {std::string("label"), std::string("patchmetric --metric AREA")}) {
    const std::string name = command.substr(0, command.find(' '));
    const std::string args = command.find(' ') == std::string::npos ? "" : command.substr(command.find(' '));
    const CliRun r = run_lsm(name + " " + path("wide.vrt") + " " + path("no/such/folder/x.tif") + args + " -q");
    EXPECT_EQ(r.code, 1) << command;
    EXPECT_NE(r.err.find("the raster is too wide"), std::string::npos) << command << ": " << r.err;
  }
}

// The image operations take --temp-dir too: a copy-only format's staging
// GeoTIFF goes there, not beside the output, and is gone afterwards.
TEST_F(Hardening, CopyOnlyFormatsStageInTheScratchFolder) {
  std::filesystem::create_directories(path("scratch"));
  std::filesystem::create_directories(path("out"));
  const std::string scratch = " --temp-dir " + path("scratch") + " -q";
  ASSERT_EQ(run_lsm("gradient " + sample() + " " + path("out/g.tif") + " -of COG" + scratch).code, 0);
  ASSERT_EQ(run_lsm("synth " + path("out/s.png") + " --width 50 --height 40 -of PNG" + scratch).code, 0);
  ASSERT_EQ(run_lsm("pyramid " + sample() + " " + path("out/levels") + " --levels 2 -of COG" + scratch).code, 0);
  EXPECT_TRUE(std::filesystem::is_empty(path("scratch")));
  std::vector<std::string> made;
  for (const auto& e : std::filesystem::recursive_directory_iterator(path("out")))
    made.push_back(std::filesystem::relative(e.path(), path("out")).string());
  std::sort(made.begin(), made.end());
  EXPECT_EQ(made, (std::vector<std::string>{"g.tif", "levels", "levels/level_00.tif", "levels/level_01.tif", "s.png", "s.png.aux.xml"}));
  // A scratch folder that is not there: the run fails naming it, and leaves nothing.
  const CliRun r = run_lsm("gradient " + sample() + " " + path("out/h.tif") + " -of COG --temp-dir " + path("nowhere") + " -q");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(path("nowhere")), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("out/h.tif")));
}

// The same run twice, and with two tile sizes, writes the same bytes.
TEST_F(Hardening, RunsAreDeterministicAcrossRepeatsAndTileSizes) {
  const std::string in = sample();
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"label " + in + " OUT", {"--tile-size 64", "--tile-size 100x37"}},
      {"patchmetric " + in + " OUT --metric GYRATE", {"--tile-size 64", "--tile-size 100x37"}},
      {"kmeans " + in + " OUT --k 4 --stats " + path("STATS"), {"--tile-size 7", "--tile-size 300"}},
      {"gradient " + in + " OUT", {"--tile-size 5", "--tile-size 256"}},
      {"hog " + in + " OUT", {"--tile-size 1", "--tile-size 64"}},
      {"fuzzy " + in + " OUT --seed 10,10", {"", ""}},
      {"synth OUT --width 300 --height 200", {"", ""}}};
  for (const auto& [command, tiles] : commands) {
    std::vector<std::string> outputs, stats;
    for (int i = 0; i < 3; ++i) {
      const std::string tile = tiles[i == 2 ? 1 : 0];
      std::string c = command;
      c.replace(c.find("OUT"), 3, path("out" + std::to_string(i) + ".tif"));
      if (c.find("STATS") != std::string::npos) c.replace(c.find("STATS"), 5, "stats" + std::to_string(i) + ".json");
      SCOPED_TRACE(c + " " + tile);
      ASSERT_EQ(run_lsm(c + " " + tile + " -q").code, 0);
      outputs.push_back(slurp(path("out" + std::to_string(i) + ".tif")));
      if (command.find("STATS") != std::string::npos) {
        std::string s = slurp(path("stats" + std::to_string(i) + ".json"));
        // Timings aside: the "seconds" object is dropped.
        std::string kept;
        std::istringstream lines(s);
        bool timings = false;
        for (std::string line; std::getline(lines, line);) {
          if (line.find("\"seconds\"") != std::string::npos) timings = true;
          if (!timings) kept += line + "\n";
          if (timings && line.find('}') != std::string::npos) timings = false;
        }
        stats.push_back(kept);
      }
    }
    EXPECT_TRUE(outputs[0] == outputs[1]) << command << ": two runs differ";
    EXPECT_TRUE(outputs[0] == outputs[2]) << command << ": two tile sizes differ";
    if (!stats.empty()) {
      EXPECT_EQ(stats[0], stats[1]);
      EXPECT_EQ(stats[0], stats[2]);
    }
  }
  // A pyramid's levels, with two strip heights.
  ASSERT_EQ(run_lsm("pyramid " + in + " " + path("p7") + " --levels 4 --tile-size 7 -q").code, 0);
  ASSERT_EQ(run_lsm("pyramid " + in + " " + path("p256") + " --levels 4 --tile-size 256 -q").code, 0);
  for (const char* level : {"level_00.tif", "level_01.tif", "level_02.tif", "level_03.tif"})
    EXPECT_TRUE(slurp(path(std::string("p7/") + level)) == slurp(path(std::string("p256/") + level))) << level;
}

}  // namespace
}  // namespace lsm::test
