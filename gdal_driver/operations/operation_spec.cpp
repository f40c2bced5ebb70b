#include "operation_spec.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "error.h"
#include "near_match.h"

namespace lsm::ops {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// 1, 1.05, 65534: the shortest text that reads back as `v`.
std::string number_text(double v) {
  if (std::fabs(v) < 1e18 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  std::ostringstream out;
  out.precision(15);
  out << v;
  return out.str();
}

// Integers are read as 64-bit and range-checked before any narrowing; a value
// beyond 64 bits reads as the nearest 64-bit limit, so that the range check
// names it ("must be in 1..32 (got 99999999999999999999)").
bool parse_integer(const std::string& v, long long& out) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(v.c_str(), &end, 10);
  return end == v.c_str() + v.size();
}

// Numbers beyond a double's range read as +-HUGE_VAL, which every range
// refuses; NaN and infinities are not numbers a run can use.
bool parse_number(const std::string& v, double& out) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size()) return false;
  if (std::isnan(out)) return false;
  if (std::isinf(out) && errno != ERANGE) return false;  // "inf" spelled out
  return true;
}

bool parse_flag(const std::string& v, bool& out) {
  const std::string l = lower(v);
  if (l == "yes" || l == "true" || l == "on" || l == "1") out = true;
  else if (l == "no" || l == "false" || l == "off" || l == "0") out = false;
  else return false;
  return true;
}

// "a or b", "a, b or c".
std::string alternatives(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i];
  return out;
}

// "1 cell", "3 cells".
std::string with_unit(double v, const std::string& unit) {
  if (unit.empty()) return number_text(v);
  const bool singular = v == 1 && unit.size() > 1 && unit.back() == 's';
  return number_text(v) + " " + (singular ? unit.substr(0, unit.size() - 1) : unit);
}

// A value as an error line quotes it: at most 60 characters.
std::string shortened(const std::string& value) {
  return value.size() <= 60 ? value : value.substr(0, 60) + "...";
}

// The problem with `value`, or "" when it is good.
std::string problem_of(const ParameterSpec& p, const std::string& value) {
  double x = 0;
  switch (p.type) {
    case ParameterType::Integer: {
      long long n = 0;
      if (!parse_integer(value, n)) return "must be an integer, not '" + shortened(value) + "'";
      x = static_cast<double>(n);
      break;
    }
    case ParameterType::Number:
      if (!parse_number(value, x)) return "must be a finite number, not '" + shortened(value) + "'";
      break;
    case ParameterType::Flag: {
      bool b = false;
      if (!parse_flag(value, b)) return "must be YES or NO, not '" + shortened(value) + "'";
      return "";
    }
    case ParameterType::String:
      break;
  }
  // A check function, where there is one, decides instead of the choices
  // (patch metrics are matched in any case, with their own message).
  if (!p.check && !p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), value) == p.choices.end())
    return "must be " + alternatives(p.choices) + ", not '" + shortened(value) + "'";
  if (p.type == ParameterType::Integer || p.type == ParameterType::Number) {
    const bool low = p.minimum && x < *p.minimum, high = p.maximum && x > *p.maximum;
    if (low || high) {
      if (p.minimum && p.maximum)
        return p.type == ParameterType::Integer
                   ? "must be in " + number_text(*p.minimum) + ".." + number_text(*p.maximum) + " (got " + shortened(value) + ")"
                   : "must be between " + number_text(*p.minimum) + " and " + number_text(*p.maximum) + " (got " +
                         value + ")";
      return low ? "must be at least " + with_unit(*p.minimum, p.unit) + " (got " + shortened(value) + ")"
                 : "must be at most " + with_unit(*p.maximum, p.unit) + " (got " + shortened(value) + ")";
    }
  }
  if (p.check) {
    try {
      p.check(value);
    } catch (const Error& e) {
      // "must be ..." follows the name; any other text after a colon.
      const std::string what = e.what();
      return what.rfind("must", 0) == 0 ? what : ": " + what;
    }
  }
  return "";
}

