#pragma once
// The operation layer: each lsm operation (metrics, label, patchmetric,
// synth, kmeans, gradient, pyramid, hog, fuzzy) is one declaration of its
// parameters plus one run. Every front end renders the declaration: the CLI
// builds its options and --help from it (tools/cli/command_line.h), `lsm
// --describe` prints it as JSON for the QGIS provider (operation_json.h), and
// the GDAL driver builds its open-option list and checks connection strings
// with it (gdal_driver/plugin/connection.h). Values are checked by one
// validator per parameter, so a bad value gets the same message everywhere.
// The model is GDAL's own algorithm framework (gcore/gdalalgorithm.h, 3.11).
// No GDAL type appears here: runs open their inputs and outputs themselves.
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "progress.h"
#include "raster.h"
#include "run_budget.h"
#include "served_raster.h"

namespace lsm::ops {

/// How a parameter's values are written and checked.
enum class ParameterType {
  Integer,  ///< a whole number ("8")
  Number,   ///< a real number ("1.05")
  String,   ///< free text, or one of `choices`
  Flag      ///< present or not (CLI switch; YES/NO in the driver)
};

/// What a text value names on the machine that runs it, for front ends that
/// offer a picker (QGIS's file and folder fields).
enum class PathKind {
  None,    ///< not a path
  File,    ///< a file the run reads (a class descriptor file, initial centres)
  Folder   ///< a folder the run writes into (the scratch folder)
};

/// What a parameter names: a value, or a dataset the run reads or writes.
enum class ParameterRole {
  Value,
  InputRaster,        ///< a raster GDAL opens
  InputVector,        ///< a vector dataset OGR opens (zones, points): the dataset kind zonal operations declare
  /// A small text table the run reads (FRAGSTATS' .fce, .fsq, .fdt): a file
  /// on the command line and in QGIS; in the service a file under a data
  /// root or an inline text value, like the datasets.
  InputTable,
  OutputRaster,       ///< a raster written (GeoTIFF or -of)
  OutputFile,         ///< another file written (.npy, JSON)
  OutputTablePrefix,  ///< the prefix of CSV tables
  OutputFolder,       ///< a folder of outputs
  OutputVector        ///< a vector dataset written (GeoPackage ...)
};

/// How a raster output is best drawn (dialogs style it; docs/QGIS.md).
enum class RasterStyle {
  None,        ///< no hint
  Identifiers, ///< one value per object (patch IDs): random colours
  Classes,     ///< a few categories (classes, masks): one colour per value
  Continuous   ///< measurements (metrics, gradients): a colour ramp
};

/// Which front ends show a parameter or an operation (bit mask).
enum FrontEnd : unsigned {
  kCommandLine = 1,  ///< lsm <command> and --describe (the QGIS provider)
  kDriver = 2,       ///< LSM:<operation>:... connection strings and open options
  kService = 4,      ///< lsm serve: OGC API - Processes inputs
  kEveryFrontEnd = 7
};

/// Who may set a parameter, by what it is for. It decides the front ends
/// that show it (ParameterSpec::front_ends), so that the reason is declared,
/// not a mask: a service hides what it must not take from a client.
enum class Visibility {
  Everyone,      ///< a value of the analysis: every front end that shows the operation
  Presentation,  ///< how one front end presents a run (-q, --print, -of/-co): the command line's; the driver and the service decide these themselves
  Trusted        ///< names a path on the machine that runs it (scratch folder, descriptor or seed files): never a remote client's
};

/// One file (or folder) an output parameter makes: what the service lists as
/// the process's outputs, `--describe` prints and dialogs load.
struct DeclaredFile {
  std::string id;           ///< output ID: "patch", "stats", "levels"
  std::string suffix;       ///< appended to the output argument (".patch.csv"); "" = the argument itself
  std::string media_type;   ///< "text/csv", "application/json", kCogMediaType ...
  std::string description;  ///< one line
};

/// The media type of lsm's raster outputs as the service writes them.
constexpr const char* kCogMediaType = "image/tiff; application=geotiff; profile=cloud-optimized";

/// One parameter of an operation. Build one with the helpers below, e.g.
///   integer("edge-depth", "edge depth for core metrics").with_default("1").at_least(1).in("cells")
struct ParameterSpec {
  std::string name;                          ///< CLI spelling: --edge-depth
  char short_name = 0;                       ///< CLI short option (-q), 0 = none
  ParameterType type = ParameterType::String;
  ParameterRole role = ParameterRole::Value;
  std::string help;                          ///< one sentence, no default in it
  std::string label;                         ///< a dialog's field name; default: from the name
  std::string unit;                          ///< "cells", "m", "bytes", ... ("" = none)
  std::string metavar;                       ///< placeholder in messages ("K"); default: upper-case name
  std::optional<std::string> default_value;  ///< as text; none = absent unless given
  std::vector<std::string> choices;          ///< allowed values (empty = any)
  /// A few words per choice, in the order of `choices`, that dialogs show
  /// beside the value ("8 — edges and corners, FRAGSTATS' default"); the
  /// value stays what is stored and typed. Empty = the values alone.
  std::vector<std::string> choice_labels;
  /// Longer notes per choice (a metric's levels and family), in the order of
  /// `choices`, for a listing of the values; empty = none.
  std::vector<std::string> choice_details;
  std::optional<double> minimum, maximum;    ///< inclusive range of Integer/Number values
  bool required = false;
  bool repeatable = false;                   ///< CLI: given several times; driver: values joined by ';'
  bool comma_list = false;                   ///< the value is a comma-separated subset of `choices`
  bool advanced = false;                     ///< technical (backend, tile size, memory, format): dialogs fold it away
  RasterStyle style = RasterStyle::None;     ///< of an OutputRaster
  /// The files of an output parameter; empty = the role's one file (see files_made()).
  std::vector<DeclaredFile> files;
  int position = 0;                          ///< 1-based position on the CLI (0 = named only)
  unsigned front_ends = kEveryFrontEnd;
  Visibility visibility = Visibility::Everyone;
  PathKind path = PathKind::None;            ///< of a text value that names a file or folder
  /// Of an integer that numbers a band (1-based): the input raster parameter
  /// whose bands it picks from, so dialogs list that raster's bands; "" = none.
  std::string band_of;
  /// Of a text naming an attribute (a zone's name field): the input vector
  /// parameter whose fields it picks from, so dialogs list that layer's
  /// fields; "" = none.
  std::string field_of;
  std::string driver_spelling;               ///< driver name when not the name with '_' for '-'
  /// Older spellings, still accepted everywhere (documented in --help and
  /// --describe) so that no script breaks when a name is made to mean one
  /// thing across operations.
  std::vector<std::string> aliases;
  /// Further check of one value (a size, a seed); throws lsm::Error(BadInput)
  /// with the problem only ("is not X,Y"): the caller prefixes the name.
  /// When given, it decides instead of `choices` (which then only list).
  std::function<void(const std::string& value)> check;

