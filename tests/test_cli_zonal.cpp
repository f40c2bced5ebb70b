// lsm zonal (issue 49): every zone's class and landscape rows equal `lsm
// metrics` on that zone cut out of the raster by GDAL (gdal_rasterize -i
// burns nodata outside the polygon: the same cell-centre rule, holes and
// multipolygons included), for overlapping polygons and both neighbour
// rules; a zone raster gives the rows of the same polygons; buffers around
// points counted by hand; grid tiles against gdal_translate -srcwin cut-outs;
// a layer in another CRS; bad zones refused with one line and no output.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>

#include <geodesic.h>
#include <ogrsf_frmts.h>

#include "cli_fixture.h"

namespace lsm::test {
namespace {

class CliZonal : public CliFixture {};

const std::string kSample = std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif";  // 30 m cells, classes 1-5
const std::string kZones = std::string(LSM_SOURCE_DIR) + "/tests/data/sample_zones.geojson";
const std::string kPoints = std::string(LSM_SOURCE_DIR) + "/tests/data/sample_points.geojson";

// A CSV table as rows of fields (quoted fields unquoted), header first.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field), field.clear();
    } else if (c == '\n') {
      row.push_back(field), field.clear();
      rows.push_back(row), row.clear();
    } else {
      field += c;
    }
  }
  return rows;
}

// Rows of a zonal table for `zone` without the ZONE field; header first (without ZONE).
std::vector<std::vector<std::string>> zone_rows(const std::vector<std::vector<std::string>>& table,
                                                const std::string& zone) {
  std::vector<std::vector<std::string>> rows = {{table.at(0).begin() + 1, table.at(0).end()}};
  for (size_t i = 1; i < table.size(); ++i)
    if (table[i].at(0) == zone) rows.push_back({table[i].begin() + 1, table[i].end()});
  return rows;
}

// Equal tables: same header and rows; numbers equal to 1e-12 relative (FRAGSTATS'
// GYRATE rule sums distances from raster coordinates, whose origin differs
// between a zone's window and the whole raster, in the last digits).
void expect_same_table(const std::vector<std::vector<std::string>>& got,
                       const std::vector<std::vector<std::string>>& want, const std::string& what,
                       int at_least = 50) {
  ASSERT_EQ(got.size(), want.size()) << what;
  ASSERT_EQ(got.at(0), want.at(0)) << what;
  int compared = 0;
  for (size_t r = 1; r < got.size(); ++r) {
    ASSERT_EQ(got[r].size(), want[r].size()) << what;
    for (size_t c = 0; c < got[r].size(); ++c) {
      if (got[r][c] == want[r][c]) {
        ++compared;
        continue;
      }
      ASSERT_FALSE(got[r][c].empty() || want[r][c].empty()) << what << " " << want[0][c];
      const double a = std::stod(got[r][c]), b = std::stod(want[r][c]);
      EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::fabs(b))) << what << " row " << r << " " << want[0][c];
      ++compared;
    }
  }
  EXPECT_GE(compared, at_least) << what;
}

