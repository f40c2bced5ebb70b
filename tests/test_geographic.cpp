// Rasters in a geographic CRS: cell areas and side lengths on the ellipsoid
// (PROJ geodesics), checked against the closed forms for cells bounded by
// meridians and parallels, and through `lsm metrics`.
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_fixture.h"
#include "gdal_class_raster.h"
#include "error.h"
#include "geodesic_rows.h"
#include "patch_row_metrics.h"
#include "test_helpers.h"

namespace fs = std::filesystem;

namespace lsm::test {
namespace {

constexpr double kA = 6378137, kF = 1 / 298.257223563;  // WGS 84
constexpr double kDeg = M_PI / 180;

// Closed forms on the ellipsoid (a, f).
double e2() { return kF * (2 - kF); }
double parallel_arc(double lat, double dlon) {
  const double s = std::sin(lat * kDeg);
  return kA / std::sqrt(1 - e2() * s * s) * std::cos(lat * kDeg) * dlon * kDeg;
}
// Area between two parallels over dlon degrees: dlon b^2 / 2 [g(lat2) - g(lat1)].
double zone_area(double lat1, double lat2, double dlon) {
  const double e = std::sqrt(e2()), b2 = kA * kA * (1 - e2());
  auto g = [&](double lat) {
    const double s = std::sin(lat * kDeg);
    return s / (1 - e2() * s * s) + std::log((1 + e * s) / (1 - e * s)) / (2 * e);
  };
  return std::fabs(dlon * kDeg * b2 / 2 * (g(lat2) - g(lat1)));
}
// Meridian arc by Simpson's rule on M(lat) = a (1 - e2) / (1 - e2 sin^2)^1.5.
double meridian_arc(double lat1, double lat2) {
  const int n = 2000;
  const double h = (lat2 - lat1) / n * kDeg;
  auto m = [&](double lat) {
    const double s = std::sin(lat);
    return kA * (1 - e2()) / std::pow(1 - e2() * s * s, 1.5);
  };
  double sum = m(lat1 * kDeg) + m(lat2 * kDeg);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * m(lat1 * kDeg + i * h);
  return std::fabs(sum * h / 3);
}

TEST(GeodesicRows, MatchClosedFormsForCellsBetweenParallels) {
  // 1 x 0.5 degree cells from 61 N down to 59 N, and 0.001 degree cells at the equator.
  for (const auto& [top, step, col] : {std::tuple{61.0, -0.5, 1.0}, std::tuple{0.002, -0.001, 0.001}}) {
    GeographicGrid grid{top, step, col, 4};
    const GeodesicRows rows = geodesic_rows(grid, kA, kF);
    ASSERT_EQ(rows.side_h_m.size(), 5u);
    for (int b = 0; b <= 4; ++b) {
      const double lat = top + b * step;
      EXPECT_NEAR(rows.side_h_m[b], parallel_arc(lat, col), 1e-9 * parallel_arc(lat, col)) << "boundary " << b;
    }
    for (int y = 0; y < 4; ++y) {
      const double lat1 = top + y * step, lat2 = lat1 + step;
      EXPECT_NEAR(rows.side_v_m[y], meridian_arc(lat1, lat2), 1e-9 * rows.side_v_m[y]) << "row " << y;
      EXPECT_NEAR(rows.cell_area_m2[y], zone_area(lat1, lat2, col), 1e-8 * rows.cell_area_m2[y]) << "row " << y;
    }
  }
}

TEST(GeodesicRows, RejectsLatitudesBeyondThePoles) {
  GeographicGrid grid{89.5, -1.0, 1.0, 200};  // reaches -110.5
  EXPECT_THROW(geodesic_rows(grid, kA, kF), Error);
}

class Geographic : public CliFixture {
 protected:
  // A 4 x 3 Byte GeoTIFF in WGS 84 (EPSG:4326) with `cell`-degree cells, top-left at (10 E, `top` N).
  std::string make_wgs84(const std::string& name, double top, double cell, const std::vector<double>& values) {
    return write_4x3(name, GDT_Byte, {10, cell, 0, top, 0, -cell}, 4326, values);
  }
  // Runs `lsm ARGS`, returns the exit code; stderr in err_.
  int run(const std::string& args) {
    const CliRun r = run_lsm(args);
    err_ = r.err;
    return r.code;
  }
  // The values of a one-row CSV table after its header.
  std::vector<double> csv_row(const std::string& p, int row = 1) {
    std::istringstream in(slurp(std::filesystem::path(p)));
    std::string line;
    for (int i = 0; i <= row; ++i) std::getline(in, line);
    std::vector<double> v;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) v.push_back(cell.empty() ? std::nan("") : std::stod(cell));
    return v;
  }

