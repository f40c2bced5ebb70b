#pragma once
// The operations' declarations as JSON: `lsm --describe` prints it and the
// QGIS provider (tools/qgis/) generates its algorithms from it; the service
// describes its processes from the same declarations (typed_json below).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "operation_spec.h"

namespace lsm::ops {

/// The document, compact:
///   {"program": "lsm", "version": V, "commands": [{"name", "summary", "title",
///    "category", "usage", "driver", "parameters": [{"name", "type", "required",
///    "default", "choices", "multiple", "positional", "help", "output", "input",
///    "visibility", "short", "unit", "minimum", "maximum", "driver", "title",
///    "advanced", "list", "style", "choice_labels", "aliases", "files"}],
///    "rules": [{"kind", "parameters": [A, B]}]}], "metric_catalogue": [...]}
/// for the operations and parameters the command line shows. "type" is
/// integer, number, string or flag; defaults and choices are typed (numbers
/// as numbers); "output" is null for inputs and values, else raster, file,
/// table-prefix, folder or vector; "input" the dataset kind an input names
/// (raster or vector; else null); "visibility" everyone, presentation (how
/// the command line shows a run: -q, -of) or trusted (a path on the machine
/// that runs it: never a remote client's); "rules" the cross-parameter rules
/// (ParameterRule: excludes, requires, one-of; lsm checks them itself);
/// "files" (outputs only) the declared files:
/// id, suffix, media_type, description; "aliases" the older spellings still
/// accepted; "driver" is the GDAL driver's option name, or null where the
/// driver does not take the parameter; "title" a dialog's field name (the QGIS
/// provider's), "help" its explanation. The last member, "metric_catalogue",
/// lists the metric catalogue (metric_catalogue.h): acronym, name, family,
/// levels, unit, second_pass, distribution.
/// A parameter's value (a default, a choice) as its JSON type: integers and
/// numbers as numbers (whole ones without a fraction: "1" not "1.0"), flags
/// as booleans, text as text. Shared by --describe and the service.
nlohmann::ordered_json typed_json(ParameterType type, const std::string& value);
/// A number, whole ones without a fraction.
nlohmann::ordered_json number_json(double value);

std::string describe_json(const std::vector<Operation>& operations, const std::string& version);

}  // namespace lsm::ops
