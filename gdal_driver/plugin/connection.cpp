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

}  // namespace

Connection parse_connection(const std::string& text, const char* const* open_options) {
  const std::string prefix = kPrefix;
  if (text.size() < prefix.size() || lower(text.substr(0, prefix.size())) != lower(prefix))
    throw Error(ErrorKind::BadInput, "not an LSM connection string: " + text);
  std::string rest = text.substr(prefix.size());
  size_t colon = rest.find(':');
  if (colon == std::string::npos)
    throw Error(ErrorKind::BadInput, "LSM connection string '" + text +
                                         "' has no path: expected LSM:<operation>[:<option>=<value>...]:<path>");
  const std::string name = lower(rest.substr(0, colon));
  const ops::Operation* op = driver_operation(name);
  if (!op) {
    std::string known;
    for (const ops::Operation& o : ops::operations())
      if (o.spec.front_ends & ops::kDriver) known += (known.empty() ? "" : ", ") + o.spec.name;
    throw Error(ErrorKind::BadInput, "unknown LSM operation '" + name + "' (expected " + known + ")");
  }
  rest = rest.substr(colon + 1);
  // Options run up to the first item without '=' (or naming no option of the
  // operation): the rest is the path, which may itself hold ':' or '='.
  std::vector<std::pair<const ops::ParameterSpec*, std::string>> given;
  for (;;) {
    colon = rest.find(':');
    if (colon == std::string::npos) break;
    std::string option, value;
    if (!split_option(rest.substr(0, colon), option, value)) break;
    const ops::ParameterSpec* p = op->spec.find_driver(option);
    if (!p) {
      if (option.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos)
        throw Error(ErrorKind::BadInput, "unknown option '" + option + "' of LSM:" + name);
      break;  // part of the path
    }
    given.emplace_back(p, value);
    rest = rest.substr(colon + 1);
  }
  if (rest.empty()) throw Error(ErrorKind::BadInput, "LSM connection string '" + text + "' has no path");
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

std::string open_option_list() {
  // One entry per option name; the operations that take it lead its description.
  struct Entry {
    const ops::ParameterSpec* spec;
    std::string operations;
  };
  std::vector<std::pair<std::string, Entry>> entries;
  for (const ops::Operation& op : ops::operations()) {
    if (!(op.spec.front_ends & ops::kDriver)) continue;
    for (const ops::ParameterSpec& p : op.spec.parameters) {
      if (!p.shown_in(ops::kDriver)) continue;
      const std::string key = p.driver_name();
      auto at = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
      if (at == entries.end()) entries.push_back({key, Entry{&p, op.spec.name}});
      else at->second.operations += ", " + op.spec.name;
    }
  }
  std::string xml = "<OpenOptionList>";
  for (const auto& [key, e] : entries) {
    const ops::ParameterSpec& p = *e.spec;
    std::string upper = key;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    const char* type = p.type == ops::ParameterType::Integer  ? "int"
                       : p.type == ops::ParameterType::Number ? "float"
                       : p.type == ops::ParameterType::Flag   ? "boolean"
                       : p.choices.empty()                    ? "string"
                                                              : "string-select";
    std::string description = e.operations + ": " + p.help;
    if (!p.unit.empty()) description += " (" + p.unit + ")";
    if (p.repeatable) description += "; several separated by ';'";
    char* escaped = CPLEscapeString(description.c_str(), -1, CPLES_XML);  // quotes and apostrophes
    xml += "<Option name='" + upper + "' type='" + type + "' description=\"" + escaped + "\"";
    CPLFree(escaped);
    if (p.default_value) xml += " default='" + *p.default_value + "'";
    if (p.minimum) xml += " min='" + CPLString().Printf("%.15g", *p.minimum) + "'";
    if (p.maximum) xml += " max='" + CPLString().Printf("%.15g", *p.maximum) + "'";
    if (p.choices.empty() || p.type != ops::ParameterType::String) {
      xml += "/>";
      continue;
    }
    xml += ">";
    for (const std::string& choice : p.choices) {
      char* value = CPLEscapeString(choice.c_str(), -1, CPLES_XML);
      xml += std::string("<Value>") + value + "</Value>";
      CPLFree(value);
    }
    xml += "</Option>";
  }
  return xml + "</OpenOptionList>";
}

}  // namespace lsm::gdal_plugin
