#include "describe.h"

#include <boost/any.hpp>
#include <cstdint>
#include <map>
#include <sstream>

namespace lsm::cli {

namespace po = boost::program_options;

namespace {

std::ostringstream* current = nullptr;  // the command being described

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// The option's value type and its default as JSON (null when none).
void type_and_default(const po::option_description& o, std::string& type, std::string& json_default, bool& multiple) {
  multiple = false;
  json_default = "null";
  const po::value_semantic* s = o.semantic().get();
  boost::any value;
  const bool has_default = s->apply_default(value);
  auto number = [](double v) {
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
  };
  if (auto* b = dynamic_cast<const po::typed_value<bool>*>(s)) {
    type = b->max_tokens() == 0 ? "flag" : "boolean";
    json_default = has_default && boost::any_cast<bool>(value) ? "true" : "false";
  } else if (dynamic_cast<const po::typed_value<int>*>(s)) {
    type = "integer";
    if (has_default) json_default = std::to_string(boost::any_cast<int>(value));
  } else if (dynamic_cast<const po::typed_value<int64_t>*>(s)) {
    type = "integer";
    if (has_default) json_default = std::to_string(boost::any_cast<int64_t>(value));
  } else if (dynamic_cast<const po::typed_value<uint64_t>*>(s)) {
    type = "integer";
    if (has_default) json_default = std::to_string(boost::any_cast<uint64_t>(value));
  } else if (dynamic_cast<const po::typed_value<double>*>(s)) {
    type = "number";
    if (has_default) json_default = number(boost::any_cast<double>(value));
  } else if (dynamic_cast<const po::typed_value<std::vector<std::string>>*>(s)) {
    type = "string";
    multiple = true;
  } else if (dynamic_cast<const po::typed_value<std::string>*>(s)) {
    type = "string";
    if (has_default) json_default = json_string(boost::any_cast<std::string>(value));
  } else if (s->max_tokens() == 0) {
    type = "flag";
    json_default = "false";
  } else {
    type = "string";
  }
}

// Values an option takes, where there is a fixed list (by the option's name).
std::string choices_of(const std::string& name, const std::string& usage) {
  static const std::map<std::string, std::string> known = {
      {"backend", "[\"auto\",\"cpu\",\"cuda\"]"},
      {"neighbors", "[4,8]"},
      {"format", "[\"fragstats\",\"tidy\"]"},
      {"gyrate", "[\"fragstats\",\"centroid\"]"},
      {"core-areas", "[\"fragstats\",\"all\"]"},
      {"resampling", "[\"bilinear\",\"area\",\"gaussian\"]"},
      {"from", "[\"base\",\"previous\"]"},
      {"norm", "[\"L1\",\"L1-sqrt\",\"L2\",\"L2-Hys\"]"},
      {"color-space", "[\"none\",\"lab\"]"},
      {"variant", "[\"skimage\",\"dalal-triggs\"]"},
  };
  if (name == "backend" && usage.find("lsm fuzzy") == 0) return "[\"auto\",\"cpu\",\"cuda\",\"reference\"]";
  if (name == "adjacency") return "[4,8,6,26]";
  const auto it = known.find(name);
  return it == known.end() ? "null" : it->second;
}

// What kind of output an option names, or "" for an input.
std::string output_kind(const std::string& name, const std::string& help) {
  if (name == "out") return "table-prefix";
  if (name == "outdir") return "folder";
  if (name == "output" || name == "mask") return help.find(".npy") != std::string::npos ? "file" : "raster";
  if (name == "stats") return "file";
  return "";
}

}  // namespace

bool describing() { return current != nullptr; }

void describe_options(const po::options_description& desc, const po::positional_options_description& positional,
                      const std::string& usage) {
  std::ostringstream& out = *current;
  out << "\"usage\":" << json_string(usage) << ",\"parameters\":[";
  bool first = true;
  for (const auto& option : desc.options()) {
    const std::string name = option->long_name();
    if (name == "help") continue;
    std::string type, json_default;
    bool multiple = false;
    type_and_default(*option, type, json_default, multiple);
    int position = 0;
    for (unsigned p = 0; p < positional.max_total_count() && p < 8; ++p)
      if (positional.name_for_position(p) == name) position = static_cast<int>(p) + 1;
    const std::string output = output_kind(name, option->description());
    out << (first ? "" : ",") << "{\"name\":" << json_string(name) << ",\"type\":" << json_string(type)
        << ",\"required\":" << (option->semantic()->is_required() ? "true" : "false") << ",\"default\":" << json_default
        << ",\"choices\":" << choices_of(name, usage) << ",\"multiple\":" << (multiple ? "true" : "false")
        << ",\"positional\":" << position << ",\"help\":" << json_string(option->description())
        << ",\"output\":" << (output.empty() ? "null" : json_string(output)) << "}";
    first = false;
  }
  out << "]";
}

std::string describe_commands(const std::vector<CommandEntry>& commands) {
  std::ostringstream doc;
  doc << "{\"program\":\"lsm\",\"version\":" << json_string(LSM_VERSION) << ",\"commands\":[";
  for (size_t i = 0; i < commands.size(); ++i) {
    std::ostringstream entry;
    current = &entry;
    try {
      commands[i].run({});
    } catch (...) {
      current = nullptr;
      throw;
    }
    current = nullptr;
    doc << (i ? "," : "") << "{\"name\":" << json_string(commands[i].name)
        << ",\"summary\":" << json_string(commands[i].summary) << "," << entry.str() << "}";
  }
  doc << "]}\n";
  return doc.str();
}

}  // namespace lsm::cli
