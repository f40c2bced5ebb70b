// The least a process that reads a GeoTIFF through GDAL can cost on this
// machine: it loads GDAL (and the libraries GDAL loads), registers the
// drivers, opens the raster, asks for its CRS (as lsm must, for the units of
// a cell's area) and reads band 1 into memory, and nothing else. Each step's
// time goes to stdout as one JSON line; time the whole process from outside
// (bench/cpu_peers.py --floor does) to get the start-up too. It sets the
// bound under which no GDAL-based tool's whole run can go; see
// docs/history/benchmark_log.md, "The floor of a GDAL-based process".
// Usage: lsm_bench_gdal_floor RASTER
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <chrono>
#include <cstdio>
#include <vector>

namespace {
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lsm_bench_gdal_floor RASTER\n");
    return 1;
  }
  const double t0 = now_ms();
  GDALAllRegister();
  const double t_register = now_ms();
  GDALDataset* ds = GDALDataset::Open(argv[1], GDAL_OF_RASTER | GDAL_OF_READONLY);
  if (!ds) {
    std::fprintf(stderr, "lsm_bench_gdal_floor: error: cannot open '%s'\n", argv[1]);
    return 1;
  }
  const double t_open = now_ms();
  const OGRSpatialReference* srs = ds->GetSpatialRef();
  const double metres_per_unit = srs ? srs->GetLinearUnits() : 0.0;
  const double t_crs = now_ms();
  const int w = ds->GetRasterXSize(), h = ds->GetRasterYSize();
  std::vector<int32_t> cells(static_cast<size_t>(w) * static_cast<size_t>(h));
  const CPLErr read = ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, w, h, cells.data(), w, h, GDT_Int32, 0, 0);
  const double t_read = now_ms();
  GDALClose(ds);
  if (read != CE_None) {
    std::fprintf(stderr, "lsm_bench_gdal_floor: error: cannot read band 1 of '%s'\n", argv[1]);
    return 1;
  }
  std::printf(
      "{\"register_ms\": %.2f, \"open_ms\": %.2f, \"crs_ms\": %.2f, \"read_ms\": %.2f, \"cells\": %lld, "
      "\"metres_per_unit\": %g}\n",
      t_register - t0, t_open - t_register, t_crs - t_open, t_read - t_crs, static_cast<long long>(w) * h,
      metres_per_unit);
  return 0;
}
