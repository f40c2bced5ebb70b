#include "operation_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "metric_catalogue.h"

namespace lsm::ops {

namespace {

using Json = nlohmann::ordered_json;

const char* type_name(ParameterType t) {
  switch (t) {
    case ParameterType::Integer: return "integer";
    case ParameterType::Number: return "number";
    case ParameterType::Flag: return "flag";
    case ParameterType::String: break;
  }
  return "string";
}

Json role_name(ParameterRole r) {
  switch (r) {
    case ParameterRole::OutputRaster: return "raster";
    case ParameterRole::OutputFile: return "file";
    case ParameterRole::OutputTablePrefix: return "table-prefix";
    case ParameterRole::OutputFolder: return "folder";
    case ParameterRole::OutputVector: return "vector";
    case ParameterRole::Value:
    case ParameterRole::InputRaster:
    case ParameterRole::InputVector:
    case ParameterRole::InputTable: break;
  }
  return nullptr;
}

Json input_kind(ParameterRole r) {
  if (r == ParameterRole::InputRaster) return "raster";
  if (r == ParameterRole::InputVector) return "vector";
  if (r == ParameterRole::InputTable) return "table";
  return nullptr;
}

const char* visibility_name(Visibility v) {
  switch (v) {
    case Visibility::Presentation: return "presentation";
    case Visibility::Trusted: return "trusted";
    case Visibility::Everyone: break;
  }
  return "everyone";
}

const char* rule_name(ParameterRule::Kind k) {
  switch (k) {
    case ParameterRule::Excludes: return "excludes";
    case ParameterRule::Requires: return "requires";
    case ParameterRule::OneOf: return "one-of";
  }
  return "";
}

Json parameter_json(const ParameterSpec& p) {
  Json j;
  j["name"] = p.name;
  j["type"] = type_name(p.type);
  j["required"] = p.required;
  if (p.type == ParameterType::Flag) j["default"] = false;
  else j["default"] = p.default_value ? typed_json(p.type, *p.default_value) : Json(nullptr);
  if (p.choices.empty()) {
    j["choices"] = nullptr;
  } else {
    j["choices"] = Json::array();
    for (const std::string& c : p.choices) j["choices"].push_back(typed_json(p.type, c));
  }
  j["multiple"] = p.repeatable;
  j["positional"] = p.position;
  j["help"] = p.help;
  j["output"] = role_name(p.role);
  j["input"] = input_kind(p.role);  // the dataset kind an input names
  j["visibility"] = visibility_name(p.visibility);
  j["path"] = p.path == PathKind::File ? Json("file") : p.path == PathKind::Folder ? Json("folder") : Json(nullptr);
  j["band_of"] = p.band_of.empty() ? Json(nullptr) : Json(p.band_of);
  j["field_of"] = p.field_of.empty() ? Json(nullptr) : Json(p.field_of);
  j["short"] = p.short_name ? Json(std::string(1, p.short_name)) : Json(nullptr);
  j["unit"] = p.unit.empty() ? Json(nullptr) : Json(p.unit);
  j["minimum"] = p.minimum ? number_json(*p.minimum) : Json(nullptr);
  j["maximum"] = p.maximum ? number_json(*p.maximum) : Json(nullptr);
  j["driver"] = p.shown_in(kDriver) ? Json(p.driver_name()) : Json(nullptr);
  j["title"] = p.title();
  j["advanced"] = p.advanced;
  j["list"] = p.comma_list;
  switch (p.style) {
    case RasterStyle::None: j["style"] = nullptr; break;
    case RasterStyle::Identifiers: j["style"] = "identifiers"; break;
    case RasterStyle::Classes: j["style"] = "classes"; break;
    case RasterStyle::Continuous: j["style"] = "continuous"; break;
  }
  j["choice_labels"] = p.choice_labels.empty() ? Json(nullptr) : Json(p.choice_labels);
  j["aliases"] = p.aliases;  // older spellings, still accepted
  if (p.is_output()) {  // the declared files: output IDs, suffixes of the argument, media types
    j["files"] = Json::array();
    for (const DeclaredFile& f : p.files_made())
      j["files"].push_back({{"id", f.id}, {"suffix", f.suffix}, {"media_type", f.media_type}, {"description", f.description}});
  } else {
    j["files"] = nullptr;
  }
  return j;
}

}  // namespace

Json number_json(double value) {
  if (value == std::floor(value) && std::fabs(value) < 9e15) return static_cast<long long>(value);
  return value;
}

Json typed_json(ParameterType type, const std::string& value) {
  switch (type) {
    case ParameterType::Integer: return std::stoll(value);
    case ParameterType::Number: return number_json(std::stod(value));
    case ParameterType::Flag: return value == "yes" || value == "true" || value == "1";
    case ParameterType::String: break;
  }
  return value;
}

std::string describe_json(const std::vector<Operation>& operations, const std::string& version) {
  Json doc;
  doc["program"] = "lsm";
  doc["version"] = version;
  doc["commands"] = Json::array();
  for (const Operation& op : operations) {
    if (!(op.spec.front_ends & kCommandLine)) continue;
    Json c;
    c["name"] = op.spec.name;
    c["summary"] = op.spec.summary;
    c["title"] = op.spec.title.empty() ? op.spec.name : op.spec.title;
    c["category"] = op.spec.category;
    c["manual"] = op.spec.manual;
    c["usage"] = op.spec.usage;
    c["driver"] = (op.spec.front_ends & kDriver) != 0;
    c["parameters"] = Json::array();
    for (const ParameterSpec& p : op.spec.parameters)
      if (p.shown_in(kCommandLine)) c["parameters"].push_back(parameter_json(p));
    // Cross-parameter rules, checked by lsm itself on every front end.
    c["rules"] = Json::array();
    for (const ParameterRule& r : op.spec.rules) c["rules"].push_back({{"kind", rule_name(r.kind)}, {"parameters", {r.first, r.second}}});
    doc["commands"].push_back(c);
  }
  // The metric catalogue: what `metrics` and `patchmetric` compute.
  doc["metric_catalogue"] = Json::array();
  for (const MetricInfo& m : metric_catalogue()) {
    Json levels = Json::array();
    if (m.levels & kPatchLevel) levels.push_back("patch");
    if (m.levels & kClassLevel) levels.push_back("class");
    if (m.levels & kLandscapeLevel) levels.push_back("landscape");
    doc["metric_catalogue"].push_back({{"acronym", m.acronym}, {"name", m.name}, {"family", family_name(m.family)},
                              {"levels", levels}, {"unit", m.unit}, {"second_pass", m.second_pass},
                              {"distribution", m.distributed}});
  }
  return doc.dump() + "\n";
}

}  // namespace lsm::ops
