#include "execute_request.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include <sstream>

#include "error.h"

namespace lsm::serve {

namespace {

using Json = nlohmann::json;

// Sets one input of an execute request through the operation's validator.
struct Sources {
  const InputSources& inputs;
  const std::string& job_folder;
};

void set_input(ops::ParameterValues& values, const ops::ParameterSpec& p, const Json& v, const Sources& sources) {
  if (p.is_input()) {  // a raster or vector dataset: by reference (inline values were written as job: references)
    if (v.is_array()) {
      if (!p.repeatable) throw Error(ErrorKind::BadInput, "input " + p.name + " takes one dataset, not a list");
      for (const Json& item : v) set_input(values, p, item, sources);
      return;
    }
    std::string reference;
    if (v.is_object() && v.contains("href") && v["href"].is_string()) reference = v["href"].get<std::string>();
    else if (v.is_string()) reference = v.get<std::string>();
    else
      throw Error(ErrorKind::BadInput, "input " + p.name +
                                           " must be a reference {\"href\": \"file:...\"} or an inline value "
                                           "{\"value\": BASE64, \"encoding\": \"base64\"}");
    values.set(p.name, sources.inputs.resolve(reference, sources.job_folder));
    return;
  }
  if (v.is_object() && v.contains("value")) return set_input(values, p, v["value"], sources);  // qualified value
  if (v.is_array()) {
    if (!p.repeatable) throw Error(ErrorKind::BadInput, "input " + p.name + " takes one value, not a list");
    for (const Json& item : v) set_input(values, p, item, sources);
    return;
  }
  if (v.is_boolean()) {
    if (p.type != ops::ParameterType::Flag) throw Error(ErrorKind::BadInput, "input " + p.name + " is not a boolean");
    if (v.get<bool>()) values.set(p.name, "yes");
    return;
  }
  if (v.is_number_integer()) return values.set(p.name, std::to_string(v.get<long long>()));
  if (v.is_number()) {
    std::ostringstream text;
    text.precision(17);
    text << v.get<double>();
    return values.set(p.name, text.str());
  }
  if (v.is_string()) return values.set(p.name, v.get<std::string>());
  throw Error(ErrorKind::BadInput, "input " + p.name + " has a value of an unsupported JSON type");
}

// The deepest nesting of arrays and objects an execute request may have
// (an input's qualified value inside a list is 5 levels). Counted by a SAX
// pass before the document is built: building, walking and printing a JSON
// document recurse once per level, so 20 000 nested arrays in a 40 KB body
// would overflow the stack of the thread that serves them.
constexpr int kMaxJsonDepth = 32;

class DepthCheck : public nlohmann::json_sax<Json> {
 public:
  bool too_deep = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool enter() {
    too_deep = ++depth_ > kMaxJsonDepth;
    return !too_deep;  // stops the pass at once
  }
  bool leave() {
    --depth_;
    return true;
  }
  int depth_ = 0;
};

}  // namespace

Json parse_execute_request(const std::string& body_text) {
  DepthCheck depth;
  Json::sax_parse(body_text, &depth);  // a syntax error is left to the parse below, which names it
  if (depth.too_deep)
    throw Error(ErrorKind::BadInput, "the request body nests arrays and objects more than " +
                                         std::to_string(kMaxJsonDepth) + " levels deep");
  Json body;
  try {
    body = Json::parse(body_text);
  } catch (const std::exception& e) {
    throw Error(ErrorKind::BadInput, std::string("the request body is not JSON: ") + e.what());
  }
  return body;
}

ops::ParameterValues read_execute_request(const ops::Operation& operation, const std::string& body_text,
                                          const InputSources& sources, const std::string& job_folder) {
  const Json body = parse_execute_request(body_text);
  if (!body.is_object() || (body.contains("inputs") && !body["inputs"].is_object()))
    throw Error(ErrorKind::BadInput, "the request body must be an object with an object 'inputs'");
  // The members of execute.yaml, and the drafts' response and mode. Any
  // other is a client's mistake ({"input": ...} for "inputs" would run the
  // process on its defaults): refused, not ignored.
  for (const auto& [member, value] : body.items())
    if (member != "inputs" && member != "outputs" && member != "subscriber" && member != "response" && member != "mode")
      throw Error(ErrorKind::BadInput, "the request body has an unknown member '" + member.substr(0, 64) +
                                           "' (an execute request has inputs, outputs, subscriber, response, mode)");
  ops::ParameterValues values(operation.spec, ops::kService);
  if (body.contains("inputs"))
    for (const auto& [name, value] : body["inputs"].items()) {
      const ops::ParameterSpec* p = operation.spec.find_spelled(name);  // older spellings too
      if (p && p->visibility == ops::Visibility::Trusted)
        throw Error(ErrorKind::BadInput, "input '" + name + "' of process " + operation.spec.name +
                                             " names a path on the server, which this server chooses itself");
      if (!p || !p->shown_in(ops::kService) || p->is_output())
        throw Error(ErrorKind::BadInput, "process " + operation.spec.name + " has no input '" + name.substr(0, 64) + "'");
      set_input(values, *p, value, Sources{sources, job_folder});
    }
  return values;
}

std::vector<RequestedOutput> requested_outputs(const ops::OperationSpec& spec, const std::string& body_text) {
  std::vector<ops::DeclaredFile> declared;
  for (const ops::ParameterSpec& p : spec.parameters)
    if (p.is_output() && p.shown_in(ops::kService))
      for (const ops::DeclaredFile& f : p.files_made()) declared.push_back(f);
  std::vector<RequestedOutput> all;
  for (const ops::DeclaredFile& f : declared) all.push_back({f.id, false});
  Json body;
  try {
    body = Json::parse(body_text);
  } catch (const std::exception&) {
    return all;  // read_execute_request() refuses it
  }
  if (!body.is_object() || !body.contains("outputs")) return all;
  const Json& outputs = body["outputs"];
  if (!outputs.is_object()) throw Error(ErrorKind::BadInput, "'outputs' must be an object of output IDs");
  if (outputs.empty()) return all;
  std::vector<RequestedOutput> asked;
  for (const ops::DeclaredFile& f : declared) {
    if (!outputs.contains(f.id)) continue;
    const Json& how = outputs[f.id];
    if (!how.is_object()) throw Error(ErrorKind::BadInput, "output '" + f.id + "' must be described by an object");
    RequestedOutput output{f.id, false};
    if (how.contains("transmissionMode")) {
      const Json& mode = how["transmissionMode"];
      if (mode != "value" && mode != "reference")
        throw Error(ErrorKind::BadInput, "output '" + f.id + "': transmissionMode must be 'value' or 'reference'");
      output.by_value = mode == "value";
    }
    if (how.contains("format")) {
      const Json& format = how["format"];
      if (!format.is_object() || (format.contains("mediaType") && format["mediaType"] != f.media_type))
        throw Error(ErrorKind::BadInput, "output '" + f.id + "' is available as " + f.media_type + " only");
    }
    asked.push_back(output);
  }
  for (const auto& [id, how] : outputs.items())
    if (std::none_of(all.begin(), all.end(), [&id = id](const RequestedOutput& o) { return o.id == id; })) {
      std::string names;
      for (const RequestedOutput& a : all) names += (names.empty() ? "" : ", ") + a.id;
      throw Error(ErrorKind::BadInput,
                  "process " + spec.name + " has no output '" + id.substr(0, 64) + "' (its outputs: " + names + ")");
    }
  return asked;
}

bool wants_document(const std::string& body_text) {
  Json body;
  try {
    body = Json::parse(body_text);
  } catch (const std::exception&) {
    return false;  // read_execute_request() refuses it
  }
  if (!body.is_object() || !body.contains("response")) return false;
  if (body["response"] == "document") return true;
  if (body["response"] == "raw") return false;
  throw Error(ErrorKind::BadInput, "'response' must be 'raw' or 'document'");
}

}  // namespace lsm::serve