TEST_F(CliZonal, PolygonsEqualMetricsOnTheZoneCutOut) {
  for (const char* rule : {"8", "4"}) {
    const CliRun r = run_lsm("zonal " + kSample + " --zones " + kZones + " --zone-field name -n " + rule + " -o " +
                             path("z") + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto land = parse_csv(slurp(path("z.land.csv"))), cls = parse_csv(slurp(path("z.class.csv")));
    EXPECT_EQ(land.at(0).at(0), "ZONE");
    ASSERT_EQ(land.size(), 5u) << "four zones, overlapping ones included";
    for (const std::string zone : {"west", "east with a hole", "south, two parts", "across west"}) {
      const std::string cut = path("cut.tif");
      std::filesystem::copy_file(kSample, cut, std::filesystem::copy_options::overwrite_existing);
      ASSERT_EQ(run_shell("gdal_rasterize -q -i -burn 0 -where \"name = '" + zone + "'\" " + kZones + " " + cut).code, 0);
      const CliRun m = run_lsm("metrics " + cut + " --nodata 0 -n " + rule + " --level class,land -o " + path("m") + " -q");
      ASSERT_EQ(m.code, 0) << m.err;
      expect_same_table(zone_rows(land, zone), parse_csv(slurp(path("m.land.csv"))), zone + " land, rule " + rule);
      expect_same_table(zone_rows(cls, zone), parse_csv(slurp(path("m.class.csv"))), zone + " class, rule " + rule);
    }
  }
}

TEST_F(CliZonal, ZonesOutCarriesEachZonesLandscapeMetrics) {
  for (const std::string& args : std::vector<std::string>{"--zones " + kZones + " --zone-field name", "--grid 150",
                                  "--zones " + kPoints + " --zone-field plot --buffer 300"}) {
    const CliRun r = run_lsm("zonal " + kSample + " " + args + " -o " + path("z") + " --zones-out " + path("z.gpkg") + " -q");
    ASSERT_EQ(r.code, 0) << args << ": " << r.err;
    const auto land = parse_csv(slurp(path("z.land.csv")));
    std::map<std::string, std::string> ta;  // by zone, as the table writes it
    for (size_t i = 1; i < land.size(); ++i) ta[land[i].at(0)] = land[i].at(1);
    GDALAllRegister();
    GDALDataset* d = static_cast<GDALDataset*>(GDALOpenEx(path("z.gpkg").c_str(), GDAL_OF_VECTOR, nullptr, nullptr, nullptr));
    ASSERT_NE(d, nullptr) << args;
    OGRLayer* layer = d->GetLayer(0);
    int features = 0, with_metrics = 0;
    for (auto& f : *layer) {
      ++features;
      ASSERT_NE(f->GetGeometryRef(), nullptr) << args;
      const std::string zone = f->GetFieldAsString("ZONE");
      if (!f->IsFieldSetAndNotNull(f->GetFieldIndex("TA"))) {
        EXPECT_EQ(ta.count(zone), 0u) << args << " " << zone << " has rows but no metrics";
        continue;
      }
      ++with_metrics;
      EXPECT_DOUBLE_EQ(f->GetFieldAsDouble("TA"), std::stod(ta.at(zone))) << args << " " << zone;
    }
    EXPECT_EQ(with_metrics, static_cast<int>(ta.size())) << args;
    EXPECT_EQ(features, args.find("grid") != std::string::npos ? 6 : 4) << args << ": every zone, measured or not";
    GDALClose(d);
    std::filesystem::remove(path("z.gpkg"));
  }
  const CliRun bad = run_lsm("zonal " + kSample + " --grid 100 -o " + path("b") + " --zones-out " + path("b.shp") + " -q");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("must end in .gpkg, .fgb or .geojson"), std::string::npos) << bad.err;
}