  std::string err_;
};

// 1 1 2 2
// 1 1 2 2
// 1 1 2 2   (0.1 degree cells from 60.3 N to 60.0 N)
TEST_F(Geographic, MetricsUseCellSizesOnTheEllipsoid) {
  const double top = 60.3, cell = 0.1;
  const std::string raster = make_wgs84("g.tif", top, cell, {1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2});
  GdalClassRaster source(raster, 1);
  ASSERT_TRUE(source.geographic());
  ASSERT_NE(source.info().geodesic, nullptr);
  EXPECT_EQ(source.ellipsoid(), "WGS 84");

  ASSERT_EQ(run("metrics " + raster + " --out " + path("m") + " -q --metrics TA,TE,CA,PLAND"), 0) << err_;
  ASSERT_EQ(run("metrics " + raster + " --out " + path("m") + " -q --level patch --metrics AREA,PERIM"), 0) << err_;
  EXPECT_NE(err_.find("measured on the WGS 84 ellipsoid"), std::string::npos) << err_;
  double area_m2 = 0, meridian = meridian_arc(top - 3 * cell, top);
  for (int y = 0; y < 3; ++y) area_m2 += 4 * zone_area(top - y * cell, top - (y + 1) * cell, cell);
  const double class_perim = 2 * meridian + 2 * (parallel_arc(top, cell) + parallel_arc(top - 3 * cell, cell));
  const std::vector<double> land = csv_row(path("m.land.csv"));  // TA, TE
  ASSERT_EQ(land.size(), 2u);
  EXPECT_NEAR(land[0], area_m2 / 10000, 1e-8 * land[0]);
  EXPECT_NEAR(land[1], meridian, 1e-8 * meridian);  // the one class-class edge: 3 cells of meridian
  const std::vector<double> patch1 = csv_row(path("m.patch.csv"));  // PID, TYPE, AREA, PERIM
  ASSERT_EQ(patch1.size(), 4u);
  EXPECT_NEAR(patch1[2], area_m2 / 2 / 10000, 1e-8 * patch1[2]);
  EXPECT_NEAR(patch1[3], class_perim, 1e-8 * class_perim);
  const std::vector<double> class1 = csv_row(path("m.class.csv"));  // TYPE, CA, PLAND, TE
  ASSERT_EQ(class1.size(), 4u);
  EXPECT_NEAR(class1[1], area_m2 / 2 / 10000, 1e-8 * class1[1]);
  EXPECT_NEAR(class1[2], 50, 1e-9);
  EXPECT_NEAR(class1[3], meridian, 1e-8 * meridian);

  // ECON weighs the sides at their lengths on the ellipsoid: every side of
  // maximum contrast gives 100 % of the perimeter.
  std::ofstream(path("ones.fce")) << "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 999)\n0,1,1\n1,0,1\n1,1,0\n";
  ASSERT_EQ(run("metrics " + raster + " --out " + path("e") + " -q --level patch --metrics ECON --contrast-table " +
                path("ones.fce")), 0) << err_;
  const std::vector<double> econ = csv_row(path("e.patch.csv"));  // PID, TYPE, ECON
  ASSERT_EQ(econ.size(), 3u);
  EXPECT_NEAR(econ[2], 100, 1e-12);
  // CONNECT's threshold is a distance on a plane: refused in degrees.
  EXPECT_NE(run("metrics " + raster + " --out " + path("c") + " -q --metrics CONNECT --threshold-distance 100"), 0);
  EXPECT_NE(err_.find("the threshold distance 100 m needs a projected raster"), std::string::npos) << err_;
  EXPECT_NE(run("metrics " + raster + " --out " + path("p") + " -q --metrics PROX --search-radius 100"), 0);
  EXPECT_NE(err_.find("the search radius 100 m needs a projected raster"), std::string::npos) << err_;
}

// Near the equator over a small extent, the geodesic results approach those of
// the same grid in metres (the local plane), patch by patch, for every metric.
TEST_F(Geographic, SmallGridAtTheEquatorAgreesWithItsProjectedTwin) {
  const double cell = 1e-4;  // about 11 m
  const std::vector<double> v = {1, 2, 2, 1, 1, 1, 2, 1, 3, 3, 2, 1};
  const std::string raster = make_wgs84("g.tif", 0.00015, cell, v);
  ASSERT_EQ(run("metrics " + raster + " --out " + path("g") + " -q --level patch"), 0) << err_;
  // The twin: same cells in a projected CRS with the sizes of the equator's cells.
  GeographicGrid grid{0.00015, -cell, cell, 3};
  const GeodesicRows rows = geodesic_rows(grid, kA, kF);
  write_4x3("p.tif", GDT_Byte, {500000, rows.side_h_m[1], 0, 0, 0, -rows.side_v_m[1]}, 32632, v);
  ASSERT_EQ(run("metrics " + path("p.tif") + " --out " + path("p") + " -q --level patch"), 0) << err_;
  for (int r = 1; r <= 5; ++r) {
    const std::vector<double> g = csv_row(path("g.patch.csv"), r), p = csv_row(path("p.patch.csv"), r);
    ASSERT_EQ(g.size(), p.size()) << "patch row " << r;
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isnan(p[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << "patch row " << r << " column " << i;
        continue;
      }
      EXPECT_NEAR(g[i], p[i], 1e-5 * std::max(1.0, std::fabs(p[i]))) << "patch row " << r << " column " << i;
    }
  }
}

// ENN on a geographic raster (the k-d tree over edge cells, nearest_neighbour.h)
// equals brute force over every pair of same-class cells of different
// patches, measured as CellGeometry measures distances; both neighbour rules.
TEST_F(Geographic, EnnEqualsBruteForce) {
  const int w = 90, h = 70;
  const MemoryClassRaster land = random_landscape(w, h, 6, 17, 0.05);
  GDALAllRegister();
  GDALDataset* d = GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path("g.tif").c_str(), w, h, 1, GDT_Byte, nullptr);
  double gt[6] = {10, 0.01, 0, 60.5, 0, -0.02};
  d->SetGeoTransform(gt);
  OGRSpatialReference srs;
  srs.importFromEPSG(4326);
  d->SetSpatialRef(&srs);
  d->GetRasterBand(1)->SetNoDataValue(0);
  std::vector<uint8_t> bytes(static_cast<size_t>(w * h));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = land.cells()[i] == kNoClass ? 0 : uint8_t(land.cells()[i]);
  ASSERT_EQ(d->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, w, h, bytes.data(), w, h, GDT_Byte, 0, 0), CE_None);
  GDALClose(d);
  GdalClassRaster source(path("g.tif"), 1);
  ASSERT_NE(source.info().geodesic, nullptr);
  const CellGeometry geometry(source.info());
  for (const NeighbourRule rule : {NeighbourRule::Eight, NeighbourRule::Four}) {
    auto labeler = make_cpu_labeler();
    ScanOptions o;
    o.rule = rule;
    o.keep_patch_ids = true;
    const PatchTable t = scan_patches(source, *labeler, o);
    MemoryLabelRaster ids(w, h);
    write_patch_ids(source, *labeler, t, ids);
    const PatchRowResults rows = compute_patch_row_metrics(source, *labeler, t, RowMetricOptions{});
    std::vector<double> best(t.patches.size(), std::numeric_limits<double>::infinity());
    const std::vector<uint32_t>& pid = ids.labels();
    for (int64_t i = 0; i < w * h; ++i)
      for (int64_t j = i + 1; j < w * h; ++j) {
        if (!pid[i] || !pid[j] || pid[i] == pid[j] || bytes[i] != bytes[j]) continue;
        const double dist = geometry.distance_m(double(i % w), double(i / w), double(j % w), double(j / w));
        best[pid[i] - 1] = std::min(best[pid[i] - 1], dist);
        best[pid[j] - 1] = std::min(best[pid[j] - 1], dist);
      }
    size_t compared = 0;
    for (size_t p = 0; p < best.size(); ++p) {
      if (std::isinf(best[p])) {
        EXPECT_TRUE(std::isnan(rows.patches[p].enn_m)) << "PID " << p + 1;
        continue;
      }
      EXPECT_NEAR(rows.patches[p].enn_m, best[p], 1e-9 * best[p]) << "PID " << p + 1;
      ++compared;
    }
    EXPECT_GT(compared, 50u);
  }
}

}  // namespace
}  // namespace lsm::test
