#include "connection.h"

#include <cpl_string.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "error.h"
#include "operations.h"

namespace lsm::gdal_plugin {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Splits NAME=VALUE; false when there is no '=' or no name.
bool split_option(const std::string& item, std::string& name, std::string& value) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = lower(item.substr(0, eq));
  value = item.substr(eq + 1);
  return true;
}

const ops::Operation* driver_operation(const std::string& name) {
  const ops::Operation* op = ops::find_operation(name);
  return op && (op->spec.front_ends & ops::kDriver) ? op : nullptr;
}

// Sets one driver option; repeatable values are separated by ';'.
void set_option(ops::ParameterValues& values, const ops::ParameterSpec& p, const std::string& value) {
  if (!p.repeatable) return values.set(p.name, value);
  std::istringstream items(value);
  std::string item;
  while (std::getline(items, item, ';')) values.set(p.name, item);
}

// A connection string as an error line quotes it: its first 200 characters.
std::string quoted(const std::string& text) {
  return "'" + (text.size() <= 200 ? text : text.substr(0, 200) + "...") + "'";
}

}  // namespace

Connection parse_connection(const std::string& text, const char* const* open_options) {
  const std::string prefix = kPrefix;
  if (text.size() < prefix.size() || lower(text.substr(0, prefix.size())) != lower(prefix))
    throw Error(ErrorKind::BadInput, "not an LSM connection string: " + quoted(text));
  // One pass over the text (a position, no copies of the rest): linear in its length.
  size_t at = prefix.size();
  size_t colon = text.find(':', at);
  if (colon == std::string::npos)
    throw Error(ErrorKind::BadInput, "LSM connection string " + quoted(text) +
                                         " has no path: expected LSM:<operation>[:<option>=<value>...]:<path>");
  const std::string name = lower(text.substr(at, std::min<size_t>(colon - at, 64)));
  const ops::Operation* op = driver_operation(name);
  if (!op) {
    std::string known;
    for (const ops::Operation& o : ops::operations())
      if (o.spec.front_ends & ops::kDriver) known += (known.empty() ? "" : ", ") + o.spec.name;
    throw Error(ErrorKind::BadInput, "unknown LSM operation '" + name + "' (expected " + known + ")");
  }
  at = colon + 1;
  // Options run up to the first item without '=' (or naming no option of the
  // operation): the rest is the path, which may itself hold ':' or '='.
  std::vector<std::pair<const ops::ParameterSpec*, std::string>> given;
  for (;;) {
    colon = text.find(':', at);
    if (colon == std::string::npos) break;
    std::string option, value;
    if (!split_option(text.substr(at, colon - at), option, value)) break;
    const ops::ParameterSpec* p = op->spec.find_driver(option);
    if (!p) {
      if (option.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos)
        throw Error(ErrorKind::BadInput, "unknown option '" + option.substr(0, 64) + "' of LSM:" + name);
      break;  // part of the path
    }
    given.emplace_back(p, value);
    at = colon + 1;
  }
  const std::string rest = text.substr(at);
  if (rest.empty()) throw Error(ErrorKind::BadInput, "LSM connection string " + quoted(text) + " has no path");
  Connection c{*op, rest, ops::ParameterValues(op->spec, ops::kDriver)};
  std::map<std::string, bool> from_string;
  for (const auto& [p, value] : given) {
    set_option(c.values, *p, value);
    from_string[p->name] = true;
  }
  for (const char* const* o = open_options; o && *o; ++o) {
    std::string option, value;
    if (!split_option(*o, option, value)) throw Error(ErrorKind::BadInput, std::string("bad open option '") + *o + "'");
    const ops::ParameterSpec* p = op->spec.find_driver(option);
    if (!p) throw Error(ErrorKind::BadInput, "open option " + option + " does not apply to LSM:" + name);
    if (!from_string.count(p->name)) set_option(c.values, *p, value);  // the connection string wins
  }
  c.values.set("input", c.path);
  c.values.check_required();
  return c;
}

namespace {

// One open option: the parameters of every operation that takes it by that name.
struct OpenOption {
  std::string name;  // upper case
  std::vector<std::pair<std::string, const ops::ParameterSpec*>> takers;  // (operation, parameter)
};

std::vector<OpenOption> open_options() {
  std::vector<OpenOption> list;
  for (const ops::Operation& op : ops::operations()) {
    if (!(op.spec.front_ends & ops::kDriver)) continue;
    for (const ops::ParameterSpec& p : op.spec.parameters) {
      if (!p.shown_in(ops::kDriver)) continue;
      std::string name = p.driver_name();
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      auto at = std::find_if(list.begin(), list.end(), [&](const OpenOption& o) { return o.name == name; });
      if (at == list.end()) at = list.insert(list.end(), OpenOption{name, {}});
      at->takers.emplace_back(op.spec.name, &p);
    }
  }
  return list;
}

std::string xml_escaped(const std::string& text) {
  char* escaped = CPLEscapeString(text.c_str(), -1, CPLES_XML);  // quotes and apostrophes
  std::string out = escaped;
  CPLFree(escaped);
  return out;
}

std::string number_text(double v) { return CPLString().Printf("%.15g", v); }

}  // namespace

std::string open_option_list() {
  std::string xml = "<OpenOptionList>";
  for (const OpenOption& o : open_options()) {
    const ops::ParameterSpec& first = *o.takers.front().second;
    // "label, patchmetric: help; gradient: other help", by help text.
    std::vector<std::pair<std::string, std::string>> helps;  // (help, operations)
    bool same_default = true, same_range = true;
    std::vector<std::string> choices;
    for (const auto& [operation, p] : o.takers) {
      const std::string help = p->described();
      auto at = std::find_if(helps.begin(), helps.end(), [&](const auto& h) { return h.first == help; });
      if (at == helps.end()) helps.emplace_back(help, operation);
      else at->second += ", " + operation;
      same_default = same_default && p->default_value == first.default_value;
      same_range = same_range && p->minimum == first.minimum && p->maximum == first.maximum;
      for (const std::string& c : p->choices)
        if (std::find(choices.begin(), choices.end(), c) == choices.end()) choices.push_back(c);
    }
    std::string description;
    for (const auto& [help, operations] : helps) description += (description.empty() ? "" : "; ") + operations + ": " + help;
    if (first.repeatable) description += "; several separated by ';'";
    const bool select = first.type == ops::ParameterType::String && !choices.empty();
    const char* type = first.type == ops::ParameterType::Integer  ? "int"
                       : first.type == ops::ParameterType::Number ? "float"
                       : first.type == ops::ParameterType::Flag   ? "boolean"
                       : select                                   ? "string-select"
                                                                  : "string";
    xml += "<Option name='" + o.name + "' type='" + type + "' description=\"" + xml_escaped(description) + "\"";
    if (same_default && first.default_value) xml += " default='" + xml_escaped(*first.default_value) + "'";
    if (same_range && first.minimum) xml += " min='" + number_text(*first.minimum) + "'";
    if (same_range && first.maximum) xml += " max='" + number_text(*first.maximum) + "'";
    if (!select) {
      xml += "/>";
      continue;
    }
    xml += ">";
    for (const std::string& c : choices) xml += "<Value>" + xml_escaped(c) + "</Value>";
    xml += "</Option>";
  }
  return xml + "</OpenOptionList>";
}

}  // namespace lsm::gdal_plugin