TEST_F(CliZonal, AGeographicRasterIsMeasuredOnTheEllipsoidZoneByZone) {
  // The sample warped to WGS 84 (cells in degrees, measured on the ellipsoid
  // row by row); the zones reprojected to it by lsm, and by gdal_rasterize for the cut-out.
  ASSERT_EQ(run_shell("gdalwarp -q -t_srs EPSG:4326 -r near " + kSample + " " + path("geo.tif")).code, 0);
  const CliRun r = run_lsm("zonal " + path("geo.tif") + " --zones " + kZones + " --zone-field name -o " + path("z") +
                           " --level land -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto land = parse_csv(slurp(path("z.land.csv")));
  ASSERT_EQ(land.size(), 5u);
  for (const std::string zone : {"west", "east with a hole"}) {
    std::filesystem::copy_file(path("geo.tif"), path("cut.tif"), std::filesystem::copy_options::overwrite_existing);
    ASSERT_EQ(run_shell("gdal_rasterize -q -i -burn 0 -where \"name = '" + zone + "'\" " + kZones + " " + path("cut.tif")).code, 0);
    const CliRun m = run_lsm("metrics " + path("cut.tif") + " --nodata 0 --level land -o " + path("m") + " -q");
    ASSERT_EQ(m.code, 0) << m.err;
    expect_same_table(zone_rows(land, zone), parse_csv(slurp(path("m.land.csv"))), zone + " on the ellipsoid");
  }
}

TEST_F(CliZonal, PlotsOnAGeographicRasterAreCirclesOnTheEllipsoid) {
  // The sample warped to WGS 84 (cells of about 0.0003 x 0.0003 degrees);
  // three points given in longitude/latitude; each plot's cut-out made here
  // by brute force with PROJ's geodesic distance from the point to every
  // cell centre, and measured by lsm metrics.
  ASSERT_EQ(run_shell("gdalwarp -q -t_srs EPSG:4326 -r near -dstnodata 0 " + kSample + " " + path("geo.tif")).code, 0);
  GDALAllRegister();
  GDALDataset* geo = GDALDataset::Open(path("geo.tif").c_str(), GDAL_OF_RASTER);
  ASSERT_NE(geo, nullptr);
  double gt[6];
  geo->GetGeoTransform(gt);
  const int width = geo->GetRasterXSize(), height = geo->GetRasterYSize();
  GDALClose(geo);
  const std::vector<std::pair<double, double>> cells = {{0.4 * width, 0.45 * height}, {0.6 * width, 0.5 * height},
                                                        {0.5 * width + 3.3, 0.5 * height - 7.8}};
  std::ofstream points(path("lonlat.geojson"));
  points << "{\"type\": \"FeatureCollection\", \"features\": [";
  for (size_t i = 0; i < cells.size(); ++i)
    points << (i ? "," : "") << std::setprecision(17) << "{\"type\": \"Feature\", \"properties\": {\"plot\": \"p" << i
           << "\"}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [" << gt[0] + cells[i].first * gt[1] << ", "
           << gt[3] + cells[i].second * gt[5] << "]}}";
  points << "]}";
  points.close();
  const double radius = 400;
  const CliRun r = run_lsm("zonal " + path("geo.tif") + " --points " + path("lonlat.geojson") + " --zone-field plot " +
                           "--buffer " + std::to_string(radius) + " --level land -o " + path("z") + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto land = parse_csv(slurp(path("z.land.csv")));
  ASSERT_EQ(land.size(), 1u + cells.size());
  geod_geodesic wgs84;
  geod_init(&wgs84, 6378137, 1 / 298.257223563);
  for (size_t i = 0; i < cells.size(); ++i) {
    const double lon = gt[0] + cells[i].first * gt[1], lat = gt[3] + cells[i].second * gt[5];
    std::filesystem::copy_file(path("geo.tif"), path("cut.tif"), std::filesystem::copy_options::overwrite_existing);
    GDALDataset* cut = GDALDataset::Open(path("cut.tif").c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE);
    ASSERT_NE(cut, nullptr);
    std::vector<uint8_t> values(static_cast<size_t>(width) * height);
    ASSERT_EQ(cut->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, width, height, values.data(), width, height, GDT_Byte, 0, 0),
              CE_None);
    int inside = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        double metres = 0;
        geod_inverse(&wgs84, lat, lon, gt[3] + (y + 0.5) * gt[5], gt[0] + (x + 0.5) * gt[1], &metres, nullptr, nullptr);
        if (metres > radius) values[size_t(y) * width + x] = 0;
        else ++inside;
      }
    ASSERT_EQ(cut->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, width, height, values.data(), width, height, GDT_Byte, 0, 0),
              CE_None);
    GDALClose(cut);
    // About pi r^2 of ground: cells of ~28 x 33 m, so ~540 of them.
    EXPECT_GT(inside, 400) << "plot " << i;
    EXPECT_LT(inside, 700) << "plot " << i;
    const CliRun m = run_lsm("metrics " + path("cut.tif") + " --level land -o " + path("m") + " -q");
    ASSERT_EQ(m.code, 0) << m.err;
    expect_same_table(zone_rows(land, "p" + std::to_string(i)), parse_csv(slurp(path("m.land.csv"))),
                      "plot " + std::to_string(i) + " on the ellipsoid");
    const auto plot = zone_rows(land, "p" + std::to_string(i));
    ASSERT_EQ(plot.at(0).at(0), "TA");
    EXPECT_NEAR(std::stod(plot.at(1).at(0)), M_PI * radius * radius / 1e4, 0.05 * M_PI * radius * radius / 1e4)
        << "plot " << i << ": TA in ha";
  }
  // Squares have no meaning along the cells of a raster in degrees.
  const CliRun square = run_lsm("zonal " + path("geo.tif") + " --points " + path("lonlat.geojson") +
                                " --buffer 400 --buffer-shape square -o " + path("s") + " -q");
  EXPECT_EQ(square.code, 1);
  EXPECT_NE(square.err.find("square plots need a projected raster"), std::string::npos) << square.err;
}

