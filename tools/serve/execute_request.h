#pragma once
// The body of an OGC API - Processes execute request
// (POST /processes/{id}/execution), read into an operation's values through
// its validators: {"inputs": {"name": value | {"value": v} | {"href": ref} |
// [values]}}. Input rasters are resolved through the data roots.
#include <string>
#include <vector>

#include "data_roots.h"
#include "operation_spec.h"

namespace lsm::serve {

/// The values of `body` for `operation` (service spelling: "input k ...").
/// Outputs are not set. Throws lsm::Error(BadInput) with one line naming the
/// problem: not JSON, not an object, an unknown input, a value of the wrong
/// type or out of range, a reference outside the data roots.
ops::ParameterValues read_execute_request(const ops::Operation& operation, const std::string& body,
                                          const DataRoots& roots);

/// The outputs an execute request asks for (its `outputs` member's keys), in
/// the process description's order; every declared output where it names
/// none (OGC API - Processes 1.0, /req/core/process-execute-default-outputs).
/// Throws lsm::Error(BadInput) for an output the process does not have, a
/// format other than the output's media type, or transmissionMode "value"
/// (outputs go by reference: the description's outputTransmission).
std::vector<std::string> requested_outputs(const ops::OperationSpec& spec, const std::string& body);

}  // namespace lsm::serve
