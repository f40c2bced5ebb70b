// The operation layer (gdal_driver/operations): every front end renders the
// same declaration. The command line's --help, `lsm --describe` and the GDAL
// driver's open-option list are compared with each operation's spec; a bad
// value gets the same message through the CLI and an LSM: connection string;
// a cancelled run (the cancel token, GDAL's progress callback) leaves no
// output and no temporary file.
#include <gdal_priv.h>
#include <gdal_utils.h>

#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli_fixture.h"
#include "error.h"
#include "metric_catalogue.h"
#include "operations.h"

namespace lsm::test {
namespace {

using Json = nlohmann::json;

class Operations : public CliFixture {
 protected:
  CliRun gdal(const std::string& tool_and_args) { return run_gdal_tool(tool_and_args); }
  std::string sample() const { return std::string(LSM_SOURCE_DIR) + "/sample_rasters/nlm_fbm_400x300.tif"; }
};

// The JSON value of a text default or choice as --describe types it.
Json typed(const ops::ParameterSpec& p, const std::string& v) {
  if (p.type == ops::ParameterType::Integer) return std::stoll(v);
  if (p.type == ops::ParameterType::Number) return Json::parse(v);
  return v;
}

TEST_F(Operations, DescribeHelpAndDriverOptionsRenderTheSpec) {
  const CliRun describe = run_lsm("--describe");
  ASSERT_EQ(describe.code, 0) << describe.err;
  const Json doc = Json::parse(describe.out);
  const CliRun format = gdal("gdalinfo --format LSM");
  ASSERT_EQ(format.code, 0) << format.err;
  size_t commands = 0;
  for (const ops::Operation& op : ops::operations()) {
    const ops::OperationSpec& spec = op.spec;
    SCOPED_TRACE(spec.name);
    const CliRun help = run_lsm(spec.name + " --help");
    const bool on_command_line = spec.front_ends & ops::kCommandLine;
    if (!on_command_line) continue;
    ++commands;
    EXPECT_EQ(help.code, 0);
    EXPECT_EQ(help.out.rfind(spec.usage, 0), 0u) << help.out;
    const Json* command = nullptr;
    for (const Json& c : doc["commands"])
      if (c["name"] == spec.name) command = &c;
    ASSERT_NE(command, nullptr);
    EXPECT_EQ((*command)["summary"], spec.summary);
    std::vector<std::string> described;
    for (const Json& j : (*command)["parameters"]) described.push_back(j["name"]);
    std::vector<std::string> declared;
    for (const ops::ParameterSpec& p : spec.parameters) {
      SCOPED_TRACE(p.name);
      if (p.shown_in(ops::kCommandLine)) {
        declared.push_back(p.name);
        // --help: the option, with its default.
        const std::regex shown("--" + p.name + "( \\])?( \\S+)?" +
                               (p.default_value ? " \\(=" + std::regex_replace(*p.default_value, std::regex("[.+]"), "\\$&") + "\\)" : "") + "( |\n)");
        EXPECT_TRUE(std::regex_search(help.out, shown)) << p.name << " in\n" << help.out;
        // --describe: type, default, choices, required, driver name.
        const auto j = std::find_if((*command)["parameters"].begin(), (*command)["parameters"].end(),
                                    [&](const Json& x) { return x["name"] == p.name; });
        ASSERT_NE(j, (*command)["parameters"].end());
        EXPECT_EQ((*j)["required"], p.required);
        EXPECT_EQ((*j)["multiple"], p.repeatable);
        EXPECT_EQ((*j)["positional"], p.position);
        if (p.type != ops::ParameterType::Flag)
          EXPECT_EQ((*j)["default"], p.default_value ? typed(p, *p.default_value) : Json(nullptr));
        Json choices = p.choices.empty() ? Json(nullptr) : Json::array();
        for (const std::string& c : p.choices) choices.push_back(typed(p, c));
        EXPECT_EQ((*j)["choices"], choices);
        // Labels: none, or one per choice, as declared.
        EXPECT_TRUE(p.choice_labels.empty() || p.choice_labels.size() == p.choices.size());
        EXPECT_EQ((*j)["choice_labels"], p.choice_labels.empty() ? Json(nullptr) : Json(p.choice_labels));
        EXPECT_EQ((*j)["driver"], p.shown_in(ops::kDriver) ? Json(p.driver_name()) : Json(nullptr));
      }
      if (p.shown_in(ops::kDriver) && (spec.front_ends & ops::kDriver)) {
        // The driver's option list: the option, with this operation named in it.
        std::string upper = p.driver_name();
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const std::regex option("<Option name=\"" + upper + "\"[^>]*description=\"[^\"]*\\b" + spec.name + "\\b");
        EXPECT_TRUE(std::regex_search(format.out, option)) << upper << " for " << spec.name;
        for (const std::string& c : p.choices)
          if (p.type == ops::ParameterType::String)
            EXPECT_NE(format.out.find("<Value>" + c + "</Value>"), std::string::npos) << c;
      }
    }
    EXPECT_EQ(described, declared);
  }
  EXPECT_EQ(doc["commands"].size(), commands);
}

// The CLI's "--k must be ..." and the driver's "option k must be ...": one validator, one message.
TEST_F(Operations, BadValueGetsTheSameMessageFromTheCliAndTheDriver) {
  struct Case {
    std::string command, cli_option, connection, driver_option;
  };
  const std::string in = sample();
  for (const Case& c : {Case{"label " + in + " " + path("x.tif") + " --neighbors 6", "--neighbors",
                             "LSM:label:neighbors=6:" + in, "option neighbors"},
                        Case{"kmeans " + in + " " + path("x.tif") + " --k 0", "--k", "LSM:kmeans:k=0:" + in, "option k"},
                        Case{"pyramid " + in + " " + path("d") + " --resampling cubic", "--resampling",
                             "LSM:pyramid:level=1:resampling=cubic:" + in, "option resampling"},
                        Case{"hog " + in + " " + path("h.npy") + " --norm L3", "--norm", "LSM:hog:norm=L3:" + in, "option norm"},
                        Case{"gradient " + in + " " + path("g.tif") + " --sigma abc", "--sigma",
                             "LSM:gradient:sigma=abc:" + in, "option sigma"},
                        Case{"patchmetric " + in + " " + path("p.tif") + " --metric XYZ", "--metric",
                             "LSM:patchmetric:metric=XYZ:" + in, "option metric"},
                        Case{"fuzzy " + in + " " + path("f.tif") + " --seed-cell 1 --volume", "--seed-cell",
                             "LSM:fuzzy:seeds=1:volume=YES:" + in, "option seeds"},
                        // An older spelling is named as typed.
                        Case{"fuzzy " + in + " " + path("f.tif") + " --seed 1 --volume", "--seed",
                             "LSM:fuzzy:seeds=1:volume=YES:" + in, "option seeds"}}) {
    SCOPED_TRACE(c.command);
    const CliRun cli = run_lsm(c.command + " -q");
    const CliRun drv = gdal("gdalinfo '" + c.connection + "'");
    EXPECT_NE(cli.code, 0);
    EXPECT_NE(drv.code, 0);
    const size_t at_cli = cli.err.find(c.cli_option), at_drv = drv.err.find(c.driver_option);
    ASSERT_NE(at_cli, std::string::npos) << cli.err;
    ASSERT_NE(at_drv, std::string::npos) << drv.err;
    std::string cli_problem = cli.err.substr(at_cli + c.cli_option.size());
    std::string drv_problem = drv.err.substr(at_drv + c.driver_option.size());
    cli_problem = cli_problem.substr(0, cli_problem.find('\n'));
    drv_problem = drv_problem.substr(0, drv_problem.find('\n'));
    EXPECT_FALSE(cli_problem.empty());
    EXPECT_EQ(cli_problem, drv_problem);
  }
  // A missing required value, both ways.
  EXPECT_NE(run_lsm("kmeans " + in + " " + path("x.tif")).err.find("lsm kmeans needs the option --k K"), std::string::npos);
  EXPECT_NE(gdal("gdalinfo LSM:kmeans:" + in).err.find("LSM:kmeans needs the option k=K"), std::string::npos);
}

// A run whose cancel token is set stops between tiles: no output survives,
// for every command (pyramid's levels and metrics' table set included).
TEST_F(Operations, CancelledRunLeavesNoOutput) {
  GDALAllRegister();
  std::filesystem::create_directories(path("dates"));  // change: a later raster on the sample's grid
  std::filesystem::copy_file(sample(), path("dates/later.tif"));
  const auto before = files();
  for (const ops::Operation& op : ops::operations()) {
    const std::string name = op.spec.name;
    SCOPED_TRACE(name);
    if (name == "echo") continue;  // the service's conformance process: one step, nothing to stop between
    ops::ParameterValues values(op.spec, ops::kCommandLine);
    if (op.spec.find("input")) values.set("input", sample());
    if (op.spec.find("output") && name != "metrics" && name != "pyramid" && name != "zonal" && name != "change")
      values.set("output", path(name == "patches" ? "out.gpkg" : "out.tif"));
    if (name == "metrics") values.set("output", path("m"));
    if (name == "pyramid") values.set("output", path("levels"));
    if (op.spec.find("metric")) values.set("metric", "GYRATE");
    if (name == "window") {
      values.set("metrics", "SHDI,PLAND");
      values.set("window-cells", "5");
    }
    if (name == "zonal") values.set("grid", "20"), values.set("output", path("z"));  // 300 zones
    if (name == "change") values.set("later", path("dates/later.tif")), values.set("output", path("c"));
    if (name == "kmeans") values.set("k", "3");
    if (name == "fuzzy") values.set("seed-cell", "200,150");
    if (name == "synth") values.set("width", "4000"), values.set("height", "4000");  // long enough to be stopped
    for (const char* strip : {"strip-rows", "strip-cell-rows"})
      if (op.spec.find(strip)) values.set(strip, "16");  // many progress steps
    std::atomic<bool> cancel{false};
    int calls = 0;
    ops::RunContext context;
    context.cancel = &cancel;
    context.progress = [&](double) {
      if (++calls == 3) cancel = true;  // after the run has started writing
      return true;
    };
    try {
      op.run(values, context);
      ADD_FAILURE() << "the run was not cancelled";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "interrupted");
    }
    EXPECT_GE(calls, 3);
    EXPECT_EQ(files(), before);
    for (const std::string& f : files())
      if (std::find(before.begin(), before.end(), f) == before.end()) std::filesystem::remove_all(path(f));
  }
}

// gdal_translate's progress callback says stop: no output, and the driver's
// temporary result is gone with the dataset.
TEST_F(Operations, DriverRunStoppedByGdalProgressLeavesNoTemporaryFile) {
  GDALAllRegister();
  CPLSetConfigOption("GDAL_DRIVER_PATH", LSM_PLUGIN_DIR);
  GetGDALDriverManager()->AutoLoadDrivers();
  std::filesystem::create_directories(path("tmp"));
  CPLSetConfigOption("CPL_TMPDIR", path("tmp").c_str());
  GDALDatasetH source = GDALOpen(("LSM:patchmetric:metric=AREA:" + sample()).c_str(), GA_ReadOnly);
  ASSERT_NE(source, nullptr) << CPLGetLastErrorMsg();
  char* args[] = {const_cast<char*>("-co"), const_cast<char*>("BLOCKYSIZE=16"), nullptr};
  GDALTranslateOptions* options = GDALTranslateOptionsNew(args, nullptr);
  int calls = 0;
  GDALTranslateOptionsSetProgress(
      options, [](double, const char*, void* data) { return ++*static_cast<int*>(data) < 3 ? TRUE : FALSE; }, &calls);
  int usage_error = 0;
  GDALDatasetH copy = GDALTranslate(path("copy.tif").c_str(), source, options, &usage_error);
  GDALTranslateOptionsFree(options);
  EXPECT_EQ(copy, nullptr);
  EXPECT_GE(calls, 3);
  // The driver's result was computed (the copy had begun) and is read
  // through its open handle: its name is gone already, so nothing is left
  // however the process ends (issue 46 item 14)...
  EXPECT_TRUE(std::filesystem::is_empty(path("tmp")));
  GDALClose(source);
  CPLSetConfigOption("CPL_TMPDIR", nullptr);
  CPLSetConfigOption("GDAL_DRIVER_PATH", nullptr);
  // ...and nothing after the dataset closes.
  EXPECT_TRUE(std::filesystem::is_empty(path("tmp")));
  EXPECT_FALSE(std::filesystem::exists(path("copy.tif")));
}

// docs/metrics.md documents every metric of the catalogue in the tables of
// its levels, with the catalogue's unit; --describe lists the catalogue.
TEST_F(Operations, MetricsMdAndDescribeShowTheCatalogue) {
  std::ifstream in(std::string(LSM_SOURCE_DIR) + "/docs/metrics.md");
  ASSERT_TRUE(in) << "docs/metrics.md";
  std::map<std::string, std::vector<std::string>> units;  // acronym -> units of its rows
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(2));
    std::string cell;
    while (std::getline(row, cell, '|')) cells.push_back(cell);
    if (cells.size() < 3) continue;
    auto trim = [](std::string t) {
      t.erase(0, t.find_first_not_of(' '));
      t.erase(t.find_last_not_of(' ') + 1);
      return t;
    };
    std::istringstream names(cells[0]);
    std::string name;
    while (std::getline(names, name, ',')) units[trim(name)].push_back(trim(cells[2]));
  }
  for (const MetricInfo& m : metric_catalogue()) {
    SCOPED_TRACE(m.acronym);
    if (!m.levels) continue;  // DCORE: a distribution only
    ASSERT_TRUE(units.count(m.acronym)) << "no row in docs/metrics.md";
    for (const std::string& u : units[m.acronym])
      EXPECT_TRUE(u.empty() || u == m.unit) << "docs/metrics.md gives '" << u << "', the catalogue '" << m.unit << "'";
  }
  const Json doc = Json::parse(run_lsm("--describe").out);
  ASSERT_EQ(doc["metric_catalogue"].size(), metric_catalogue().size());
  for (size_t i = 0; i < metric_catalogue().size(); ++i) {
    EXPECT_EQ(doc["metric_catalogue"][i]["acronym"], metric_catalogue()[i].acronym);
    EXPECT_EQ(doc["metric_catalogue"][i]["unit"], metric_catalogue()[i].unit);
  }
}