TEST_F(CliZonal, AZoneRasterGivesThePolygonsRows) {
  ASSERT_EQ(run_shell("gdal_rasterize -q -a code -ot Int32 -a_nodata 0 -te 4000000 2991000 4012000 3000000 -tr 30 30 "
                      "-where \"code < 4\" " + kZones + " " + path("zones.tif")).code, 0);
  ASSERT_EQ(run_lsm("zonal " + kSample + " --zones " + path("zones.tif") + " -o " + path("r") + " -q").code, 0);
  ASSERT_EQ(run_lsm("zonal " + kSample + " --zones " + kZones + " --zone-field code -o " + path("v") + " -q").code, 0);
  const auto raster_land = parse_csv(slurp(path("r.land.csv"))), vector_land = parse_csv(slurp(path("v.land.csv")));
  ASSERT_EQ(raster_land.size(), 4u);  // zones 1-3 (zone 4 overlaps zone 1, so it is not in the raster)
  for (const std::string zone : {"1", "2", "3"})
    expect_same_table(zone_rows(raster_land, zone), zone_rows(vector_land, zone), "zone raster " + zone);
  // A zone raster on another grid is refused.
  ASSERT_EQ(run_shell("gdal_translate -q -srcwin 0 0 100 100 " + path("zones.tif") + " " + path("small.tif")).code, 0);
  const CliRun bad = run_lsm("zonal " + kSample + " --zones " + path("small.tif") + " -o " + path("bad") + " -q");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("is 100 x 100 cells, the input 400 x 300: put it on the input's grid"), std::string::npos) << bad.err;
}