  /// The driver's name: lower case with '_' (edge_depth), or driver_spelling.
  std::string driver_name() const;
  /// The label, else the name as words ("edge-depth": "Edge depth").
  std::string title() const;
  /// The help as a sentence for a text front end (CLI --help, the driver's
  /// option list, the service's input description): with the unit, and for a
  /// choice with labels every value with its label ("neighbour rule — 4: edges
  /// only; 8: edges and corners, FRAGSTATS' default").
  std::string described() const;
  /// Whether described() leaves the choices out (a labelled subset: too many
  /// for one help line), so that a text front end lists them apart
  /// (`--list-NAME` on the command line).
  bool choices_listed_apart() const { return comma_list && !choice_labels.empty(); }
  /// Lines a listing of the choices ends with (after a blank line): what is
  /// known but not a choice yet (the metrics lsm does not compute). "" = none.
  std::string listing_footer;
  /// The choices one per line, in columns: value, label, details; then the
  /// listing_footer.
  std::string choice_listing() const;
  bool shown_in(FrontEnd f) const { return (front_ends & f) != 0; }
  /// True for the roles that name something the run writes.
  bool is_output() const {
    return role != ParameterRole::Value && !is_input();
  }
  /// True for the roles that name a dataset or table the run reads.
  bool is_input() const {
    return role == ParameterRole::InputRaster || role == ParameterRole::InputVector || role == ParameterRole::InputTable;
  }
  /// The files an output parameter makes: `files`, else by role one raster
  /// (".tif", COG) or one vector (".gpkg") named after the parameter.
  std::vector<DeclaredFile> files_made() const;

