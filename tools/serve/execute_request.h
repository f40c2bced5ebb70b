#pragma once
// The body of an OGC API - Processes execute request
// (POST /processes/{id}/execution), read into an operation's values through
// its validators: {"inputs": {"name": value | {"value": v} | {"href": ref} |
// [values]}}. Datasets are resolved through the input sources (a data root,
// the job's inline inputs, an allowed URL: input_sources.h).
#include <string>
#include <vector>

#include "input_sources.h"
#include "operation_spec.h"

namespace lsm::serve {

/// The values of `body` for `operation` (service spelling: "input k ...");
/// the job's inline inputs lie under `job_folder` (written by
/// InputSources::write_inline_values() when the job was accepted). Outputs
/// are not set. Throws lsm::Error(BadInput) with one line naming the
/// problem: not JSON, not an object, an unknown member or input, a value of
/// the wrong type or out of range, a reference the sources refuse.
ops::ParameterValues read_execute_request(const ops::Operation& operation, const std::string& body,
                                          const InputSources& sources, const std::string& job_folder);

/// The body of an execute request after the depth check, parsed. Throws
/// lsm::Error(BadInput) for a body nested too deep or not JSON.
nlohmann::json parse_execute_request(const std::string& body);

/// One output an execute request asks for.
struct RequestedOutput {
  std::string id;         ///< the output's ID ("class", "output")
  bool by_value = false;  ///< transmissionMode "value": in the response itself, not a link
};

/// The outputs an execute request asks for (its `outputs` member's keys), in
/// the process description's order; every declared output, by reference,
/// where it names none (OGC API - Processes 1.0,
/// /req/core/process-execute-default-outputs). Throws lsm::Error(BadInput)
/// for an output the process does not have, a format other than the output's
/// media type, or a transmissionMode other than "value" and "reference".
std::vector<RequestedOutput> requested_outputs(const ops::OperationSpec& spec, const std::string& body);

/// Whether the request asks for the results document (`"response":
/// "document"`) rather than the raw output (OGC API - Processes 1.0:
/// "raw", the default). Throws lsm::Error(BadInput) for another value.
bool wants_document(const std::string& body);

}  // namespace lsm::serve
