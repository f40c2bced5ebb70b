#pragma once
// The service's pages for a person (?f=html, or a browser's Accept): the
// landing page, the processes with a form that executes each, the job list
// with paging and a status filter, and a job's page with its progress, a
// button that cancels it and, once it succeeded, its results (tables shown,
// rasters as thumbnails). Plain HTML forms, no script.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lsm::serve {

using Json = nlohmann::ordered_json;  // as ogc_documents.h: members in their order

/// `text` with <, >, & and " escaped for HTML.
std::string escape_html(const std::string& text);

/// The HTML rendering of `document` (kind: landing, conformance, api,
/// processes, process, jobs, job, results) titled `title`. A job's document may carry "results" (the
/// results document) and "previews" (output ID -> rows of cells: the first
/// rows of a table); a running job's page reloads itself every two seconds.
std::string html_page(const std::string& title, const Json& document, const std::string& kind);

/// An error for a person: `status`, `title` and `detail` and a link back.
std::string html_problem(int status, const std::string& title, const std::string& detail);

/// The execute request a process page's form makes (its fields as
/// application/x-www-form-urlencoded sends them; empty fields left out),
/// each value typed by the process description's schema (numbers and
/// integers as numbers, booleans from a checkbox; an input of several values
/// from comma-separated text). Throws lsm::Error(BadInput) for a field the
/// process has no input for, or a value that is not of its type.
Json execute_request_from_form(const Json& process_description, const std::multimap<std::string, std::string>& fields);

}  // namespace lsm::serve