  // Fluent setters, each returning a copy for chaining.
  ParameterSpec with_default(std::string v) const;
  ParameterSpec one_of(std::vector<std::string> values) const;
  /// Choices with labels: (value, label) pairs, in the order shown.
  ParameterSpec one_of_labelled(std::vector<std::pair<std::string, std::string>> values_and_labels) const;
  /// Labels for the choices already set (same order, one each).
  ParameterSpec labelled(std::vector<std::string> labels) const;
  /// Details for the choices already set (same order, one each).
  ParameterSpec detailed(std::vector<std::string> details) const;
  /// The listing_footer.
  ParameterSpec listed_with(std::string footer) const;
  ParameterSpec at_least(double v) const;
  ParameterSpec at_most(double v) const;
  ParameterSpec in(std::string unit_name) const;
  ParameterSpec needed() const;
  ParameterSpec several() const;
  ParameterSpec at_position(int p) const;
  ParameterSpec only(unsigned front_end_mask) const;
  /// Visibility::Presentation: shown on the command line only.
  ParameterSpec presentation() const;
  /// Visibility::Trusted: names a path on the machine that runs it, so the
  /// service never shows it (the command line and, where shown, the driver do).
  ParameterSpec trusted() const;
  /// A text value that names a file (PathKind::File) or folder (PathKind::Folder).
  ParameterSpec naming(PathKind kind) const;
  /// An integer numbering a band of the input raster parameter `input` (band_of).
  ParameterSpec band_of_input(std::string input = "input") const;
  /// A text naming an attribute of the input vector parameter `input` (field_of).
  ParameterSpec field_of_input(std::string input) const;
  ParameterSpec short_option(char c) const;
  ParameterSpec named_in_driver(std::string spelling) const;
  /// An older spelling still accepted (aliases).
  ParameterSpec also_spelled(std::string old_name) const;
  ParameterSpec with_metavar(std::string m) const;
  ParameterSpec with_help(std::string h) const;
  ParameterSpec titled(std::string l) const;
  ParameterSpec technical() const;  ///< marks it advanced
  ParameterSpec drawn_as(RasterStyle s) const;
  /// The files this output makes (DeclaredFile).
  ParameterSpec making(std::vector<DeclaredFile> list) const;
  /// The value is a comma-separated subset of `values` (listed for dialogs;
  /// a check function, where given, still decides).
  ParameterSpec subset_of(std::vector<std::string> values) const;
  ParameterSpec checked_by(std::function<void(const std::string&)> f) const;
};

ParameterSpec integer(std::string name, std::string help);
ParameterSpec number(std::string name, std::string help);
ParameterSpec text(std::string name, std::string help);
ParameterSpec flag(std::string name, std::string help);
ParameterSpec input_raster(std::string name, std::string help);
/// A vector dataset the run reads (OGR: GeoPackage, Shapefile, GeoJSON ...).
ParameterSpec input_vector(std::string name, std::string help);
/// A text table the run reads (ParameterRole::InputTable; QGIS: a file
/// field); on the command line and in the service.
ParameterSpec input_table(std::string name, std::string help);

/// A rule between two parameters of one operation, declared once and checked
/// by ParameterValues::check_required() for every front end. "Given" means
/// set (a flag: set to yes); a parameter the front end does not show counts
/// as not given.
struct ParameterRule {
  enum Kind {
    Excludes,  ///< `first` and `second` are not given together ("--grey and --band exclude each other")
    Requires,  ///< `first` given needs `second` given ("--mask needs --threshold")
    OneOf      ///< exactly one of the two is given ("give --seed-cell or --seeds-from (one of the two)")
  };
  Kind kind;
  std::string first, second;
};
ParameterRule excludes(std::string first, std::string second);
ParameterRule requires_also(std::string first, std::string second);
ParameterRule one_of_the_two(std::string first, std::string second);
ParameterSpec output(ParameterRole role, std::string name, std::string help);

/// An operation's declaration.
struct OperationSpec {
  std::string name;     ///< the CLI command and the driver's operation
  std::string summary;  ///< one line
  std::string title;     ///< a dialog's or a menu's name ("Patch IDs"); the CLI shows `name`
  std::string category;  ///< "Landscape metrics", "Image analysis" or "Segmentation": a toolbox group
  std::string manual;    ///< its page of docs/ ("metrics.md"), which front ends open as its help
  int passes = 1;        ///< reads of the input a default run makes (0: one per iteration), for the note on large runs
  std::string usage;    ///< the CLI's usage line(s)
  std::vector<ParameterSpec> parameters;
  /// Rules between parameters (ParameterRule), checked with the required ones.
  std::vector<ParameterRule> rules;
  unsigned front_ends = kEveryFrontEnd;
  /// How the GDAL driver serves its raster (when front_ends has kDriver).
  RasterServing serving;

  /// The parameter named `name`, or nullptr.
  const ParameterSpec* find(const std::string& name) const;
  /// The parameter named `name` or spelled so in the past (aliases), or nullptr.
  const ParameterSpec* find_spelled(const std::string& name) const;
  /// The name (or older spelling) a typo `typed` probably meant, among the
  /// parameters `front_end` shows: "neighbours" gives "neighbors"; empty
  /// when none is near enough (near_match.h).
  std::string name_meant(const std::string& typed, FrontEnd front_end) const;
  /// By driver name (case-insensitive), among those the driver shows; or nullptr.
  const ParameterSpec* find_driver(const std::string& driver_name) const;
};

/// The values of one call, checked against the spec as they are set. The
/// front end decides how names are spelled in messages: "--k" on the command
/// line, "option k" in the driver.
class ParameterValues {
 public:
  ParameterValues(const OperationSpec& spec, FrontEnd front_end);

