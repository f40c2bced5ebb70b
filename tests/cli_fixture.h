#pragma once
// A scratch folder per test and a way to run the lsm binary in it, for the
// tests of the command line.
#include <gdal_priv.h>
#include <gtest/gtest.h>
#include <ogr_spatialref.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace lsm::test {

struct CliRun {
  int code;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("lsm_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Runs `lsm ARGS` (LSM_BINARY), capturing stdout and stderr.
  CliRun run_lsm(const std::string& args) { return run_shell(std::string(LSM_BINARY) + " " + args); }

  /// Runs one of GDAL's tools (gdalinfo ...) with lsm's plugin driver on its
  /// path; in the sanitizer suite (tools/run_sanitized_tests.sh) with the
  /// ASan runtime preloaded, which the instrumented plugin needs.
  CliRun run_gdal_tool(const std::string& tool_and_args) {
    const char* preload = std::getenv("LSM_ASAN_PRELOAD");
    return run_shell((preload && *preload ? std::string("LD_PRELOAD=") + preload + " " : std::string()) +
                     "GDAL_DRIVER_PATH=" + LSM_PLUGIN_DIR + " " + tool_and_args);
  }

  /// Runs a shell command line, capturing stdout and stderr.
  CliRun run_shell(const std::string& command) {
    const std::string cmd = command + " >" + (dir_ / "stdout.txt").string() + " 2>" + (dir_ / "stderr.txt").string();
    const int status = std::system(cmd.c_str());
    CliRun r{WEXITSTATUS(status), slurp(dir_ / "stdout.txt"), slurp(dir_ / "stderr.txt")};
    std::filesystem::remove(dir_ / "stdout.txt");
    std::filesystem::remove(dir_ / "stderr.txt");
    return r;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// The names in the scratch folder, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  /// Writes a 4 x 3 single-band GeoTIFF `name` of `type` with `values`
  /// (row-major), geotransform `gt` and CRS EPSG:`epsg`; returns its path.
  std::string write_4x3(const std::string& name, GDALDataType type, const double (&gt)[6], int epsg,
                        const std::vector<double>& values) {
    GDALAllRegister();
    GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path(name).c_str(), 4, 3, 1, type, nullptr);
    double t[6];
    std::copy(gt, gt + 6, t);
    d->SetGeoTransform(t);
    OGRSpatialReference srs;
    srs.importFromEPSG(epsg);
    d->SetSpatialRef(&srs);
    std::vector<double> v = values;
    EXPECT_EQ(d->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 4, 3, v.data(), 4, 3, GDT_Float64, 0, 0), CE_None);
    GDALClose(d);
    return path(name);
  }

  // A w x h GeoTIFF of `bands` Float32 bands (UTM 32N, 10 m cells), values f(x, y, band).
  template <class F>
  std::string make_raster(const std::string& name, int w, int h, int bands, F f) {
    GDALAllRegister();
    GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path(name).c_str(), w, h, bands,
                                                                               GDT_Float32, nullptr);
    double gt[6] = {600000, 10, 0, 5100000, 0, -10};
    d->SetGeoTransform(gt);
    OGRSpatialReference srs;
    srs.importFromEPSG(32632);
    d->SetSpatialRef(&srs);
    for (int b = 0; b < bands; ++b) {
      std::vector<float> v(static_cast<size_t>(w) * h);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) v[y * w + x] = f(x, y, b);
      EXPECT_EQ(d->GetRasterBand(b + 1)->RasterIO(GF_Write, 0, 0, w, h, v.data(), w, h, GDT_Float32, 0, 0), CE_None);
    }
    GDALClose(d);
    return path(name);
  }

  struct Raster {
    int width = 0, height = 0, bands = 0;
    double gt[6] = {0};
    std::vector<std::vector<float>> band;
    std::vector<std::string> names;
  };
  static Raster read(const std::string& file) {
    Raster r;
    GDALAllRegister();
    GDALDataset* d = static_cast<GDALDataset*>(GDALOpen(file.c_str(), GA_ReadOnly));
    EXPECT_NE(d, nullptr) << file;
    if (!d) return r;
    r.width = d->GetRasterXSize();
    r.height = d->GetRasterYSize();
    r.bands = d->GetRasterCount();
    d->GetGeoTransform(r.gt);
    for (int b = 1; b <= r.bands; ++b) {
      std::vector<float> v(static_cast<size_t>(r.width) * r.height);
      EXPECT_EQ(d->GetRasterBand(b)->RasterIO(GF_Read, 0, 0, r.width, r.height, v.data(), r.width, r.height,
                                              GDT_Float32, 0, 0), CE_None);
      r.band.push_back(std::move(v));
      r.names.push_back(d->GetRasterBand(b)->GetDescription());
    }
    GDALClose(d);
    return r;
  }

  // One line on stderr naming the problem, a non-zero exit, nothing written.
  void expect_clean_failure(const CliRun& r, const std::string& phrase, const std::vector<std::string>& files_before) {
    EXPECT_NE(r.code, 0);
    // One line besides the progress the run had shown (stderr: "0...10..", ended by a newline).
    size_t lines = 0;
    std::istringstream err(r.err);
    for (std::string line; std::getline(err, line);)
      if (line.find_first_not_of("0123456789.") != std::string::npos) ++lines;
    EXPECT_EQ(lines, 1u) << r.err;
    EXPECT_EQ(r.err.back(), '\n') << r.err;
    EXPECT_NE(r.err.find("lsm: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(phrase), std::string::npos) << "expected '" << phrase << "' in: " << r.err;
    EXPECT_EQ(files(), files_before);
  }

  std::filesystem::path dir_;
};

}  // namespace lsm::test
