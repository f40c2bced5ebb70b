// lsm patches: one polygon per patch (GDAL's polygoniser on the patch IDs),
// whose attributes are the patch table's row and whose area is its AREA.
#include <ogrsf_frmts.h>

#include <cmath>
#include <sstream>

#include "cli_fixture.h"
#include "shared_data.h"

namespace lsm::test {
namespace {

class PatchPolygons : public CliFixture {
 protected:
  std::string sample() const { return std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif"; }

  // Every feature against the patch table of `lsm metrics --level patch`, in
  // order: PID, TYPE, every metric, and the polygon's area against AREA.
  void expect_polygons_equal_the_patch_table(const std::string& input, size_t patches, const std::string& extra = "") {
    ASSERT_EQ(run_lsm("patches " + input + " " + path("p.gpkg") + extra + " -q").code, 0);
    ASSERT_EQ(run_lsm("metrics " + input + " --out " + path("m") + " --level patch" + extra + " -q").code, 0);
    std::istringstream table(slurp(path("m.patch.csv")));
    std::string line;
    std::getline(table, line);
    std::vector<std::string> header;
    for (std::istringstream h(line); std::getline(h, line, ',');) header.push_back(line);
    GDALAllRegister();
    GDALDataset* d = GDALDataset::Open(path("p.gpkg").c_str(), GDAL_OF_VECTOR);
    ASSERT_NE(d, nullptr);
    OGRLayer* layer = d->GetLayer(0);
    EXPECT_EQ(layer->GetFeatureCount(), static_cast<GIntBig>(patches));
    size_t rows = 0, mismatches = 0;
    for (auto& f : *layer) {
      std::getline(table, line);
      ++rows;
      std::vector<std::string> fields;
      for (std::istringstream r(line); std::getline(r, line, ',');) fields.push_back(line);
      fields.resize(header.size());
      bool same = std::to_string(f->GetFieldAsInteger64("PID")) == fields[0] &&
                  std::to_string(f->GetFieldAsInteger("TYPE")) == fields[1];
      for (size_t i = 2; i < header.size(); ++i) {
        if (header[i] == "NAME") continue;
        const double expected = fields[i].empty() ? std::nan("") : std::stod(fields[i]);
        const bool set = f->IsFieldSetAndNotNull(f->GetFieldIndex(header[i].c_str()));
        same = same && (std::isnan(expected) ? !set : set && f->GetFieldAsDouble(header[i].c_str()) == expected);
      }
      const double area_ha = f->GetGeometryRef()->toPolygon()->get_Area() / 1e4;
      same = same && std::fabs(area_ha - f->GetFieldAsDouble("AREA")) < 1e-9 * std::max(1.0, area_ha);
      if (!same && ++mismatches < 5) ADD_FAILURE() << "feature " << rows << " differs from its patch row";
    }
    EXPECT_EQ(rows, patches);
    EXPECT_EQ(mismatches, 0u);
    GDALClose(d);
  }
};

TEST_F(PatchPolygons, OnePolygonPerPatchWithItsRow) {
  expect_polygons_equal_the_patch_table(sample(), 472);
  expect_polygons_equal_the_patch_table(sample(), 757, " --neighbors 4");  // NP with the 4-cell rule
}

TEST_F(PatchPolygons, AugustaNlcd) {
  const std::string augusta = shared_data_dir() + "/landcover/lsm_augusta_nlcd.tif";
  LSM_REQUIRE_SHARED_FILE(augusta);
  expect_polygons_equal_the_patch_table(augusta, 17141);
}

// Every polygon carries its class's name from the descriptor file (classes
// without a name get none); a background class (IsBackground) has no patches,
// so no polygons, and the others keep the PIDs of the patch table.
TEST_F(PatchPolygons, NamesAndBackgroundFromADescriptorFile) {
  std::ofstream(path("classes.csv")) << "1,Forest,true,false\n2,Grass,true,true\n3,Water,true,false\n";
  ASSERT_EQ(run_lsm("patches " + sample() + " " + path("n.gpkg") + " --class-descriptors " + path("classes.csv") + " -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + sample() + " --out " + path("m") + " --level patch --class-descriptors " +
                    path("classes.csv") + " -q").code, 0);
  std::istringstream table(slurp(path("m.patch.csv")));
  std::string line;
  std::getline(table, line);  // header
  GDALAllRegister();
  GDALDataset* d = GDALDataset::Open(path("n.gpkg").c_str(), GDAL_OF_VECTOR);
  ASSERT_NE(d, nullptr);
  OGRLayer* layer = d->GetLayer(0);
  ASSERT_GE(layer->GetLayerDefn()->GetFieldIndex("NAME"), 0);
  size_t features = 0, named = 0;
  for (auto& f : *layer) {
    ASSERT_TRUE(std::getline(table, line));
    EXPECT_EQ(line.substr(0, line.find(',', line.find(',') + 1)),
              std::to_string(f->GetFieldAsInteger64("PID")) + "," + std::to_string(f->GetFieldAsInteger("TYPE")));
    const int type = f->GetFieldAsInteger("TYPE");
    EXPECT_NE(type, 2) << "a polygon of the background class";
    EXPECT_STREQ(f->GetFieldAsString("NAME"), type == 1 ? "Forest" : type == 3 ? "Water" : "");
    named += type == 1 || type == 3;
    ++features;
  }
  EXPECT_FALSE(std::getline(table, line)) << "patch rows without a polygon";
  EXPECT_GT(features, 100u);
  EXPECT_GT(named, 10u);
  GDALClose(d);
}

// One job, nothing written and read back: below the budget's kept-labels
// share the patch IDs, the polygons and the patch table stay in memory, so a
// scratch folder that does not exist is never touched; at a 1M limit they go
// there, and the run says which folder it could not use.
TEST_F(PatchPolygons, NoScratchFilesWhenTheyFitTheBudget) {
  const std::string missing = path("no-such-folder");
  std::filesystem::create_directories(path("a"));
  std::filesystem::create_directories(path("b"));  // the same name in both: GeoJSON names its layer after the file
  const CliRun fits = run_lsm("patches " + sample() + " " + path("a/p.geojson") + " --temp-dir " + missing + " -q");
  EXPECT_EQ(fits.code, 0) << fits.err;
  const CliRun spills = run_lsm("patches " + sample() + " " + path("q.gpkg") + " --temp-dir " + missing + " --memory-limit 1M -q");
  EXPECT_EQ(spills.code, 1);
  EXPECT_NE(spills.err.find("no-such-folder"), std::string::npos) << spills.err;
  EXPECT_FALSE(std::filesystem::exists(path("q.gpkg")));
  const CliRun tight = run_lsm("patches " + sample() + " " + path("b/p.geojson") + " --temp-dir " + path("") + " --memory-limit 1M -q");
  ASSERT_EQ(tight.code, 0) << tight.err;
  EXPECT_EQ(slurp(path("a/p.geojson")), slurp(path("b/p.geojson")));  // the same polygons either way
  EXPECT_EQ(files(), (std::vector<std::string>{"a", "b"}));  // no scratch file left behind
}

// SIGTERM (QGIS's cancel) in the middle of a run that spills to scratch
// files: neither the output nor the scratch folder is left (issue 46 item 17).
TEST_F(PatchPolygons, SigtermLeavesNoScratchFolder) {
  ASSERT_EQ(run_lsm("synth " + path("big.tif") + " --width 2000 --height 2000 --feature-size 3 -q").code, 0);
  std::filesystem::create_directories(path("scratch"));
  const CliRun killed = run_shell("timeout -s TERM 0.5 " + std::string(LSM_BINARY) + " patches " + path("big.tif") + " " +
                                  path("p.gpkg") + " --temp-dir " + path("scratch") + " --memory-limit 1M -q");
  EXPECT_EQ(killed.code, 124) << "the run ended before SIGTERM: make the raster larger";
  EXPECT_TRUE(std::filesystem::is_empty(path("scratch")));
  EXPECT_FALSE(std::filesystem::exists(path("p.gpkg")));
}

// GeoJSON holds WGS 84 longitude/latitude (RFC 7946): a raster in a
// projected CRS without an EPSG code gets its polygons reprojected, not
// written in metres under no CRS (which readers take for degrees).
TEST_F(PatchPolygons, GeoJsonIsWgs84) {
  const std::string albers = path("albers.tif");
  const std::string wkt =
      "PROJCS[\"unnamed Albers\",GEOGCS[\"NAD83\",DATUM[\"North_American_Datum_1983\",SPHEROID[\"GRS 1980\",6378137,"
      "298.257222101]],PRIMEM[\"Greenwich\",0],UNIT[\"degree\",0.0174532925199433]],PROJECTION[\"Albers_Conic_Equal_Area\"],"
      "PARAMETER[\"latitude_of_center\",23],PARAMETER[\"longitude_of_center\",-96],PARAMETER[\"standard_parallel_1\",29.5],"
      "PARAMETER[\"standard_parallel_2\",45.5],PARAMETER[\"false_easting\",0],PARAMETER[\"false_northing\",0],UNIT[\"metre\",1]]";
  GDALAllRegister();
  {
    GDALDataset* src = GDALDataset::Open(sample().c_str(), GDAL_OF_RASTER);
    ASSERT_NE(src, nullptr);
    GDALDataset* copy = GetGDALDriverManager()->GetDriverByName("GTiff")->CreateCopy(albers.c_str(), src, FALSE, nullptr,
                                                                                     nullptr, nullptr);
    ASSERT_NE(copy, nullptr);
    const double gt[6] = {500000, 30, 0, 1000000, 0, -30};
    copy->SetGeoTransform(const_cast<double*>(gt));
    copy->SetProjection(wkt.c_str());
    GDALClose(copy);
    GDALClose(src);
  }
  ASSERT_EQ(run_lsm("patches " + albers + " " + path("p.geojson") + " -q").code, 0);
  GDALDataset* d = GDALDataset::Open(path("p.geojson").c_str(), GDAL_OF_VECTOR);
  ASSERT_NE(d, nullptr);
  OGRLayer* layer = d->GetLayer(0);
  EXPECT_EQ(layer->GetFeatureCount(), 472);
  OGREnvelope extent;
  ASSERT_EQ(layer->GetExtent(&extent), OGRERR_NONE);
  // 12 x 9 km about 500 km east of -96°, 1000 km north of 23°: longitude -90.7, latitude 31.9.
  EXPECT_NEAR(extent.MinX, -90.68, 0.05);
  EXPECT_NEAR(extent.MaxY, 31.95, 0.05);
  ASSERT_NE(layer->GetSpatialRef(), nullptr);
  EXPECT_TRUE(layer->GetSpatialRef()->IsGeographic());
  GDALClose(d);
}

TEST_F(PatchPolygons, BadOutputsAreRefused) {
  const CliRun r = run_lsm("patches " + sample() + " " + path("p.shp"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("must end in .gpkg, .fgb or .geojson"), std::string::npos) << r.err;
  EXPECT_TRUE(files().empty());
}

}  // namespace
}  // namespace lsm::test
