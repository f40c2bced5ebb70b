#pragma once
// The JSON documents of OGC API - Processes - Part 1: Core 1.0 (OGC
// 18-062r2) that lsm serve returns, built from the operation layer's
// declarations: landing page, conformance, process list and descriptions,
// statusInfo, job list, results, exceptions (RFC 7807), and the OpenAPI
// document. Each validates against the standard's schemas
// (tests/service_test.py checks them all).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "job_store.h"
#include "operation_spec.h"

namespace lsm::serve {

using Json = nlohmann::ordered_json;

/// The operations the service runs: those whose parameters it can fill
/// (an input raster from a data root, outputs in the job's folder).
std::vector<const ops::Operation*> service_operations();
/// The service's operation named `id`, or nullptr.
const ops::Operation* find_service_operation(const std::string& id);

Json landing_page(const std::string& base);
Json conformance();
Json process_summary(const ops::OperationSpec& spec, const std::string& base);
Json process_description(const ops::OperationSpec& spec, const std::string& base);
/// The processes from `offset`, at most `limit` of them, with a next link where more follow.
Json process_list(const std::string& base, int64_t offset = 0, int64_t limit = 1000);
Json status_info(const JobRecord& job, const std::string& base);
/// A page of the job list; `query` ("&status=running…") is the filters,
/// kept in the page links.
Json job_list(const std::vector<JobRecord>& jobs, const std::string& base, int64_t offset, int64_t limit,
              int64_t total, const std::string& query = "");
/// The OpenAPI 3.0 document of the service at `base`; `with_tokens`: every
/// request needs a bearer token (the security scheme, and 401 on every path).
Json open_api(const std::string& base, bool with_tokens = false);

/// What a process writes, by output ID: "patch", "class", "land", "adj"
/// (tables of metrics), "output" (a raster), "stats" (kmeans), "levels"
/// (pyramid: one per level, level_00 ...).
struct OutputKind {
  std::string id, title, media_type;
};
std::vector<OutputKind> process_outputs(const ops::OperationSpec& spec);

/// The exception types of the standard, and lsm's own for bad requests.
namespace exception_type {
constexpr const char* kNoSuchProcess = "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/no-such-process";
constexpr const char* kNoSuchJob = "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/no-such-job";
constexpr const char* kResultNotReady = "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/result-not-ready";
constexpr const char* kInvalidParameter =
    "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/invalid-parameter-value";
constexpr const char* kFailed = "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/failed";
}  // namespace exception_type

/// An RFC 7807 problem document.
Json problem(const std::string& type, int status, const std::string& title, const std::string& detail);


}  // namespace lsm::serve
