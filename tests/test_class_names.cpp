// Class names in the tables: from the raster's attribute table (or category
// names), or from a FRAGSTATS class descriptor file (--class-descriptors),
// with FRAGSTATS' meaning of Enabled and IsBackground.
#include "attribute_table.h"
#include "cli_fixture.h"
#include "printable_text.h"

namespace lsm::test {
namespace {

class ClassNamesCli : public CliFixture {
 protected:
  // 4 x 3 cells: classes 1, 2 and 3.
  std::string raster() {
    const double gt[6] = {0, 30, 0, 0, 0, -30};
    return write_4x3("r.tif", GDT_Byte, gt, 3035, {1, 1, 2, 2, 1, 2, 2, 3, 3, 3, 3, 3});
  }
  std::string header(const std::string& file) {
    const std::string text = slurp(path(file));
    return text.substr(0, text.find('\n'));
  }
};

TEST_F(ClassNamesCli, DescriptorFileNamesClassesAndLeavesOutDisabledOnes) {
  const std::string in = raster();
  std::ofstream(path("classes.csv")) << "ID, Name, Enabled, IsBackground\n1, Forest, true, false\n"
                                        "2, \"Grass, dry\", true, false\n3, Water, false, false\n";
  const CliRun r = run_lsm("metrics " + in + " --out " + path("m") + " --class-descriptors " + path("classes.csv") + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(header("m.class.csv").substr(0, 13), "TYPE,NAME,CA,");
  const std::string cls = slurp(path("m.class.csv"));
  EXPECT_NE(cls.find("\n1,Forest,"), std::string::npos) << cls;
  EXPECT_NE(cls.find("\n2,\"Grass, dry\","), std::string::npos) << cls;
  EXPECT_EQ(cls.find("\n3,"), std::string::npos) << "class 3 is not Enabled: no class row";
  // The landscape still holds class 3 (Enabled only filters the class output).
  ASSERT_EQ(run_lsm("metrics " + in + " --out " + path("plain") + " -q").code, 0);
  EXPECT_EQ(slurp(path("m.land.csv")), slurp(path("plain.land.csv")));
  EXPECT_EQ(header("plain.class.csv").substr(0, 8), "TYPE,CA,");  // no names, no NAME column

  ASSERT_EQ(run_lsm("metrics " + in + " --out " + path("t") + " --format tidy --class-descriptors " +
                    path("classes.csv") + " -q").code, 0);
  EXPECT_EQ(header("t.tidy.csv"), "level,class,name,id,metric,value");
  EXPECT_NE(slurp(path("t.tidy.csv")).find("class,1,Forest,,CA,"), std::string::npos);
}

// Excel's "CSV UTF-8" starts with a byte order mark; names with control
// characters (a terminal escape) or bytes that are not UTF-8 reach the
// tables with '?' in their place, and UTF-8 names unchanged.
TEST_F(ClassNamesCli, ByteOrderMarkAndUnprintableNames) {
  const std::string in = raster();
  std::ofstream(path("bom.csv")) << "\xEF\xBB\xBFID,Name,Enabled,IsBackground\n1,For\xC3\xAAt,true,false\n"
                                    "2,\x1B[31mRed\x1B[0m,true,false\n3,Wat\xFF" "er,true,false\n";
  const CliRun r = run_lsm("metrics " + in + " --out " + path("m") + " --class-descriptors " + path("bom.csv") + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string cls = slurp(path("m.class.csv"));
  EXPECT_NE(cls.find("\n1,For\xC3\xAAt,"), std::string::npos) << cls;
  EXPECT_NE(cls.find("\n2,?[31mRed?[0m,"), std::string::npos) << cls;
  EXPECT_NE(cls.find("\n3,Wat?er,"), std::string::npos) << cls;
  EXPECT_EQ(printable_text(std::string("a\0b\n\x7F", 5)), "a?b??");
  EXPECT_EQ(printable_text("\xE6\xA3\xAE\xE6\x9E\x97"), "\xE6\xA3\xAE\xE6\x9E\x97");  // 森林
  EXPECT_EQ(printable_text("\xC0\xAF\xED\xA0\x80\xF4\x90\x80\x80\xE6\xA3"), "???????????");  // overlong, surrogate, past U+10FFFF, cut
}

TEST_F(ClassNamesCli, IsBackgroundMakesTheClassBackground) {
  const std::string in = raster();
  std::ofstream(path("classes.csv")) << "1,Forest,true,false\n2,Grass,true,false\n3,Water,true,true\n";
  ASSERT_EQ(run_lsm("metrics " + in + " --out " + path("d") + " --class-descriptors " + path("classes.csv") + " -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + in + " --out " + path("b") + " --background 3 -q").code, 0);
  EXPECT_EQ(slurp(path("d.land.csv")), slurp(path("b.land.csv")));
}

// FRAGSTATS allows several IsBackground classes. With 2 and 3 background,
// class 1 (3 cells, one patch) is the only class: its sides on the raster's
// edge (4) and towards the background (4, the 2|3 sides are no edge) count
// fully with --boundary-edge 1: TE = 8 x 30 m; TA still holds all 12 cells.
TEST_F(ClassNamesCli, SeveralBackgroundClasses) {
  const std::string in = raster();
  std::ofstream(path("classes.csv")) << "1,Forest,true,false\n2,Grass,true,true\n3,Water,true,true\n";
  const CliRun r = run_lsm("metrics " + in + " --out " + path("m") + " --class-descriptors " + path("classes.csv") +
                           " --boundary-edge 1 --metrics TA,CA,NP,PR,TE --level class,land -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("m.land.csv")), "TA,NP,TE,PR\n1.08,1,240,1\n");
  EXPECT_EQ(slurp(path("m.class.csv")), "TYPE,NAME,CA,NP,TE\n1,Forest,0.27,1,240\n");
}

TEST_F(ClassNamesCli, AttributeTableNamesTheClasses) {
  const std::string in = raster();
  write_class_name_table(in, {{1, "deciduous forest"}, {3, "open water"}});
  const CliRun r = run_lsm("metrics " + in + " --out " + path("m") + " --print -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string cls = slurp(path("m.class.csv"));
  EXPECT_NE(cls.find("\n1,deciduous forest,"), std::string::npos) << cls;
  EXPECT_NE(cls.find("\n2,,"), std::string::npos) << "a class without a name has an empty NAME";
  EXPECT_NE(r.out.find("open water"), std::string::npos) << r.out;
}

// Zones, batches and change name the classes as lsm metrics does: a NAME
// column after TYPE in the class table (after the key), "name" in tidy.
TEST_F(ClassNamesCli, ZonesBatchesAndChangeNameTheClasses) {
  const std::string in = raster();
  write_class_name_table(in, {{1, "deciduous forest"}, {3, "open water, deep"}});
  ASSERT_EQ(run_lsm("metrics " + in + " --out " + path("m") + " -q --level class").code, 0);
  const std::string alone = slurp(path("m.class.csv"));
  // Every line of lsm metrics' class table with the key in front.
  const auto keyed = [&](const std::string& key) {
    std::istringstream lines(alone);
    std::string line, out;
    std::getline(lines, line);
    out = (key == "ZONE" ? "ZONE," : "LID,") + line + "\n";
    while (std::getline(lines, line)) out += (key == "ZONE" ? "0_0," : "r.tif,") + line + "\n";
    return out;
  };
  ASSERT_EQ(run_lsm("zonal " + in + " --grid 10 --level class -o " + path("z") + " -q").code, 0);
  EXPECT_EQ(slurp(path("z.class.csv")), keyed("ZONE"));
  // A batch of this raster and an unnamed one: NAME empty for the other's classes.
  const double gt[6] = {0, 30, 0, 0, 0, -30};
  std::filesystem::create_directories(path("plain"));
  const std::string plain = write_4x3("plain/p.tif", GDT_Byte, gt, 3035, {1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1});
  ASSERT_EQ(run_lsm("metrics " + in + " " + plain + " --level class -o " + path("b") + " -q").code, 0);
  const std::string batch = slurp(path("b.class.csv"));
  EXPECT_EQ(batch.substr(0, keyed("LID").size()), keyed("LID"));
  EXPECT_NE(batch.find("\np.tif,1,,"), std::string::npos) << batch;
  ASSERT_EQ(run_lsm("metrics " + in + " " + plain + " --level class --format tidy -o " + path("t") + " -q").code, 0);
  const std::string tidy = slurp(path("t.tidy.csv"));
  EXPECT_EQ(tidy.substr(0, tidy.find('\n')), "lid,level,class,name,id,metric,value");
  EXPECT_NE(tidy.find("\nr.tif,class,3,\"open water, deep\",,CA,"), std::string::npos) << tidy;
  ASSERT_EQ(run_lsm("change " + in + " " + plain + " --level class -o " + path("c") + " -q").code, 0);
  EXPECT_EQ(slurp(path("c.class.csv")).substr(0, keyed("LID").size()), keyed("LID"));
}

TEST_F(ClassNamesCli, BadDescriptorFilesGetOneLine) {
  const std::string in = raster();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1,Forest,true\n", "3 fields, expected 4: ID, Name, Enabled, IsBackground"},
      {"x,Forest,true,false\n", "'x' is not a class code"},
      {"1,Forest,maybe,false\n", "Enabled must be true or false, not 'maybe'"},
      {"1,A,true,false\n1,B,true,false\n", "class 1 is described twice"}};
  for (const auto& [text, message] : cases) {
    std::ofstream(path("bad.csv"), std::ios::trunc) << text;
    const CliRun r = run_lsm("metrics " + in + " --out " + path("m") + " --class-descriptors " + path("bad.csv") + " -q");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace lsm::test