  /// Sets (or, for a repeatable parameter, adds) a value; `name` may be an
  /// older spelling (ParameterSpec::aliases). Throws lsm::Error(BadInput)
  /// naming the parameter as `name` spells it when the value is malformed, not a choice, out of
  /// range, or the parameter is unknown.
  void set(const std::string& name, const std::string& value);
  /// Throws lsm::Error(BadInput) "<operation> needs the option --k K" (or
  /// "LSM:kmeans needs the option k=K") for a missing required parameter,
  /// and the rule's one line for a broken OperationSpec::rules entry.
  void check_required() const;
  /// Whether the parameter counts as given for the rules: set, and for a
  /// flag set to yes.
  bool present(const std::string& name) const;

  /// Whether the parameter was given (defaults do not count).
  bool given(const std::string& name) const { return values_.count(name) != 0; }
  /// The value given, else the default, else "".
  std::string text(const std::string& name) const;
  /// Every value given of a repeatable parameter (the default, if none).
  std::vector<std::string> texts(const std::string& name) const;
  long long integer(const std::string& name) const;  ///< 0 when absent with no default
  double number(const std::string& name) const;      ///< 0 when absent with no default
  bool flag(const std::string& name) const;
  std::optional<double> optional_number(const std::string& name) const;

  /// How this front end spells the parameter in messages: "--k", "option k"
  /// or "input k" (the service).
  std::string spelled(const std::string& name) const;
  /// lsm::Error(BadInput) with "<spelled name> <problem>".
  [[noreturn]] void fail(const std::string& name, const std::string& problem) const;
  const OperationSpec& spec() const { return spec_; }
  FrontEnd front_end() const { return front_end_; }

 private:
  const ParameterSpec& parameter(const std::string& name) const;
  const OperationSpec& spec_;
  FrontEnd front_end_;
  std::map<std::string, std::vector<std::string>> values_;
};

/// What a run gets besides its values.
class RankTransport;

struct RunContext {
  ProgressFn progress;                        ///< the front end's progress, or none
  bool quiet = false;                         ///< no notes on stdout/stderr
  const std::atomic<bool>* cancel = nullptr;  ///< set by the front end to stop the run
  /// Where notes and warnings go, one line each without the "lsm: " prefix
  /// ("note: ..."); none = stderr, as the command line prints them. Notes
  /// are not progress: `quiet` does not silence them.
  std::function<void(const std::string& line)> note;

  /// The format of raster outputs where the run is given no -of/-co
  /// (raster_output_format() in common_parameters.h): GTiff by default; the
  /// service's jobs write Cloud Optimized GeoTIFFs. Per run, so that runs in
  /// one process (the service's workers, the driver) never share it.
  RasterFormat raster_format;
  /// The run's budget where its values give none (run_budget() in
  /// common_parameters.h): memory (1G), scratch folder, device bytes. The
  /// service gives each job its own: --job-memory and the job's folder.
  RunBudget budget;
  /// When not 0, the most a run's --memory-limit may ask for (bytes): the
  /// service's --job-memory. A run that asks for more is refused before any
  /// work. 0 = no ceiling (the command line and the driver).
  uint64_t memory_ceiling = 0;
  /// The MPI ranks running this command with it (mpirun -n N lsm ...), this
  /// process rank 0; null in one process. Operations whose first pass can be
  /// shared (lsm metrics on one raster, lsm label) scan in row ranges across
  /// them (row_range_scan.h); the others run here alone.
  RankTransport* ranks = nullptr;

  /// Hands `line` to `note`, else prints "lsm: <line>" on stderr unless quiet.
  void notify(const std::string& line) const;

  /// `progress` joined with the cancel flag: false once cancelled, so the
  /// engine stops between tiles and throws Error(Io, "interrupted"). Never
  /// empty when a cancel flag is present (quiet runs can be cancelled too).
  ProgressFn checked_progress() const;
};

/// An operation: its declaration and its run. The run reads only `values`,
/// throws lsm::Error for every failure, and leaves no output behind when it
/// fails or is cancelled (outputs are written under a temporary name).
struct Operation {
  OperationSpec spec;
  std::function<void(const ParameterValues& values, const RunContext& context)> run;
};

}  // namespace lsm::ops
