#include "html_pages.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>
#include <sstream>

#include "error.h"

namespace lsm::serve {

namespace {

std::string string_of(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string page(const std::string& title, const std::string& body, bool reload = false) {
  return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
         std::string(reload ? "<meta http-equiv=\"refresh\" content=\"2\">" : "") + "<title>" + escape_html(title) +
         "</title><style>body{font-family:sans-serif;margin:2em;max-width:64em}td,th{padding:.2em .6em;"
         "text-align:left;border-bottom:1px solid #ddd}progress{width:30em;height:1.5em}label{display:block;"
         "margin:.6em 0 .1em}.req{color:#b00}.hint{color:#555;font-size:90%}img.thumb{max-width:30em;border:1px "
         "solid #ccc}button{padding:.3em 1em}.scroll{overflow-x:auto}</style></head><body><h1>" +
         escape_html(title) + "</h1>" + body +
         "<p><a href=\"/?f=html\">lsm service</a> &middot; <a href=\"/processes?f=html\">processes</a> &middot; "
         "<a href=\"/jobs?f=html\">jobs</a></p></body></html>";
}

// Seconds since the epoch of an RFC 3339 UTC time as the store writes it
// ("2026-11-28T15:18:47.302Z"); nullopt for anything else.
std::optional<double> epoch_seconds(const std::string& text) {
  std::tm t{};
  int milliseconds = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour,
                  &t.tm_min, &t.tm_sec, &milliseconds) != 7)
    return std::nullopt;
  t.tm_year -= 1900;
  t.tm_mon -= 1;
  return static_cast<double>(timegm(&t)) + milliseconds / 1000.0;
}

// How long the job ran, or has been running ("" before it started).
std::string duration_of(const Json& job) {
  const std::optional<double> started = epoch_seconds(string_of(job, "started"));
  if (!started) return "";
  const std::optional<double> finished = epoch_seconds(string_of(job, "finished"));
  const double seconds = (finished ? *finished : static_cast<double>(std::time(nullptr))) - *started;
  char text[64];
  std::snprintf(text, sizeof text, "%.1f s%s", std::max(0.0, seconds), finished ? "" : " so far");
  return text;
}

// The inputs a job was given, as its request named them (an inline
// dataset as "inline", the file the server wrote being its own business).
std::string inputs_table(const Json& inputs) {
  std::string body = "<h2>Inputs</h2><table>";
  for (const auto& [name, value] : inputs.items()) {
    const auto shown = [](const Json& v) {
      if (v.is_object() && v.contains("href") && v["href"].is_string()) {
        const std::string href = v["href"].get<std::string>();
        return href.rfind("job:", 0) == 0 ? std::string("(inline)") : href;
      }
      return v.is_string() ? v.get<std::string>() : v.dump();
    };
    std::string text;
    if (value.is_array())
      for (const Json& item : value) text += (text.empty() ? "" : ", ") + shown(item);
    else
      text = shown(value);
    body += "<tr><th><code>" + escape_html(name) + "</code></th><td>" + escape_html(text) + "</td></tr>";
  }
  return body + "</table>";
}

// A job: what runs, how far, for how long; a cancel button while it may
// still be stopped; its inputs; its results once it succeeded.
std::string job_body(const Json& job) {
  const std::string id = string_of(job, "jobID"), status = string_of(job, "status");
  const int progress = job.value("progress", 0);
  std::string body = "<p>Process <b>" + escape_html(string_of(job, "processID")) + "</b>, job <code>" +
                     escape_html(id) + "</code></p>";
  body += "<p class=\"status\">Status: <b>" + escape_html(status) + "</b> &mdash; " + std::to_string(progress) +
          " %</p><progress max=\"100\" value=\"" + std::to_string(progress) + "\"></progress>";
  if (status == "failed" || status == "dismissed")  // why it ended; the other states speak for themselves
    body += "<p>" + escape_html(string_of(job, "message")) + "</p>";
  body += "<table><tr><th>created</th><td>" + escape_html(string_of(job, "created")) + "</td></tr><tr><th>started</th><td>" +
          escape_html(string_of(job, "started")) + "</td></tr><tr><th>finished</th><td>" +
          escape_html(string_of(job, "finished")) + "</td></tr><tr><th>duration</th><td>" +
          escape_html(duration_of(job)) + "</td></tr></table>";
  if (status != "dismissed") {
    const bool active = status == "accepted" || status == "running";
    body += "<form method=\"post\" action=\"/jobs/" + escape_html(id) + "/dismissal\"><p><button type=\"submit\">" +
            std::string(active ? "Cancel this job" : "Delete this job and its results") + "</button></p></form>";
  }
  if (job.contains("inputs") && job["inputs"].is_object() && !job["inputs"].empty()) body += inputs_table(job["inputs"]);
  if (!job.contains("results")) return body;
  body += "<h2>Results</h2>";
  for (const auto& [output, link] : job["results"].items()) {
    const std::string href = string_of(link, "href"), type = string_of(link, "type");
    body += "<h3><a href=\"" + escape_html(href) + "\">" + escape_html(output) + "</a> <span class=\"hint\">" +
            escape_html(type) + "</span></h3>";
    if (type.rfind("image/tiff", 0) == 0)
      body += "<p><img class=\"thumb\" alt=\"" + escape_html(output) + "\" src=\"" + escape_html(href) +
              "?f=png\"></p>";
    if (job.contains("previews") && job["previews"].contains(output)) {
      const Json& rows = job["previews"][output];
      body += "<div class=\"scroll\"><table>";
      for (size_t r = 0; r < rows.size(); ++r) {
        body += "<tr>";
        for (const Json& cell : rows[r])
          body += (r == 0 ? "<th>" : "<td>") + escape_html(cell.get<std::string>()) + (r == 0 ? "</th>" : "</td>");
        body += "</tr>";
      }
      body += "</table></div><p class=\"hint\"><a href=\"" + escape_html(href) + "\">the whole table (CSV)</a>, <a href=\"" +
              escape_html(href) + "?f=json\">as JSON</a></p>";
    }
  }
  return body;
}

// The job list: a status filter and the page links the document carries.
std::string jobs_body(const Json& list) {
  std::string body =
      "<form method=\"get\" action=\"/jobs\"><input type=\"hidden\" name=\"f\" value=\"html\"><p>Show "
      "<select name=\"status\"><option value=\"\">every status</option>";
  for (const char* s : {"accepted", "running", "successful", "failed", "dismissed"})
    body += std::string("<option>") + s + "</option>";
  body += "</select> <button type=\"submit\">Filter</button></p></form>";
  body += "<table><tr><th>job</th><th>process</th><th>status</th><th>progress</th><th>created</th></tr>";
  for (const Json& job : list["jobs"]) {
    const std::string id = string_of(job, "jobID");
    body += "<tr><td><a href=\"/jobs/" + escape_html(id) + "?f=html\">" + escape_html(id) + "</a></td><td>" +
            escape_html(string_of(job, "processID")) + "</td><td>" + escape_html(string_of(job, "status")) + "</td><td>" +
            std::to_string(job.value("progress", 0)) + " %</td><td>" + escape_html(string_of(job, "created")) +
            "</td></tr>";
  }
  body += "</table><p>";
  for (const Json& l : list["links"]) {
    const std::string rel = string_of(l, "rel");
    if (rel == "prev" || rel == "next")
      body += "<a href=\"" + escape_html(string_of(l, "href")) + "&amp;f=html\">" +
              (rel == "prev" ? "&larr; newer" : "older &rarr;") + "</a> ";
  }
  return body + "</p>";
}

// A process: what it does, a form that executes it (required inputs
// marked, defaults filled in, choices as lists), and its outputs.
// A request that runs the process from a script: its required inputs (a
// dataset as a file reference, a value as its default or a placeholder).
std::string example_request(const Json& process) {
  Json inputs = Json::object();
  for (const auto& [name, in] : process["inputs"].items()) {
    if (in.value("minOccurs", 0) == 0) continue;
    const Json& schema = in.contains("schema") ? in["schema"] : Json::object();
    if (schema.contains("contentMediaType")) inputs[name] = {{"href", "file:landcover/example.tif"}};
    else if (schema.contains("default")) inputs[name] = schema["default"];
    else if (schema.contains("enum") && !schema["enum"].empty()) inputs[name] = schema["enum"][0];
    else inputs[name] = string_of(schema, "type") == "string" ? Json("...") : Json(1);
  }
  std::string execute;
  for (const Json& l : process.value("links", Json::array()))
    if (string_of(l, "rel").find("/execute") != std::string::npos) execute = string_of(l, "href");
  const std::string request = Json{{"inputs", inputs}}.dump();
  return "<h2>From a script</h2><p class=\"hint\">The required inputs; add any other the form shows. "
         "<code>Prefer: respond-async</code> answers at once with the job's address.</p><pre>curl -X POST '" +
         escape_html(execute) + "' \\\n  -H 'Content-Type: application/json' \\\n  -d '" + escape_html(request) + "'</pre>";
}

std::string process_body(const Json& process) {
  const std::string id = string_of(process, "id");
  std::string body = "<p>" + escape_html(string_of(process, "description")) + "</p><h2>Run it</h2>";
  body += "<form method=\"post\" action=\"/processes/" + escape_html(id) + "/execution\">";
  for (const auto& [name, in] : process["inputs"].items()) {
    const Json& schema = in.contains("schema") ? in["schema"] : Json::object();
    const std::string type = string_of(schema, "type");
    const bool required = in.value("minOccurs", 0) > 0;
    const std::string field = escape_html(name);
    body += "<label for=\"" + field + "\"><code>" + field + "</code>" +
            (required ? " <span class=\"req\" title=\"required\">*</span>" : "") + " <span class=\"hint\">" +
            escape_html(string_of(in, "description")) + "</span></label>";
    const std::string shown_default =
        schema.contains("default") ? (schema["default"].is_string() ? schema["default"].get<std::string>()
                                                                    : schema["default"].dump())
                                   : "";
    if (schema.contains("enum")) {
      body += "<select id=\"" + field + "\" name=\"" + field + "\">";
      if (!required && !schema.contains("default")) body += "<option value=\"\"></option>";
      for (const Json& choice : schema["enum"]) {
        const std::string c = choice.is_string() ? choice.get<std::string>() : choice.dump();
        body += "<option" + std::string(c == shown_default ? " selected" : "") + ">" + escape_html(c) + "</option>";
      }
      body += "</select>";
    } else if (type == "boolean") {
      body += "<input type=\"checkbox\" id=\"" + field + "\" name=\"" + field + "\" value=\"true\"" +
              (shown_default == "true" ? " checked" : "") + ">";
    } else {
      const bool number = type == "number" || type == "integer";
      body += "<input id=\"" + field + "\" name=\"" + field + "\" type=\"" + (number ? "number" : "text") + "\"" +
              (number ? std::string(" step=\"") + (type == "integer" ? "1" : "any") + "\"" : "") +
              (required ? " required" : "") + (shown_default.empty() ? "" : " value=\"" + escape_html(shown_default) + "\"") +
              (schema.contains("contentMediaType") ? " placeholder=\"a file under a data root\"" : "") +
              " size=\"40\">";
    }
  }
  body += "<p><button type=\"submit\">Run " + escape_html(id) + "</button></p></form>" + example_request(process) +
          "<h2>Outputs</h2><ul>";
  for (const auto& [name, out] : process["outputs"].items())
    body += "<li><code>" + escape_html(name) + "</code>: " + escape_html(string_of(out, "description")) + "</li>";
  body += "</ul><p class=\"hint\">The same as JSON: <a href=\"/processes/" + escape_html(id) + "\">/processes/" +
          escape_html(id) + "</a></p>";
  return body;
}

}  // namespace