ParameterSpec make(std::string name, ParameterType type, std::string help) {
  ParameterSpec p;
  p.name = std::move(name);
  p.type = type;
  p.help = std::move(help);
  return p;
}

}  // namespace

std::string ParameterSpec::driver_name() const {
  if (!driver_spelling.empty()) return driver_spelling;
  std::string n = name;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

ParameterSpec ParameterSpec::with_default(std::string v) const { auto c = *this; c.default_value = std::move(v); return c; }
ParameterSpec ParameterSpec::one_of(std::vector<std::string> values) const { auto c = *this; c.choices = std::move(values); return c; }
ParameterSpec ParameterSpec::one_of_labelled(std::vector<std::pair<std::string, std::string>> values_and_labels) const {
  auto c = *this;
  c.choices.clear();
  c.choice_labels.clear();
  for (auto& [value, label] : values_and_labels) {
    c.choices.push_back(std::move(value));
    c.choice_labels.push_back(std::move(label));
  }
  return c;
}
ParameterSpec ParameterSpec::labelled(std::vector<std::string> labels) const { auto c = *this; c.choice_labels = std::move(labels); return c; }
ParameterSpec ParameterSpec::at_least(double v) const { auto c = *this; c.minimum = v; return c; }
ParameterSpec ParameterSpec::at_most(double v) const { auto c = *this; c.maximum = v; return c; }
ParameterSpec ParameterSpec::in(std::string unit_name) const { auto c = *this; c.unit = std::move(unit_name); return c; }
ParameterSpec ParameterSpec::needed() const { auto c = *this; c.required = true; return c; }
ParameterSpec ParameterSpec::several() const { auto c = *this; c.repeatable = true; return c; }
ParameterSpec ParameterSpec::at_position(int p) const { auto c = *this; c.position = p; return c; }
ParameterSpec ParameterSpec::only(unsigned mask) const { auto c = *this; c.front_ends = mask; return c; }
ParameterSpec ParameterSpec::presentation() const {
  auto c = *this;
  c.visibility = Visibility::Presentation;
  c.front_ends = kCommandLine;
  return c;
}
ParameterSpec ParameterSpec::trusted() const {
  auto c = *this;
  c.visibility = Visibility::Trusted;
  c.front_ends &= ~unsigned(kService);
  return c;
}
ParameterSpec ParameterSpec::naming(PathKind kind) const { auto c = *this; c.path = kind; return c; }
ParameterSpec ParameterSpec::short_option(char s) const { auto c = *this; c.short_name = s; return c; }
ParameterSpec ParameterSpec::named_in_driver(std::string s) const { auto c = *this; c.driver_spelling = std::move(s); return c; }
std::string ParameterSpec::title() const {
  if (!label.empty()) return label;
  std::string t = name;
  std::replace(t.begin(), t.end(), '-', ' ');
  if (!t.empty()) t[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  return t;
}

std::string ParameterSpec::described() const {
  std::string text = help + (unit.empty() ? "" : " (" + unit + ")");
  for (size_t i = 0; i < aliases.size(); ++i) text += (i ? ", " : "; older spelling: ") + aliases[i];
  if (choice_labels.empty() || comma_list) return text;  // a subset's list would swamp its help
  for (size_t i = 0; i < choices.size() && i < choice_labels.size(); ++i)
    text += (i ? "; " : " — ") + choices[i] + ": " + choice_labels[i];
  return text;
}

std::string ParameterSpec::choice_listing() const {
  size_t value_width = 0, label_width = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    value_width = std::max(value_width, choices[i].size());
    if (i < choice_labels.size()) label_width = std::max(label_width, choice_labels[i].size());
  }
  std::string text;
  for (size_t i = 0; i < choices.size(); ++i) {
    std::string line = choices[i];
    const std::string label = i < choice_labels.size() ? choice_labels[i] : "";
    const std::string details = i < choice_details.size() ? choice_details[i] : "";
    if (!label.empty() || !details.empty()) line += std::string(value_width + 2 - choices[i].size(), ' ') + label;
    if (!details.empty()) line += std::string(label_width + 2 - label.size(), ' ') + details;
    text += line + "\n";
  }
  if (!listing_footer.empty()) text += "\n" + listing_footer;
  return text;
}

ParameterSpec ParameterSpec::listed_with(std::string footer) const {
  ParameterSpec c = *this;
  c.listing_footer = std::move(footer);
  return c;
}

ParameterSpec ParameterSpec::field_of_input(std::string input) const {
  ParameterSpec c = *this;
  c.field_of = std::move(input);
  return c;
}

ParameterSpec ParameterSpec::band_of_input(std::string input) const {
  auto c = *this;
  c.band_of = std::move(input);
  return c;
}

ParameterSpec ParameterSpec::detailed(std::vector<std::string> details) const {
  auto c = *this;
  c.choice_details = std::move(details);
  return c;
}

ParameterSpec ParameterSpec::titled(std::string l) const { auto c = *this; c.label = std::move(l); return c; }
ParameterSpec ParameterSpec::subset_of(std::vector<std::string> values) const {
  auto c = *this;
  c.choices = std::move(values);
  c.comma_list = true;
  return c;
}
ParameterSpec ParameterSpec::also_spelled(std::string old_name) const {
  ParameterSpec p = *this;
  p.aliases.push_back(std::move(old_name));
  return p;
}

ParameterSpec ParameterSpec::making(std::vector<DeclaredFile> list) const {
  ParameterSpec p = *this;
  p.files = std::move(list);
  return p;
}

std::vector<DeclaredFile> ParameterSpec::files_made() const {
  if (!files.empty() || !is_output()) return files;
  if (role == ParameterRole::OutputVector) return {{name, ".gpkg", "application/geopackage+sqlite3", help}};
  return {{name, ".tif", kCogMediaType, help}};
}

ParameterSpec ParameterSpec::drawn_as(RasterStyle s) const { auto c = *this; c.style = s; return c; }
ParameterSpec ParameterSpec::technical() const { auto c = *this; c.advanced = true; return c; }
ParameterSpec ParameterSpec::with_help(std::string h) const { auto c = *this; c.help = std::move(h); return c; }
ParameterSpec ParameterSpec::with_metavar(std::string m) const { auto c = *this; c.metavar = std::move(m); return c; }
ParameterSpec ParameterSpec::checked_by(std::function<void(const std::string&)> f) const {
  auto c = *this;
  c.check = std::move(f);
  return c;
}

ParameterSpec integer(std::string name, std::string help) { return make(std::move(name), ParameterType::Integer, std::move(help)); }
ParameterSpec number(std::string name, std::string help) { return make(std::move(name), ParameterType::Number, std::move(help)); }
ParameterSpec text(std::string name, std::string help) { return make(std::move(name), ParameterType::String, std::move(help)); }
ParameterSpec flag(std::string name, std::string help) { return make(std::move(name), ParameterType::Flag, std::move(help)); }
ParameterSpec input_raster(std::string name, std::string help) {
  ParameterSpec p = make(std::move(name), ParameterType::String, std::move(help));
  p.role = ParameterRole::InputRaster;
  p.front_ends = kCommandLine | kService;  // the driver's input is the connection string's path
  return p;
}
ParameterSpec input_vector(std::string name, std::string help) {
  ParameterSpec p = input_raster(std::move(name), std::move(help));
  p.role = ParameterRole::InputVector;
  p.front_ends = kEveryFrontEnd;  // the driver's one input is a raster: a vector one is an option
  return p;
}
ParameterSpec input_table(std::string name, std::string help) {
  ParameterSpec p = input_raster(std::move(name), std::move(help));
  p.role = ParameterRole::InputTable;
  p.path = PathKind::File;  // QGIS's file field
  return p;
}
ParameterRule excludes(std::string first, std::string second) {
  return {ParameterRule::Excludes, std::move(first), std::move(second)};
}
ParameterRule requires_also(std::string first, std::string second) {
  return {ParameterRule::Requires, std::move(first), std::move(second)};
}
ParameterRule one_of_the_two(std::string first, std::string second) {
  return {ParameterRule::OneOf, std::move(first), std::move(second)};
}
ParameterSpec output(ParameterRole role, std::string name, std::string help) {
  ParameterSpec p = make(std::move(name), ParameterType::String, std::move(help));
  p.role = role;
  return p;
}

const ParameterSpec* OperationSpec::find(const std::string& n) const {
  for (const ParameterSpec& p : parameters)
    if (p.name == n) return &p;
  return nullptr;
}

const ParameterSpec* OperationSpec::find_spelled(const std::string& n) const {
  if (const ParameterSpec* p = find(n)) return p;
  for (const ParameterSpec& p : parameters)
    if (std::find(p.aliases.begin(), p.aliases.end(), n) != p.aliases.end()) return &p;
  return nullptr;
}

std::string OperationSpec::name_meant(const std::string& typed, FrontEnd front_end) const {
  std::vector<std::string> names;
  for (const ParameterSpec& p : parameters)
    if (p.shown_in(front_end)) {
      names.push_back(p.name);
      names.insert(names.end(), p.aliases.begin(), p.aliases.end());
    }
  return near_match(typed, names);
}

const ParameterSpec* OperationSpec::find_driver(const std::string& n) const {
  const std::string wanted = lower(n);
  auto driver_spelling = [](std::string name) {
    std::replace(name.begin(), name.end(), '-', '_');
    return lower(name);
  };
  for (const ParameterSpec& p : parameters) {
    if (!p.shown_in(kDriver)) continue;
    if (lower(p.driver_name()) == wanted) return &p;
    for (const std::string& a : p.aliases)
      if (driver_spelling(a) == wanted) return &p;
  }
  return nullptr;
}

ParameterValues::ParameterValues(const OperationSpec& spec, FrontEnd front_end) : spec_(spec), front_end_(front_end) {}

const ParameterSpec& ParameterValues::parameter(const std::string& name) const {
  const ParameterSpec* p = spec_.find(name);
  if (!p) throw Error(ErrorKind::Internal, "operation " + spec_.name + " has no parameter '" + name + "'");
  return *p;
}

std::string ParameterValues::spelled(const std::string& name) const {
  const ParameterSpec* p = spec_.find(name);
  if (front_end_ == kDriver) return "option " + (p ? p->driver_name() : name);
  if (front_end_ == kService) return "input " + name;
  return "--" + name;
}

void ParameterValues::fail(const std::string& name, const std::string& problem) const {
  throw Error(ErrorKind::BadInput, spelled(name) + (problem.rfind(":", 0) == 0 ? "" : " ") + problem);
}

void ParameterValues::set(const std::string& spelled_name, const std::string& value) {
  const ParameterSpec* found = spec_.find_spelled(spelled_name);
  const std::string& name = found ? found->name : spelled_name;  // an older spelling sets the parameter itself
  const ParameterSpec& p = parameter(name);
  const std::string problem = problem_of(p, value);
  if (!problem.empty()) fail(spelled_name, problem);  // as the caller spelled it: an older spelling is named as typed
  auto& list = values_[name];
  if (p.repeatable) list.push_back(value);
  else list.assign(1, value);
}

void ParameterValues::check_required() const {
  for (const ParameterSpec& p : spec_.parameters) {
    if (!p.required || given(p.name) || !p.shown_in(front_end_)) continue;
    std::string metavar = p.metavar;
    if (metavar.empty()) {
      metavar = p.name;
      std::transform(metavar.begin(), metavar.end(), metavar.begin(),
                     [](unsigned char c) { return c == '-' ? '_' : static_cast<char>(std::toupper(c)); });
    }
    if (front_end_ == kDriver)
      throw Error(ErrorKind::BadInput, "LSM:" + spec_.name + " needs the option " + p.driver_name() + "=" + metavar);
    if (front_end_ == kService)
      throw Error(ErrorKind::BadInput, "process " + spec_.name + " needs the input " + p.name + " (" + p.help + ")");
    if (p.position)
      throw Error(ErrorKind::BadInput, "lsm " + spec_.name + " needs " + metavar + " (" + p.help + "; see --help)");
    throw Error(ErrorKind::BadInput, "lsm " + spec_.name + " needs the option --" + p.name + " " + metavar + " (see --help)");
  }
  for (const ParameterRule& rule : spec_.rules) {
    const bool first = present(rule.first), second = present(rule.second);
    switch (rule.kind) {
      case ParameterRule::Excludes:
        if (first && second)
          throw Error(ErrorKind::BadInput, spelled(rule.first) + " and " + spelled(rule.second) + " exclude each other");
        break;
      case ParameterRule::Requires:
        if (first && !second) throw Error(ErrorKind::BadInput, spelled(rule.first) + " needs " + spelled(rule.second));
        break;
      case ParameterRule::OneOf: {
        // Where a front end shows only one of the two, that one is needed.
        const bool first_shown = parameter(rule.first).shown_in(front_end_);
        const bool second_shown = parameter(rule.second).shown_in(front_end_);
        if (first == second && (first_shown || second_shown)) {
          if (!second_shown) throw Error(ErrorKind::BadInput, spec_.name + " needs the " + spelled(rule.first));
          if (!first_shown) throw Error(ErrorKind::BadInput, spec_.name + " needs the " + spelled(rule.second));
          throw Error(ErrorKind::BadInput, "give " + spelled(rule.first) + " or " + spelled(rule.second) + " (one of the two)");
        }
        break;
      }
    }
  }
}

bool ParameterValues::present(const std::string& name) const {
  const ParameterSpec& p = parameter(name);
  if (!given(name) || !p.shown_in(front_end_)) return false;
  return p.type != ParameterType::Flag || flag(name);
}

std::string ParameterValues::text(const std::string& name) const {
  const auto it = values_.find(name);
  if (it != values_.end() && !it->second.empty()) return it->second.back();
  return parameter(name).default_value.value_or("");
}

std::vector<std::string> ParameterValues::texts(const std::string& name) const {
  const auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  const ParameterSpec& p = parameter(name);
  return p.default_value ? std::vector<std::string>{*p.default_value} : std::vector<std::string>{};
}

long long ParameterValues::integer(const std::string& name) const {
  long long n = 0;
  const std::string v = text(name);
  if (!v.empty() && !parse_integer(v, n)) fail(name, "must be an integer, not '" + v + "'");
  return n;
}

double ParameterValues::number(const std::string& name) const {
  double x = 0;
  const std::string v = text(name);
  if (!v.empty() && !parse_number(v, x)) fail(name, "must be a number, not '" + v + "'");
  return x;
}

std::optional<double> ParameterValues::optional_number(const std::string& name) const {
  if (!given(name) && !parameter(name).default_value) return std::nullopt;
  return number(name);
}

bool ParameterValues::flag(const std::string& name) const {
  bool b = false;
  const std::string v = text(name);
  if (!v.empty() && !parse_flag(v, b)) fail(name, "must be YES or NO, not '" + v + "'");
  return b;
}

void RunContext::notify(const std::string& line) const {
  if (note) note(line);
  else if (!quiet) std::cerr << "lsm: " << line << '\n';  // a quiet run without a sink (the driver, the service) says nothing
}

ProgressFn RunContext::checked_progress() const {
  if (!cancel) return progress;
  const std::atomic<bool>* flag = cancel;
  ProgressFn inner = progress;
  return [flag, inner](double f) {
    if (flag->load()) return false;
    return inner ? inner(f) : true;
  };
}

}  // namespace lsm::ops