// One name, one meaning: a parameter name has one type and one unit in
// every operation that has it (`lsm --describe`); an older spelling (an
// alias) is accepted and gives the same run as the name.
TEST_F(Operations, OneNameOneMeaningAndOlderSpellingsStillWork) {
  const CliRun describe = run_lsm("--describe");
  ASSERT_EQ(describe.code, 0) << describe.err;
  const Json doc = Json::parse(describe.out);
  std::map<std::string, std::pair<std::string, std::string>> meaning;  // name: (type, unit), first seen
  std::map<std::string, std::string> where;
  for (const Json& command : doc["commands"])
    for (const Json& p : command["parameters"]) {
      const std::string name = p["name"];
      const std::pair<std::string, std::string> m{p["type"].get<std::string>(), p["unit"].is_null() ? "" : p["unit"].get<std::string>()};
      const auto [it, first] = meaning.emplace(name, m);
      if (first) where[name] = command["name"];
      EXPECT_EQ(it->second, m) << "--" << name << " of " << command["name"].get<std::string>() << " against "
                               << where[name];
      // One output name: the main output (positional, or the only one) is "output" everywhere.
      if (!p["output"].is_null() && p["positional"].get<int>() > 0) EXPECT_EQ(name, "output") << command["name"];
    }
  // The image operations' strip height and synth's feature size under their old names.
  const std::string in = sample();
  ASSERT_EQ(run_lsm("gradient " + in + " " + path("a.tif") + " --strip-rows 7 -q").code, 0);
  ASSERT_EQ(run_lsm("gradient " + in + " " + path("b.tif") + " --tile-size 7 -q").code, 0);
  EXPECT_EQ(slurp(path("a.tif")), slurp(path("b.tif")));
  ASSERT_EQ(run_lsm("synth " + path("s1.tif") + " --width 60 --height 40 --feature-size 9 -q").code, 0);
  ASSERT_EQ(run_lsm("synth " + path("s2.tif") + " --width 60 --height 40 --scale 9 -q").code, 0);
  EXPECT_EQ(slurp(path("s1.tif")), slurp(path("s2.tif")));
  const CliRun both = run_lsm("gradient " + in + " " + path("c.tif") + " --strip-rows 7 --tile-size 9 -q");
  EXPECT_EQ(both.code, 1);
  EXPECT_NE(both.err.find("are one option (--strip-rows)"), std::string::npos) << both.err;
  // metrics' --out, pyramid's OUTDIR and fuzzy's --seed, renamed, under their old names.
  ASSERT_EQ(run_lsm("metrics " + in + " --output " + path("m1") + " -q").code, 0);
  ASSERT_EQ(run_lsm("metrics " + in + " --out " + path("m2") + " -q").code, 0);
  EXPECT_EQ(slurp(path("m1.class.csv")), slurp(path("m2.class.csv")));
  const std::string image = make_raster("image.tif", 30, 20, 1, [](int x, int, int) { return float(x % 7); });
  ASSERT_EQ(run_lsm("fuzzy " + image + " " + path("f1.tif") + " --seed-cell 3,4 -q").code, 0);
  ASSERT_EQ(run_lsm("fuzzy " + image + " " + path("f2.tif") + " --seed 3,4 -q").code, 0);
  EXPECT_EQ(slurp(path("f1.tif")), slurp(path("f2.tif")));
  const std::string help = run_lsm("gradient --help").out;  // Program_options wraps the line anywhere
  EXPECT_TRUE(std::regex_search(help, std::regex("older spelling:\\s+tile-size"))) << help;
}

