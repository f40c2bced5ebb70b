#include "input_sources.h"

#include <cpl_string.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "error.h"

namespace lsm::serve {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

constexpr const char* kJobScheme = "job:";
constexpr const char* kInputsFolder = ".inputs";  // hidden: never listed as an output

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// A member of a qualified value, at its top level (1.0's schema) or inside
// "format" (later drafts and the conformance suite).
std::string format_member(const Json& value, const char* member) {
  if (value.contains(member) && value[member].is_string()) return value[member].get<std::string>();
  if (value.contains("format") && value["format"].is_object() && value["format"].contains(member) &&
      value["format"][member].is_string())
    return value["format"][member].get<std::string>();
  return "";
}

// The file name extension GDAL and OGR know a media type by (they identify
// most formats by content; the extension helps those they do not).
std::string extension_of(const std::string& media_type, bool geojson) {
  if (geojson || media_type.find("geo+json") != std::string::npos || starts_with(media_type, "application/json"))
    return ".geojson";
  if (media_type.find("tiff") != std::string::npos) return ".tif";
  if (media_type.find("geopackage") != std::string::npos) return ".gpkg";
  if (media_type == "image/png") return ".png";
  if (media_type == "image/jpeg") return ".jpg";
  if (media_type.find("netcdf") != std::string::npos) return ".nc";
  if (starts_with(media_type, "text/plain")) return ".txt";
  return ".dat";
}

bool is_base64(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && c != '=' && c != '\n' && c != '\r')
      return false;
  return true;
}

// The bytes of one inline value; `geojson` set where it is a GeoJSON object.
std::string inline_bytes(const std::string& input, const Json& qualified, bool& geojson) {
  const Json& value = qualified["value"];
  geojson = value.is_object();
  if (geojson) {
    if (!value.contains("type") || !value["type"].is_string())
      throw Error(ErrorKind::BadInput, "input " + input + ": an inline object must be GeoJSON (with a \"type\")");
    return value.dump();
  }
  if (!value.is_string())
    throw Error(ErrorKind::BadInput, "input " + input + ": an inline value must be base64 text or a GeoJSON object");
  std::string text = value.get<std::string>();
  const std::string encoding = format_member(qualified, "encoding");
  const std::string media_type = format_member(qualified, "mediaType");
  const bool textual = media_type.find("json") != std::string::npos || starts_with(media_type, "text/");
  if (encoding.empty() && textual) return text;  // GeoJSON as text
  if (!encoding.empty() && encoding != "base64")
    throw Error(ErrorKind::BadInput, "input " + input + ": encoding '" + encoding.substr(0, 40) +
                                         "' is not supported (inline datasets are base64)");
  if (!is_base64(text)) throw Error(ErrorKind::BadInput, "input " + input + ": the inline value is not base64");
  const int size = CPLBase64DecodeInPlace(reinterpret_cast<GByte*>(text.data()));
  text.resize(static_cast<size_t>(std::max(size, 0)));
  if (text.empty()) throw Error(ErrorKind::BadInput, "input " + input + ": the inline value is empty");
  return text;
}

// Writes `bytes` to `path` under a temporary name, then renames it.
void write_file(const fs::path& path, const std::string& bytes) {
  const fs::path temporary = path.string() + ".part";
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(temporary, ec);
      throw Error(ErrorKind::Io, "cannot write an inline input of the job");
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot write an inline input of the job");
}

}  // namespace

void check_remote_prefixes(const std::vector<std::string>& prefixes) {
  for (const std::string& prefix : prefixes) {
    const size_t scheme = starts_with(prefix, "https://") ? 8 : starts_with(prefix, "http://") ? 7 : 0;
    if (scheme == 0 || prefix.size() > 2000 ||
        prefix.find_first_of(" \t\r\n\"<>@") != std::string::npos)
      throw Error(ErrorKind::BadInput, "--allow-remote-inputs must be http:// or https:// URL prefixes "
                                       "without spaces, quotes or '@' (got '" + prefix.substr(0, 80) + "')");
  }
}

InputSources::InputSources(const DataRoots& roots, std::vector<std::string> remote_prefixes)
    : roots_(roots), remote_prefixes_(std::move(remote_prefixes)) {
  check_remote_prefixes(remote_prefixes_);
}

void InputSources::write_inline_values(const ops::OperationSpec& spec, Json& body, const std::string& job_folder) const {
  if (!body.is_object() || !body.contains("inputs") || !body["inputs"].is_object()) return;
  for (auto& input : body["inputs"].items()) {
    const std::string name = input.key();  // a named copy: lambdas may not capture structured bindings (C++17)
    Json& value = input.value();
    const ops::ParameterSpec* p = spec.find_spelled(name);
    if (!p || !p->is_input()) continue;  // values, and inputs read_execute_request() refuses
    int count = 0;
    const auto write_one = [&](Json& item) {
      if (!item.is_object() || !item.contains("value")) return;  // a reference
      bool geojson = false;
      const std::string bytes = inline_bytes(name, item, geojson);
      const std::string file = p->name + "-" + std::to_string(++count) + extension_of(format_member(item, "mediaType"), geojson);
      const fs::path folder = fs::path(job_folder) / kInputsFolder;
      std::error_code ec;
      fs::create_directories(folder, ec);
      if (ec) throw Error(ErrorKind::Io, "cannot make the job's folder for its inline inputs");
      write_file(folder / file, bytes);
      item = Json{{"href", std::string(kJobScheme) + kInputsFolder + "/" + file}};
    };
    if (value.is_array())
      for (Json& item : value) write_one(item);
    else
      write_one(value);
  }
}

std::string InputSources::resolve(const std::string& reference, const std::string& job_folder) const {
  if (starts_with(reference, kJobScheme)) {
    const fs::path relative = reference.substr(std::string(kJobScheme).size());
    const auto part = relative.begin();
    if (relative.is_absolute() || part == relative.end() || *part != kInputsFolder ||
        std::distance(relative.begin(), relative.end()) != 2)
      throw Error(ErrorKind::BadInput, "input '" + reference + "' is not an inline input of this job");
    const fs::path path = fs::path(job_folder) / relative;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw Error(ErrorKind::BadInput, "input '" + reference + "' is not an inline input of this job");
    return path.string();
  }
  if (starts_with(reference, "http://") || starts_with(reference, "https://")) {
    if (reference.size() > 4000 || reference.find_first_of(" \t\r\n\"<>") != std::string::npos)
      throw Error(ErrorKind::BadInput, "input '" + reference.substr(0, 80) + "' is not a URL");
    for (const std::string& prefix : remote_prefixes_) {
      // A prefix allows what lies below it: "https://data.example.org"
      // allows https://data.example.org/x.tif, not https://data.example.org.evil/.
      const bool below = starts_with(reference, prefix) &&
                         (prefix.back() == '/' || reference.size() == prefix.size() ||
                          reference[prefix.size()] == '/' || reference[prefix.size()] == '?');
      if (below) return "/vsicurl/" + reference;
    }
    throw Error(ErrorKind::BadInput,
                remote_prefixes_.empty()
                    ? "input '" + reference.substr(0, 200) + "': this server reads no remote inputs (--allow-remote-inputs)"
                    : "input '" + reference.substr(0, 200) + "' lies outside the URLs this server may read (--allow-remote-inputs)");
  }
  return roots_.resolve(reference);
}

}  // namespace lsm::serve
