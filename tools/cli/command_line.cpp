#include "command_line.h"

#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "error.h"
#include "huge_page_start.h"

namespace lsm::cli {

namespace po = boost::program_options;

namespace {

// The options of `spec` as Program_options descriptions. Every value is
// kept as text: the declaration's validator parses and checks it, so the
// command line and the driver give the same messages.
po::options_description options_of(const ops::OperationSpec& spec) {
  po::options_description desc("lsm " + spec.name + " options");
  for (const ops::ParameterSpec& p : spec.parameters) {
    if (!p.shown_in(ops::kCommandLine)) continue;
    const std::string names = p.name + (p.short_name ? std::string(",") + p.short_name : "");
    std::string help = p.described();
    if (p.choices_listed_apart()) {
      help += "; --list-" + p.name + " lists them";
      const std::string listing = "list-" + p.name, listing_help = "list the values of --" + p.name + " and exit";
      desc.add_options()(listing.c_str(), po::bool_switch(), listing_help.c_str());
    }
    if (p.type == ops::ParameterType::Flag) {
      desc.add_options()(names.c_str(), po::bool_switch(), help.c_str());
      continue;
    }
    const std::string metavar = p.metavar.empty() ? "arg" : p.metavar;
    if (p.repeatable) {
      desc.add_options()(names.c_str(), po::value<std::vector<std::string>>()->composing()->value_name(metavar), help.c_str());
    } else if (p.default_value) {
      desc.add_options()(names.c_str(), po::value<std::string>()->default_value(*p.default_value)->value_name(metavar),
                         help.c_str());
    } else {
      desc.add_options()(names.c_str(), po::value<std::string>()->value_name(metavar), help.c_str());
    }
  }
  desc.add_options()("help,h", "show this help");
  return desc;
}

// The older spellings of the options (ParameterSpec::aliases): accepted,
// not listed by --help (the option's own help names them).
po::options_description aliases_of(const ops::OperationSpec& spec) {
  po::options_description desc("older spellings");
  for (const ops::ParameterSpec& p : spec.parameters) {
    if (!p.shown_in(ops::kCommandLine)) continue;
    for (const std::string& a : p.aliases) {
      if (p.type == ops::ParameterType::Flag) desc.add_options()(a.c_str(), po::bool_switch(), "");
      else if (p.repeatable) desc.add_options()(a.c_str(), po::value<std::vector<std::string>>()->composing(), "");
      else desc.add_options()(a.c_str(), po::value<std::string>(), "");
    }
  }
  return desc;
}

po::positional_options_description positionals_of(const ops::OperationSpec& spec) {
  po::positional_options_description pos;
  for (int position = 1;; ++position) {
    const ops::ParameterSpec* at = nullptr;
    for (const ops::ParameterSpec& p : spec.parameters)
      if (p.position == position && p.shown_in(ops::kCommandLine)) at = &p;
    if (!at) break;
    pos.add(at->name.c_str(), at->repeatable ? -1 : 1);  // several inputs: the rest of the positionals
    if (at->repeatable) break;
  }
  return pos;
}

// GDAL's terminal progress ("0...10...20...30 ... 100 - done."), drawn as
// GDALTermProgress draws it (a digit each 10 %, a dot each 2.5 %), but on
// stderr: GDALTermProgress writes to stdout, which may carry results
// (`--print`, `--describe`) that a redirection must get alone.
// Whether the progress line is unfinished (for end_progress_line_now()).
volatile sig_atomic_t progress_mid_line = 0;

ProgressFn terminal_progress(bool quiet) {
  if (quiet) return {};
  auto last_tick = std::make_shared<int>(-1);
  return [last_tick](double f) {
    const int tick = static_cast<int>(std::clamp(f, 0.0, 1.0) * 40.0);
    if (tick < *last_tick && *last_tick >= 39) *last_tick = -1;  // a new run of the progress
    if (tick <= *last_tick) return true;
    while (*last_tick < tick) {
      ++*last_tick;
      if (*last_tick % 4 == 0) std::fprintf(stderr, "%d", *last_tick / 4 * 10);
      else std::fputs(".", stderr);
    }
    if (tick == 40) std::fputs(" - done.\n", stderr);
    std::fflush(stderr);
    progress_mid_line = tick < 40;
    return true;
  };
}

}  // namespace

void end_progress_line_now() {
  if (!progress_mid_line) return;
  progress_mid_line = 0;
  [[maybe_unused]] const ssize_t written = ::write(2, "\n", 1);
}

static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

std::atomic<bool>& cancel_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

std::string command_help(const ops::OperationSpec& spec) {
  std::ostringstream out;
  out << spec.usage << "\n" << options_of(spec) << "\n";
  return out.str();
}

namespace {
ops::RankTransport* the_ranks = nullptr;  // set once by main() before any command runs
}  // namespace

void set_ranks(ops::RankTransport* ranks) { the_ranks = ranks; }

int run_command(const ops::Operation& operation, const std::vector<std::string>& args) {
  const ops::OperationSpec& spec = operation.spec;
  po::options_description desc = options_of(spec);
  const po::options_description older = aliases_of(spec);
  po::options_description accepted;
  accepted.add(desc).add(older);
  po::variables_map vm;
  try {
    // allow_long_disguise: GDAL's -of and -co are long options with one dash.
    // No guessing of abbreviated names: a new option would make an old
    // abbreviation (or -n, read as a long name first) ambiguous.
    const int style = (po::command_line_style::default_style & ~po::command_line_style::allow_guessing) |
                      po::command_line_style::allow_long_disguise;
    po::store(po::command_line_parser(args).options(accepted).positional(positionals_of(spec)).style(style).run(), vm);
  } catch (const po::unknown_option& e) {
    // A typo gets the option meant: "--neighbours" -> --neighbors.
    std::string typed = e.get_option_name();
    typed.erase(0, typed.find_first_not_of('-'));
    const std::string meant = spec.name_meant(typed, ops::kCommandLine);
    throw Error(ErrorKind::BadInput, std::string(e.what()) + (meant.empty() ? "" : "; did you mean --" + meant + "?") +
                                         " (see --help)");
  } catch (const po::error& e) {
    throw Error(ErrorKind::BadInput, std::string(e.what()) + " (see --help)");
  }
  if (vm.count("help")) {
    std::cout << command_help(spec);
    return 0;
  }
  for (const ops::ParameterSpec& p : spec.parameters)
    if (p.shown_in(ops::kCommandLine) && p.choices_listed_apart() && vm["list-" + p.name].as<bool>()) {
      std::cout << p.choice_listing();
      return 0;
    }
  ops::ParameterValues values(spec, ops::kCommandLine);
  for (const ops::ParameterSpec& p : spec.parameters) {
    if (!p.shown_in(ops::kCommandLine)) continue;
    // The option under its name or one older spelling, not both.
    std::string spelled;
    std::vector<std::string> names{p.name};
    names.insert(names.end(), p.aliases.begin(), p.aliases.end());
    for (const std::string& name : names) {
      if (!vm.count(name) || vm[name].defaulted()) continue;
      if (p.type == ops::ParameterType::Flag && !vm[name].as<bool>()) continue;
      if (!spelled.empty())
        throw Error(ErrorKind::BadInput, "--" + spelled + " and --" + name + " are one option (--" + p.name + "); give it once");
      spelled = name;
    }
    if (spelled.empty()) continue;
    if (p.type == ops::ParameterType::Flag) {
      values.set(spelled, "yes");
    } else if (p.repeatable) {  // set as spelled, so that a bad value's message names what was typed
      for (const std::string& v : vm[spelled].as<std::vector<std::string>>()) values.set(spelled, v);
    } else {
      values.set(spelled, vm[spelled].as<std::string>());
    }
  }
  values.check_required();
  restart_for_large_inputs(values);  // on huge pages, once, where the input is large
  ops::RunContext context;
  context.cancel = &cancel_flag();
  context.ranks = the_ranks;
  context.quiet = spec.find("quiet") && values.flag("quiet");
  context.progress = terminal_progress(context.quiet);
  context.note = [](const std::string& line) {  // on a line of its own, not after the progress dots
    end_progress_line_now();
    std::cerr << "lsm: " << line << "\n";
  };
  operation.run(values, context);
  return 0;
}

}  // namespace lsm::cli