// A rule between two parameters is declared once and checked by the same
// code for every front end, in each one's spelling; visibility says why a
// parameter is missing from a front end, and --describe carries both.
TEST_F(Operations, RulesAndVisibilityAreDeclaredOnceForEveryFrontEnd) {
  const ops::Operation* gradient = ops::find_operation("gradient");
  ASSERT_NE(gradient, nullptr);
  const std::pair<ops::FrontEnd, std::string> spellings[] = {
      {ops::kCommandLine, "--grey and --band exclude each other"},
      {ops::kDriver, "option grey and option band exclude each other"},
      {ops::kService, "input grey and input band exclude each other"}};
  for (const auto& [front_end, message] : spellings) {
    ops::ParameterValues values(gradient->spec, front_end);
    values.set("input", sample());
    values.set("output", path("g.tif"));
    values.set("band", "1");
    values.set("grey", "NO");
    EXPECT_NO_THROW(values.check_required());  // a flag set to NO is not given
    values.set("grey", "YES");
    try {
      values.check_required();
      ADD_FAILURE() << "grey with band passed";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
  // One of the two: the service and the driver, which show no --seeds-from, need the seed cells.
  const ops::Operation* fuzzy = ops::find_operation("fuzzy");
  ASSERT_NE(fuzzy, nullptr);
  ops::ParameterValues service(fuzzy->spec, ops::kService);
  service.set("input", sample());
  service.set("output", path("f.tif"));
  try {
    service.check_required();
    ADD_FAILURE() << "fuzzy without seeds passed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "fuzzy needs the input seed-cell");
  }
  const CliRun both = run_lsm("fuzzy " + sample() + " " + path("f.tif") + " --seed-cell 1,1 --seeds-from " + sample());
  EXPECT_EQ(both.code, 1);
  EXPECT_NE(both.err.find("give --seed-cell or --seeds-from (one of the two)"), std::string::npos) << both.err;

  const Json doc = Json::parse(run_lsm("--describe").out);
  std::map<std::string, std::string> visibility;  // "command parameter": visibility
  for (const Json& command : doc["commands"]) {
    for (const Json& p : command["parameters"])
      visibility[command["name"].get<std::string>() + " " + p["name"].get<std::string>()] = p["visibility"];
    if (command["name"] == "gradient") {
      ASSERT_EQ(command["rules"].size(), 1u);
      EXPECT_EQ(command["rules"][0]["kind"], "excludes");
      EXPECT_EQ(command["rules"][0]["parameters"], Json::array({"grey", "band"}));
    }
  }
  for (const char* trusted : {"metrics temp-dir", "kmeans init", "fuzzy seeds-from"})
    EXPECT_EQ(visibility[trusted], "trusted") << trusted;
  // FRAGSTATS' tables are input tables: the service takes them as it takes
  // datasets, under a data root or inline (ParameterRole::InputTable).
  for (const char* table : {"metrics class-descriptors", "metrics contrast-table", "metrics similarity-table",
                            "metrics edge-depth-table", "zonal contrast-table"})
    EXPECT_EQ(visibility[table], "everyone") << table;
  for (const ops::Operation& op : ops::operations())
    for (const ops::ParameterSpec& p : op.spec.parameters)
      if (p.name == "contrast-table" || p.name == "edge-depth-table")
        EXPECT_TRUE(p.role == ops::ParameterRole::InputTable && p.shown_in(ops::kService)) << op.spec.name << " " << p.name;
  for (const char* shown : {"metrics quiet", "metrics print", "gradient of", "gradient co"})
    EXPECT_EQ(visibility[shown], "presentation") << shown;
  EXPECT_EQ(visibility["metrics edge-depth"], "everyone");
  // Trusted parameters never reach the service; presentation ones only the command line.
  for (const ops::Operation& op : ops::operations())
    for (const ops::ParameterSpec& p : op.spec.parameters) {
      if (p.visibility == ops::Visibility::Trusted) EXPECT_FALSE(p.shown_in(ops::kService)) << op.spec.name << " " << p.name;
      if (p.visibility == ops::Visibility::Presentation) EXPECT_EQ(p.front_ends, unsigned(ops::kCommandLine)) << p.name;
    }
}

}  // namespace
}  // namespace lsm::test
