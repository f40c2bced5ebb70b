#include "ogc_documents.h"

#include <cmath>

#include "operation_json.h"
#include "operations.h"

namespace lsm::serve {

namespace {

// The service's inputs: values and input rasters it shows.
bool is_input(const ops::ParameterSpec& p) { return !p.is_output() && p.shown_in(ops::kService); }

Json link(const std::string& href, const std::string& rel, const std::string& type, const std::string& title) {
  Json l;
  l["href"] = href;
  l["rel"] = rel;
  l["type"] = type;
  l["title"] = title;
  return l;
}

// The JSON schema of one input (OpenAPI 3.0 schema object, as schema.yaml allows).
Json input_schema(const ops::ParameterSpec& p) {
  Json s;
  if (p.role == ops::ParameterRole::InputRaster) {
    // By reference ({"href": "file:..."}, a path under a data root, an
    // allowed URL) or inline in base64 (input_sources.h).
    s["type"] = "string";
    s["contentMediaType"] = "image/tiff; application=geotiff";
    s["contentEncoding"] = "binary";
    return s;
  }
  if (p.role == ops::ParameterRole::InputVector) {
    // By reference too (GeoPackage, GeoJSON, Shapefile ...), or inline (a
    // GeoJSON object, a base64 GeoPackage: input_sources.h).
    s["type"] = "string";
    s["contentMediaType"] = "application/geopackage+sqlite3";
    return s;
  }
  if (p.role == ops::ParameterRole::InputTable) {
    // By reference, or inline as text ({"value": "FSQ_TABLE\n...",
    // "mediaType": "text/plain"}) or base64 (input_sources.h).
    s["type"] = "string";
    s["contentMediaType"] = "text/plain";
    return s;
  }
  switch (p.type) {
    case ops::ParameterType::Integer: s["type"] = "integer"; break;
    case ops::ParameterType::Number: s["type"] = "number"; break;
    case ops::ParameterType::Flag: s["type"] = "boolean"; break;
    case ops::ParameterType::String: s["type"] = "string"; break;
  }
  if (!p.choices.empty() && !p.comma_list) {  // a comma-separated subset is a plain string here
    s["enum"] = Json::array();
    for (const std::string& c : p.choices) s["enum"].push_back(ops::typed_json(p.type, c));
  }
  if (p.minimum) s["minimum"] = ops::number_json(*p.minimum);
  if (p.maximum) s["maximum"] = ops::number_json(*p.maximum);
  if (p.type == ops::ParameterType::Flag) s["default"] = false;
  else if (p.default_value) s["default"] = ops::typed_json(p.type, *p.default_value);
  return s;
}

}  // namespace

std::vector<const ops::Operation*> service_operations() {
  std::vector<const ops::Operation*> list;
  for (const ops::Operation& op : ops::operations())
    if (op.spec.front_ends & ops::kService) list.push_back(&op);
  return list;
}

const ops::Operation* find_service_operation(const std::string& id) {
  for (const ops::Operation* op : service_operations())
    if (op->spec.name == id) return op;
  return nullptr;
}

std::vector<OutputKind> process_outputs(const ops::OperationSpec& spec) {
  std::vector<OutputKind> outputs;
  for (const ops::ParameterSpec& p : spec.parameters) {
    if (!p.is_output() || !p.shown_in(ops::kService)) continue;
    for (const ops::DeclaredFile& f : p.files_made()) outputs.push_back({f.id, f.description, f.media_type});
  }
  return outputs;
}

Json landing_page(const std::string& base) {
  Json j;
  j["title"] = "lsm: landscape metrics";
  j["description"] =
      "FRAGSTATS metrics, patch labels and raster operations of lsm as OGC API - Processes 1.0 processes";
  j["links"] = Json::array({link(base + "/", "self", "application/json", "this document"),
                            link(base + "/?f=html", "alternate", "text/html", "this document as HTML"),
                            link(base + "/api", "service-desc", "application/vnd.oai.openapi+json;version=3.0",
                                 "the API definition"),
                            link(base + "/conformance", "http://www.opengis.net/def/rel/ogc/1.0/conformance",
                                 "application/json", "conformance classes"),
                            link(base + "/processes", "http://www.opengis.net/def/rel/ogc/1.0/processes",
                                 "application/json", "the processes"),
                            link(base + "/jobs", "http://www.opengis.net/def/rel/ogc/1.0/job-list", "application/json",
                                 "the jobs")});
  return j;
}

Json conformance() {
  Json j;
  j["conformsTo"] = Json::array({"http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core",
                                 "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/json",
                                 "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/html",
                                 "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/oas30",
                                 "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/job-list",
                                 "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/dismiss",
                                 "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/ogc-process-description"});
  return j;
}

Json process_summary(const ops::OperationSpec& spec, const std::string& base) {
  Json j;
  j["id"] = spec.name;
  j["title"] = spec.name;
  j["description"] = spec.summary;
  j["version"] = LSM_VERSION;
  j["jobControlOptions"] = Json::array({"sync-execute", "async-execute", "dismiss"});
  j["outputTransmission"] = Json::array({"value", "reference"});
  j["links"] = Json::array({link(base + "/processes/" + spec.name, "self", "application/json", "process description"),
                            link(base + "/processes/" + spec.name + "/execution",
                                 "http://www.opengis.net/def/rel/ogc/1.0/execute", "application/json", "execute")});
  return j;
}

Json process_description(const ops::OperationSpec& spec, const std::string& base) {
  Json j = process_summary(spec, base);
  j["inputs"] = Json::object();
  for (const ops::ParameterSpec& p : spec.parameters) {
    if (!is_input(p)) continue;
    Json in;
    in["title"] = p.title();
    in["description"] = p.described();
    in["minOccurs"] = p.required ? 1 : 0;
    if (p.repeatable) in["maxOccurs"] = "unbounded";
    else in["maxOccurs"] = 1;
    in["schema"] = input_schema(p);
    j["inputs"][p.name] = in;
  }
  j["outputs"] = Json::object();
  for (const OutputKind& o : process_outputs(spec)) {
    Json out;
    out["title"] = o.id;
    out["description"] = o.title;
    out["schema"] = {{"type", "string"}, {"contentMediaType", o.media_type}};
    j["outputs"][o.id] = out;
  }
  return j;
}

Json process_list(const std::string& base, int64_t offset, int64_t limit) {
  Json j;
  j["processes"] = Json::array();
  const std::vector<const ops::Operation*> all = service_operations();
  const int64_t total = static_cast<int64_t>(all.size());
  for (int64_t i = offset; i < total && i < offset + limit; ++i)
    j["processes"].push_back(process_summary(all[static_cast<size_t>(i)]->spec, base));
  j["links"] = Json::array({link(base + "/processes", "self", "application/json", "the processes"),
                            link(base + "/processes?f=html", "alternate", "text/html", "as HTML")});
  if (offset + limit < total)
    j["links"].push_back(link(base + "/processes?offset=" + std::to_string(offset + limit) + "&limit=" +
                                  std::to_string(limit),
                              "next", "application/json", "the next processes"));
  return j;
}

Json status_info(const JobRecord& job, const std::string& base) {
  Json j;
  j["processID"] = job.process;
  j["type"] = "process";
  j["jobID"] = job.id;
  j["status"] = job.status;
  if (!job.message.empty()) j["message"] = job.message;
  j["created"] = job.created;
  if (!job.started.empty()) j["started"] = job.started;
  if (!job.finished.empty()) j["finished"] = job.finished;
  j["updated"] = job.updated;
  j["progress"] = job.progress;
  const std::string self = base + "/jobs/" + job.id;
  j["links"] = Json::array({link(self, "self", "application/json", "this job"),
                            link(self + "?f=html", "alternate", "text/html", "this job as HTML")});
  if (job.status == "successful")
    j["links"].push_back(link(self + "/results", "http://www.opengis.net/def/rel/ogc/1.0/results", "application/json",
                              "the results"));
  return j;
}

Json job_list(const std::vector<JobRecord>& jobs, const std::string& base, int64_t offset, int64_t limit,
              int64_t total, const std::string& query) {
  Json j;
  j["jobs"] = Json::array();
  for (const JobRecord& job : jobs) j["jobs"].push_back(status_info(job, base));
  auto page = [&](int64_t start) {
    return base + "/jobs?offset=" + std::to_string(start) + "&limit=" + std::to_string(limit) + query;
  };
  j["links"] = Json::array({link(page(offset), "self", "application/json", "this page")});
  if (offset + limit < total) j["links"].push_back(link(page(offset + limit), "next", "application/json", "next page"));
  if (offset > 0) j["links"].push_back(link(page(std::max<int64_t>(0, offset - limit)), "prev", "application/json", "previous page"));
  return j;
}

Json problem(const std::string& type, int status, const std::string& title, const std::string& detail) {
  Json j;
  j["type"] = type;
  j["title"] = title;
  j["status"] = status;
  j["detail"] = detail;
  return j;
}

Json open_api(const std::string& base, bool with_tokens) {
  Json paths = Json::object();
  // Every operation's responses: its success, and the problems it may
  // answer (application/problem+json, exception.yaml's shape).
  const Json problem_body = {{"application/problem+json", {{"schema", {{"$ref", "#/components/schemas/exception"}}}}}};
  auto op = [&](const std::string& summary, const std::string& id, std::vector<int> problems) {
    Json o;
    o["summary"] = summary;
    o["operationId"] = id;
    o["responses"] = {{"200", {{"description", "OK"}}}};
    if (with_tokens) problems.push_back(401);
    problems.push_back(500);
    for (int code : problems) {
      const char* what = code == 400   ? "a value the client sent is wrong (type invalid-parameter-value)"
                         : code == 401 ? "no bearer token, or an unknown one"
                         : code == 404 ? "no such process, job or output; or the result is not ready"
                         : code == 405 ? "another method on this path"
                         : code == 411 ? "a body without Content-Length"
                         : code == 413 ? "a body over --max-body, or an input over --max-cells"
                         : code == 429 ? "the queue is full (Retry-After)"
                                       : "the server failed";
      o["responses"][std::to_string(code)] = {{"description", what}, {"content", problem_body}};
    }
    return o;
  };
  auto query = [](const std::string& name, const Json& schema, const std::string& description) {
    return Json{{"name", name}, {"in", "query"}, {"required", false}, {"schema", schema},
                {"description", description}, {"style", "form"}, {"explode", false}};
  };
  const Json job_id = {{"name", "jobId"}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}};
  const Json process_id = {{"name", "processId"}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}};
  const Json limit = query("limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}, "items a page holds");
  const Json offset = query("offset", {{"type", "integer"}, {"minimum", 0}}, "items before this page");
  const Json strings = {{"type", "array"}, {"items", {{"type", "string"}}}};
  paths["/"] = {{"get", op("landing page", "getLandingPage", {})}};
  paths["/conformance"] = {{"get", op("conformance classes", "getConformanceClasses", {})}};
  paths["/api"] = {{"get", op("this document", "getApi", {})}};
  Json processes = op("the processes", "getProcesses", {400});
  processes["parameters"] = Json::array({limit, offset});
  paths["/processes"] = {{"get", processes}};
  Json describe = op("a process's description", "getProcessDescription", {404});
  describe["parameters"] = Json::array({process_id});
  paths["/processes/{processId}"] = {{"get", describe}};
  Json execute = op("execute a process: synchronously (one output requested: the output itself; several, or "
                    "response document: the results document, each output by reference or, with transmissionMode "
                    "value, its value), or asynchronously with Prefer: respond-async (201, Location). Datasets by "
                    "reference (a file under a data root, an allowed http(s) URL) or inline (base64, GeoJSON)",
                    "execute", {400, 404, 411, 413, 429});
  execute["parameters"] = Json::array({process_id});
  execute["requestBody"] = {{"required", true},
                            {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/execute"}}}}}}}};
  execute["responses"]["201"] = {{"description", "job created (asynchronous); Location: the job"}};
  paths["/processes/{processId}/execution"] = {{"post", execute}};
  Json jobs = op("the jobs the caller may see, newest first", "getJobs", {400});
  jobs["parameters"] = Json::array(
      {limit, offset, query("processID", strings, "only jobs of these processes"),
       query("status", strings, "only jobs in these states: accepted, running, successful, failed, dismissed"),
       query("type", strings, "only jobs of these types (every job here is of type process)"),
       query("datetime", {{"type", "string"}}, "only jobs created at this RFC 3339 instant or within this interval "
                                               "(A/B, either end open: .. or empty)"),
       query("minDuration", {{"type", "integer"}, {"minimum", 0}}, "only jobs that ran at least this many seconds"),
       query("maxDuration", {{"type", "integer"}, {"minimum", 0}}, "only jobs that ran at most this many seconds")});
  paths["/jobs"] = {{"get", jobs}};
  Json status = op("a job's status", "getStatus", {404});
  status["parameters"] = Json::array({job_id});
  Json dismiss = op("dismiss a job: cancel it and remove its files", "dismiss", {404});
  dismiss["parameters"] = Json::array({job_id});
  paths["/jobs/{jobId}"] = {{"get", status}, {"delete", dismiss}};
  Json results = op("a job's results", "getResult", {400, 404});
  results["parameters"] = Json::array({job_id, query("outputs", strings, "only these outputs")});
  paths["/jobs/{jobId}/results"] = {{"get", results}};
  Json one = op("one result: a table (CSV, or JSON with f=json), a raster (COG, HTTP range requests) or a folder "
                "output's list of files",
                "getOneResult", {404});
  one["parameters"] = Json::array(
      {job_id, {{"name", "outputId"}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}}});
  paths["/jobs/{jobId}/results/{outputId}"] = {{"get", one}};
  Json doc;
  doc["openapi"] = "3.0.3";
  doc["info"] = {{"title", "lsm: landscape metrics (OGC API - Processes 1.0)"}, {"version", LSM_VERSION}};
  doc["servers"] = Json::array({{{"url", base}}});
  doc["paths"] = paths;
  // The standard's exception.yaml and execute.yaml in brief (the documents
  // the service sends validate against the full ones: tests/service_test.py).
  const Json object = {{"type", "object"}};
  doc["components"]["schemas"] = {
      {"exception",
       {{"type", "object"},
        {"required", Json::array({"type"})},
        {"properties",
         {{"type", {{"type", "string"}}}, {"title", {{"type", "string"}}}, {"status", {{"type", "integer"}}},
          {"detail", {{"type", "string"}}}, {"instance", {{"type", "string"}}}}}}},
      {"execute",
       {{"type", "object"},
        {"properties",
         {{"inputs", {{"type", "object"}, {"additionalProperties", true}}},
          {"outputs",
           {{"type", "object"},
            {"additionalProperties",
             {{"type", "object"},
              {"properties",
               {{"transmissionMode", {{"type", "string"}, {"enum", Json::array({"value", "reference"})}}},
                {"format", object}}}}}}},
          {"response", {{"type", "string"}, {"enum", Json::array({"raw", "document"})}}},
          {"subscriber", object}}}}}};
  if (with_tokens) {
    doc["components"]["securitySchemes"] = {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}};
    doc["security"] = Json::array({{{"bearer", Json::array()}}});
  }
  return doc;
}


}  // namespace lsm::serve
