#include "connection.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "error.h"

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

}  // namespace

const std::map<std::string, std::vector<std::string>>& operation_options() {
  static const std::map<std::string, std::vector<std::string>> ops = {
      {"label", {"band", "neighbors", "backend"}},
      {"patchmetric", {"metric", "band", "neighbors", "edge_depth", "backend"}},
      {"gradient", {"band", "grey", "sigma", "radius", "backend"}},
      {"hog", {"cell", "block", "bins", "signed", "norm", "variant", "window_sigma", "band", "backend"}},
      {"pyramid", {"level", "scale", "resampling", "backend"}},
      {"kmeans", {"k", "color_space", "seed", "n_init", "max_iter", "backend"}},
      {"fuzzy", {"band", "volume", "seeds", "adjacency", "seed_radius", "mean", "sd", "sd_diff", "backend"}},
  };
  return ops;
}

std::string Connection::get(const std::string& name, const std::string& fallback) const {
  const auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

long long Connection::get_integer(const std::string& name, long long fallback) const {
  if (!has(name)) return fallback;
  const std::string v = get(name);
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size()) throw Error(ErrorKind::BadInput, "option " + name + "=" + v + " is not an integer");
  return n;
}

double Connection::get_real(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const std::string v = get(name);
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || !std::isfinite(x))
    throw Error(ErrorKind::BadInput, "option " + name + "=" + v + " is not a number");
  return x;
}

bool Connection::get_flag(const std::string& name) const {
  const std::string v = lower(get(name, "no"));
  if (v == "yes" || v == "true" || v == "on" || v == "1") return true;
  if (v == "no" || v == "false" || v == "off" || v == "0") return false;
  throw Error(ErrorKind::BadInput, "option " + name + "=" + v + " is not YES or NO");
}

Connection parse_connection(const std::string& text, const char* const* open_options) {
  const std::string prefix = kPrefix;
  if (text.size() < prefix.size() || lower(text.substr(0, prefix.size())) != lower(prefix))
    throw Error(ErrorKind::BadInput, "not an LSM connection string: " + text);
  Connection c;
  std::string rest = text.substr(prefix.size());
  size_t colon = rest.find(':');
  if (colon == std::string::npos)
    throw Error(ErrorKind::BadInput, "LSM connection string '" + text + "' has no path: expected LSM:<operation>[:<option>=<value>...]:<path>");
  c.operation = lower(rest.substr(0, colon));
  rest = rest.substr(colon + 1);
  const auto& ops = operation_options();
  const auto op = ops.find(c.operation);
  if (op == ops.end()) {
    std::string known;
    for (const auto& [name, _] : ops) known += (known.empty() ? "" : ", ") + name;
    throw Error(ErrorKind::BadInput, "unknown LSM operation '" + c.operation + "' (expected " + known + ")");
  }
  // Options run up to the first item without '=' (or naming no option of the
  // operation): the rest is the path, which may itself hold ':' or '='.
  for (;;) {
    colon = rest.find(':');
    if (colon == std::string::npos) break;
    std::string name, value;
    if (!split_option(rest.substr(0, colon), name, value)) break;
    if (std::find(op->second.begin(), op->second.end(), name) == op->second.end()) {
      if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos)
        throw Error(ErrorKind::BadInput, "unknown option '" + name + "' of LSM:" + c.operation);
      break;  // part of the path
    }
    c.options[name] = value;
    rest = rest.substr(colon + 1);
  }
  c.path = rest;
  if (c.path.empty()) throw Error(ErrorKind::BadInput, "LSM connection string '" + text + "' has no path");
  for (const char* const* o = open_options; o && *o; ++o) {
    std::string name, value;
    if (!split_option(*o, name, value)) throw Error(ErrorKind::BadInput, std::string("bad open option '") + *o + "'");
    if (std::find(op->second.begin(), op->second.end(), name) == op->second.end())
      throw Error(ErrorKind::BadInput, "open option " + name + " does not apply to LSM:" + c.operation);
    c.options.emplace(name, value);  // the connection string wins
  }
  return c;
}

}  // namespace lsm::gdal_plugin