std::string escape_html(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// The conformance classes, each a link to its definition.
std::string conformance_body(const Json& conformance) {
  std::string body = "<p>The parts of OGC API &ndash; Processes &ndash; Part 1: Core 1.0 this service implements:</p><ul>";
  for (const Json& c : conformance["conformsTo"])
    if (c.is_string())
      body += "<li><a href=\"" + escape_html(c.get<std::string>()) + "\">" + escape_html(c.get<std::string>()) + "</a></li>";
  return body + "</ul>";
}

// The OpenAPI document as a person reads it: each path's operations with
// their parameters and answers.
std::string api_body(const Json& api) {
  std::string body = "<p>" + escape_html(api["info"].value("title", "")) +
                     ". The same as JSON: <a href=\"/api?f=json\">/api?f=json</a> (OpenAPI 3.0).</p>";
  if (api.contains("components") && api["components"].contains("securitySchemes"))
    body += "<p>Every request carries a bearer token: <code>Authorization: Bearer TOKEN</code>.</p>";
  for (const auto& [path, methods] : api["paths"].items())
    for (const auto& [method, operation] : methods.items()) {
      std::string upper = method;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      body += "<h2><code>" + escape_html(upper + " " + path) + "</code></h2><p>" +
              escape_html(operation.value("summary", "")) + "</p>";
      if (operation.contains("parameters") && !operation["parameters"].empty()) {
        body += "<table><tr><th>parameter</th><th>in</th><th>what it does</th></tr>";
        for (const Json& p : operation["parameters"])
          body += "<tr><td><code>" + escape_html(p.value("name", "")) + "</code></td><td>" + escape_html(p.value("in", "")) +
                  "</td><td>" + escape_html(p.value("description", "")) + "</td></tr>";
        body += "</table>";
      }
      body += "<table><tr><th>answer</th><th>when</th></tr>";
      for (const auto& [code, response] : operation["responses"].items())
        body += "<tr><td>" + escape_html(code) + "</td><td>" + escape_html(response.value("description", "")) + "</td></tr>";
      body += "</table>";
    }
  return body;
}

// A results document: each output's link, or its value where it was sent so.
std::string results_body(const Json& results) {
  std::string body = "<table><tr><th>output</th><th>media type</th><th>result</th></tr>";
  for (const auto& [id, output] : results.items()) {
    const std::string type = output.contains("type") ? string_of(output, "type") : string_of(output, "mediaType");
    std::string shown;
    if (output.contains("href")) {
      shown = "<a href=\"" + escape_html(string_of(output, "href")) + "\">download</a>";
    } else if (output.contains("value")) {
      const std::string value = output["value"].is_string() ? output["value"].get<std::string>() : output["value"].dump(2);
      shown = "<pre>" + escape_html(value.substr(0, 4000)) + (value.size() > 4000 ? "\n..." : "") + "</pre>";
    }
    body += "<tr><td>" + escape_html(id) + "</td><td>" + escape_html(type) + "</td><td>" + shown + "</td></tr>";
  }
  return body + "</table>";
}

}  // namespace

