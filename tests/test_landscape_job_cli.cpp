// The landscape job as a library gives what `lsm metrics` writes: the same
// raster in memory (the entry point of the Python binding and the jobs to
// come) and as a GeoTIFF through the CLI, table for table, byte for byte.
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <sstream>

#include "cli_fixture.h"
#include "fragstats_tables.h"
#include "landscape_job.h"
#include "test_helpers.h"

namespace lsm::test {
namespace {

class LandscapeJobCli : public CliFixture {
 protected:
  // `raster` as a GeoTIFF of `cell` m cells in UTM 33N, nodata 255.
  std::string write_geotiff(const MemoryClassRaster& raster, double cell) {
    GDALAllRegister();
    const RasterInfo info = raster.info();
    const std::string file = path("landscape.tif");
    GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(
        file.c_str(), static_cast<int>(info.width), static_cast<int>(info.height), 1, GDT_Byte, nullptr);
    double gt[6] = {500000, cell, 0, 5200000, 0, -cell};
    d->SetGeoTransform(gt);
    OGRSpatialReference srs;
    srs.importFromEPSG(32633);
    d->SetSpatialRef(&srs);
    std::vector<uint8_t> bytes;
    for (int32_t c : raster.cells()) bytes.push_back(c == kNoClass ? 255 : static_cast<uint8_t>(c));
    GDALRasterBand* band = d->GetRasterBand(1);
    band->SetNoDataValue(255);
    EXPECT_EQ(band->RasterIO(GF_Write, 0, 0, static_cast<int>(info.width), static_cast<int>(info.height), bytes.data(),
                             static_cast<int>(info.width), static_cast<int>(info.height), GDT_Byte, 0, 0, nullptr),
              CE_None);
    GDALClose(d);
    return file;
  }
};

std::string csv(const MetricTable& table, MetricLevel level) {
  std::ostringstream out;
  write_table_csv(out, table, level);
  return out.str();
}

TEST_F(LandscapeJobCli, InMemoryJobGivesTheCliTables) {
  const double cell = 30;
  MemoryClassRaster raster = random_landscape(260, 190, 6, 11, 0.04);
  MemoryClassRaster measured(260, 190, raster.cells(), cell, cell);
  const std::string tif = write_geotiff(raster, cell);
  for (const std::string& options : {std::string(), std::string(" --neighbors 4 --edge-depth 2 --background 3"),
                                     std::string(" --metrics AREA,NP,ENN,SHDI --gyrate centroid")}) {
    SCOPED_TRACE(options);
    ASSERT_EQ(run_lsm("metrics " + tif + " --out " + path("m") + " --backend cpu -q" + options).code, 0);
    LandscapeJobOptions job;
    job.backend = Backend::Cpu;
    if (options.find("--neighbors 4") != std::string::npos) {
      job.rule = NeighbourRule::Four;
      job.edge_depth = 2;
      job.background = {3};
    }
    if (options.find("--metrics") != std::string::npos) {
      job.selection = MetricSelection("AREA,NP,ENN,SHDI");
      job.gyrate = GyrateRule::Centroid;
    }
    const LandscapeResults r = run_landscape_job(measured, job);
    EXPECT_EQ(csv(r.metrics.patch, MetricLevel::Patch), slurp(path("m.patch.csv")));
    EXPECT_EQ(csv(r.metrics.cls, MetricLevel::Class), slurp(path("m.class.csv")));
    EXPECT_EQ(csv(r.metrics.land, MetricLevel::Landscape), slurp(path("m.land.csv")));
    std::ostringstream adjacency;
    write_adjacency_csv(adjacency, r.rows.adjacency);
    EXPECT_EQ(adjacency.str(), slurp(path("m.adj.csv")));
  }
}

}  // namespace
}  // namespace lsm::test
