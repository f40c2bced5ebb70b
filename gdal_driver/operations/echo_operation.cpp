// echo: gives back what it was given — the process OGC API - Processes'
// conformance suite (ets-ogcapi-processes10, its "echo process" parameter)
// runs its job tests with, and a way for an operator to check inputs, inline
// values and remote references end to end without computing anything. The
// service shows it; the command line, the driver and QGIS do not.
#include <gdal_priv.h>

#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "atomic_output.h"
#include "error.h"
#include "gdal_open.h"
#include "operations.h"

namespace lsm::ops {

namespace {

OperationSpec echo_spec() {
  OperationSpec s;
  s.name = "echo";
  s.summary = "gives back its inputs (for conformance tests and for checking inputs)";
  s.title = "Echo";
  s.category = "Service";
  s.manual = "SERVICE.md";
  s.usage = "";
  s.front_ends = kService;
  s.parameters = {
      text("string-input", "a text given back as it is").needed(),
      number("double-input", "a number given back").with_default("1.5").at_least(-1e9).at_most(1e9),
      integer("integer-input", "whole numbers given back in order").several().at_least(-1000000).at_most(1000000),
      flag("boolean-input", "a yes or no given back"),
      input_raster("raster-input", "a raster (by reference or inline) described back: size, bands, data type"),
      output(ParameterRole::OutputFile, "string-output", "the string input")
          .making({{"string-output", ".txt", "text/plain", "string-input, as it was given"}}),
      output(ParameterRole::OutputFile, "echo", "every input")
          .making({{"echo", ".json", "application/json", "every input as JSON (a raster as its size, bands and type)"}}),
  };
  return s;
}

// What echo says of a raster: what GDAL reads in it.
nlohmann::ordered_json raster_description(const std::string& path) {
  struct Closer {
    void operator()(GDALDataset* d) const { GDALClose(d); }
  };
  const std::unique_ptr<GDALDataset, Closer> dataset(open_input_raster(path));
  nlohmann::ordered_json j;
  j["width"] = dataset->GetRasterXSize();
  j["height"] = dataset->GetRasterYSize();
  j["bands"] = dataset->GetRasterCount();
  if (dataset->GetRasterCount() > 0)
    j["data_type"] = GDALGetDataTypeName(dataset->GetRasterBand(1)->GetRasterDataType());
  return j;
}

void write_committed(AtomicOutput& file, const std::string& text) {
  {
    std::ofstream out(file.temp_path(), std::ios::binary);
    out << text;
    if (!out.flush()) throw Error(ErrorKind::Io, "cannot write '" + file.final_path() + "'");
  }
  file.commit();
}

void run_echo(const ParameterValues& v, const RunContext& context) {
  nlohmann::ordered_json echo;
  echo["string-input"] = v.text("string-input");
  echo["double-input"] = v.number("double-input");
  echo["integer-input"] = nlohmann::ordered_json::array();
  for (const std::string& value : v.texts("integer-input")) echo["integer-input"].push_back(std::stoll(value));
  echo["boolean-input"] = v.flag("boolean-input");
  if (v.given("raster-input")) echo["raster-input"] = raster_description(v.text("raster-input"));
  if (const ProgressFn progress = context.checked_progress()) progress(1.0);
  if (v.given("string-output")) {
    AtomicOutput out(v.text("string-output"));
    write_committed(out, v.text("string-input"));
  }
  if (v.given("echo")) {
    AtomicOutput out(v.text("echo"));
    write_committed(out, echo.dump(2) + "\n");
  }
}

}  // namespace

Operation echo_operation() { return {echo_spec(), run_echo}; }

}  // namespace lsm::ops