std::string html_page(const std::string& title, const Json& document, const std::string& kind) {
  std::string body;
  if (kind == "conformance") {
    body = conformance_body(document);
  } else if (kind == "api") {
    body = api_body(document);
  } else if (kind == "results") {
    body = results_body(document);
  } else if (kind == "job") {
    body = job_body(document);
  } else if (kind == "jobs") {
    body = jobs_body(document);
  } else if (kind == "processes") {
    body = "<p>Pick a process to see what it computes and run it.</p><ul>";
    for (const Json& p : document["processes"])
      body += "<li><a href=\"/processes/" + escape_html(string_of(p, "id")) + "?f=html\">" +
              escape_html(string_of(p, "id")) + "</a>: " + escape_html(string_of(p, "description")) + "</li>";
    body += "</ul>";
  } else if (kind == "process") {
    body = process_body(document);
  } else {
    body += "<p>" + escape_html(string_of(document, "description")) + "</p><p>Start with the <a "
            "href=\"/processes?f=html\">processes</a>: each page has a form that runs it; follow your jobs on the <a "
            "href=\"/jobs?f=html\">job list</a>.</p><ul>";
    for (const Json& l : document["links"])
      body += "<li><a href=\"" + escape_html(string_of(l, "href")) + "\">" + escape_html(string_of(l, "title")) +
              "</a></li>";
    body += "</ul>";
  }
  // A running job's page reloads itself so a person can watch the progress.
  const std::string status = string_of(document, "status");
  return page(title, body, kind == "job" && (status == "running" || status == "accepted"));
}