TEST_F(CliZonal, BuffersAroundPointsCountedByHand) {
  const CliRun r = run_lsm("zonal " + kSample + " --zones " + kPoints + " --zone-field plot --buffer 300 --level land "
                           "--metrics TA,NP -o " + path("b"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("1 of 4 zones hold no cell with a class and have no rows (outside)"), std::string::npos) << r.err;
  const auto land = parse_csv(slurp(path("b.land.csv")));
  ASSERT_EQ(land.size(), 4u);
  // 300 m at 30 m cells: the 317 cell centres within 10 cells of a cell's
  // centre (0.09 ha each); P1 and P2, 10 cells apart, overlap. The corner
  // cell's buffer keeps a quarter: 90 cells.
  const std::map<std::string, std::string> ta = {{"P1", "28.53"}, {"P2", "28.53"}, {"corner", "8.1"}};
  for (size_t i = 1; i < land.size(); ++i) EXPECT_EQ(land[i].at(1), ta.at(land[i].at(0))) << land[i].at(0);
  // Square plots: 21 x 21 cells.
  ASSERT_EQ(run_lsm("zonal " + kSample + " --zones " + kPoints + " --zone-field plot --buffer 300 --buffer-shape square "
                    "--level land --metrics TA -o " + path("s") + " -q").code, 0);
  EXPECT_EQ(parse_csv(slurp(path("s.land.csv"))).at(1).at(1), "39.69");
}

TEST_F(CliZonal, GridTilesEqualTheirCutOuts) {
  const CliRun r = run_lsm("zonal " + kSample + " --grid 150 --level class,land -o " + path("g") + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto land = parse_csv(slurp(path("g.land.csv"))), cls = parse_csv(slurp(path("g.class.csv")));
  ASSERT_EQ(land.size(), 1u + 2 * 3);  // 400 x 300 cells: 3 tiles across (the last 100 wide), 2 down
  for (const auto& [zone, window] : std::vector<std::pair<std::string, std::string>>{{"0_0", "0 0 150 150"},
                                                                                      {"1_2", "300 150 100 150"}}) {
    ASSERT_EQ(run_shell("gdal_translate -q -srcwin " + window + " " + kSample + " " + path("t.tif")).code, 0);
    ASSERT_EQ(run_lsm("metrics " + path("t.tif") + " --level class,land -o " + path("t") + " -q").code, 0);
    expect_same_table(zone_rows(land, zone), parse_csv(slurp(path("t.land.csv"))), "tile " + zone);
    expect_same_table(zone_rows(cls, zone), parse_csv(slurp(path("t.class.csv"))), "tile " + zone + " class");
  }
}

// The metrics that take a distance or a table take them zone by zone: a
// tile's PROX, SIMI and CONNECT equal those of its cut-out; asked for by
// name without their input, they are refused as lsm metrics refuses them.
TEST_F(CliZonal, DistancesAndTablesApplyToEachZone) {
  std::ofstream(path("w.fsq")) << "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 4, 5)\n"
                                  "1,.5,0,0,0\n.5,1,.5,0,0\n0,.5,1,.5,0\n0,0,.5,1,.5\n0,0,0,.5,1\n";
  const std::string inputs = " --metrics PROX_MN,SIMI_AM,CONNECT --search-radius 150 --threshold-distance 90 "
                             "--similarity-table " + path("w.fsq") + " --level land -q -o ";
  const CliRun r = run_lsm("zonal " + kSample + " --grid 150" + inputs + path("g"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto land = parse_csv(slurp(path("g.land.csv")));
  ASSERT_EQ(land.at(0), (std::vector<std::string>{"ZONE", "PROX_MN", "SIMI_AM", "CONNECT"}));
  ASSERT_EQ(run_shell("gdal_translate -q -srcwin 150 0 150 150 " + kSample + " " + path("t.tif")).code, 0);
  ASSERT_EQ(run_lsm("metrics " + path("t.tif") + inputs + path("t")).code, 0);
  const auto cut = parse_csv(slurp(path("t.land.csv")));
  expect_same_table(zone_rows(land, "0_1"), cut, "tile 0_1", 3);
  EXPECT_GT(std::stod(cut.at(1).at(1)), 0);  // a real value, not N/A
  const auto before = files();
  expect_clean_failure(run_lsm("zonal " + kSample + " --grid 150 --metrics PROX_MN -o " + path("x")),
                       "PROX needs FRAGSTATS' search radius (--search-radius METRES)", before);
  expect_clean_failure(run_lsm("zonal " + kSample + " --grid 150 --metrics CONNECT -o " + path("x")),
                       "CONNECT needs FRAGSTATS' threshold distance (--threshold-distance METRES)", before);
}

TEST_F(CliZonal, ALayerInAnotherCrsIsReprojected) {
  ASSERT_EQ(run_shell("ogr2ogr -t_srs EPSG:4326 " + path("zones4326.gpkg") + " " + kZones).code, 0);
  const CliRun r = run_lsm("zonal " + kSample + " --zones " + path("zones4326.gpkg") +
                           " --zone-field code --level land --metrics TA -o " + path("p"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("note: the zones are reprojected from WGS 84 to the raster's CRS"), std::string::npos) << r.err;
  ASSERT_EQ(run_lsm("zonal " + kSample + " --zones " + kZones + " --zone-field code --level land --metrics TA -o " +
                    path("q") + " -q").code, 0);
  const auto reprojected = parse_csv(slurp(path("p.land.csv"))), original = parse_csv(slurp(path("q.land.csv")));
  ASSERT_EQ(reprojected.size(), original.size());
  for (size_t i = 1; i < original.size(); ++i)  // straight edges in one CRS bend slightly in the other
    EXPECT_NEAR(std::stod(reprojected[i].at(1)), std::stod(original[i].at(1)), 0.01 * std::stod(original[i].at(1)));
}

TEST_F(CliZonal, BadZonesAreRefusedWithOneLineAndNoOutput) {
  const std::string kCrs = R"("crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::3035"}},)";
  {
    std::ofstream dup(path("dup.geojson"));
    dup << R"({"type":"FeatureCollection",)" + kCrs + R"("features":[
      {"type":"Feature","properties":{"n":"a"},"geometry":{"type":"Polygon","coordinates":[[[4000000,2999000],[4001000,2999000],[4001000,2998000],[4000000,2999000]]]}},
      {"type":"Feature","properties":{"n":"a"},"geometry":{"type":"Polygon","coordinates":[[[4002000,2999000],[4003000,2999000],[4003000,2998000],[4002000,2999000]]]}}]})";
    std::ofstream far(path("far.geojson"));
    far << R"({"type":"FeatureCollection",)" + kCrs + R"("features":[
      {"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,0]]]}}]})";
    std::ofstream none(path("empty.geojson"));
    none << R"({"type":"FeatureCollection",)" + kCrs + R"("features":[]})";
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--zones " + path("dup.geojson") + " --zone-field n", "has the value 'a' on features 0 and 1"},
      {"--zones " + kZones + " --zone-field nope", "has no field 'nope' (its fields: name, code)"},
      {"--zones " + kPoints, "is a Point, not a polygon (for plots around points give --buffer)"},
      {"--zones " + kZones + " --buffer 100", "is a Polygon, not a point"},
      {"--zones " + path("far.geojson"), "the zone holds no cell with a class"},
      {"--zones " + path("empty.geojson"), "has no feature"},
      {"--zones " + path("missing.gpkg"), "missing.gpkg"},
      {"--zones " + kZones + " --grid 10", "give --zones or --grid (one of the two)"},
      {"--grid 0", "--grid"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = run_lsm("zonal " + kSample + " " + args + " -o " + path("out") + " -q");
    EXPECT_EQ(r.code, 1) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    for (const std::string& f : files()) EXPECT_EQ(f.rfind("out", 0), std::string::npos) << args << " left " << f;
  }
}

}  // namespace
}  // namespace lsm::test
