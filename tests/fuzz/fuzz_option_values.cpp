// Fuzz target: the option validators of every operation. The first two bytes
// choose an operation and one of its parameters, the rest is the value, set
// through ParameterValues (as every front end does) and then read back with
// the typed accessors the runs use. A value either is refused with
// lsm::Error or reads back within the parameter's declared range.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "operations.h"

using namespace lsm::ops;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::vector<Operation>& all = operations();
  const Operation& op = all[data[0] % all.size()];
  const ParameterSpec& p = op.spec.parameters[data[1] % op.spec.parameters.size()];
  const std::string value(reinterpret_cast<const char*>(data + 2), size - 2);
  for (FrontEnd front_end : {kCommandLine, kDriver, kService}) {
    ParameterValues values(op.spec, front_end);
    try {
      values.set(p.name, value);
    } catch (const lsm::Error& e) {
      if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
      continue;
    }
    if (p.type == ParameterType::Integer) {
      const long long n = values.integer(p.name);
      if ((p.minimum && n < *p.minimum) || (p.maximum && n > *p.maximum)) std::abort();
    } else if (p.type == ParameterType::Number) {
      const double x = values.number(p.name);
      if (!std::isfinite(x) || (p.minimum && x < *p.minimum) || (p.maximum && x > *p.maximum)) std::abort();
    } else if (p.type == ParameterType::Flag) {
      values.flag(p.name);
    }
  }
  return 0;
}