std::string html_problem(int status, const std::string& title, const std::string& detail) {
  return page(std::to_string(status) + " " + title,
              "<p>" + escape_html(detail) + "</p><p><a href=\"javascript:history.back()\">back</a></p>");
}

Json execute_request_from_form(const Json& process, const std::multimap<std::string, std::string>& fields) {
  Json inputs = Json::object();
  for (const auto& [name, value] : fields) {
    // A field the page does not have is a mistake (a misspelt name in a
    // hand-made form), refused as the JSON path refuses an unknown input.
    if (!process["inputs"].contains(name))
      throw Error(ErrorKind::BadInput, "process " + string_of(process, "id") + " has no input '" + name.substr(0, 64) + "'");
    if (value.empty()) continue;  // left empty: the process's default
    const Json& input = process["inputs"][name];
    const Json& schema = input.value("schema", Json::object());
    const std::string type = string_of(schema, "type");
    const auto typed = [&](const std::string& text) -> Json {
      try {
        size_t used = 0;
        if (type == "integer") {
          const long long v = std::stoll(text, &used);
          if (used == text.size()) return v;
        } else if (type == "number") {
          const double v = std::stod(text, &used);
          if (used == text.size()) return v;
        } else if (type == "boolean") {
          return text == "true" || text == "on";
        } else {
          return text;
        }
      } catch (const std::logic_error&) {
      }
      throw Error(ErrorKind::BadInput, "input '" + name + "' must be " + (type == "integer" ? "a whole number" : "a number") +
                                           " (got '" + text.substr(0, 40) + "')");
    };
    // An input taking several values (maxOccurs unbounded) is typed as a
    // comma-separated list in its one field.
    if (input.contains("maxOccurs") && input["maxOccurs"] == "unbounded" && type != "boolean") {
      Json items = Json::array();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');)
        if (!item.empty()) items.push_back(typed(item));
      inputs[name] = items;
    } else {
      inputs[name] = typed(value);
    }
  }
  return Json{{"inputs", inputs}};
}

}  // namespace lsm::serve
