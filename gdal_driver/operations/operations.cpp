#include "operations.h"

#include "common_parameters.h"

namespace lsm::ops {

namespace {

// Every operation gets max-cells and checks the size of its run first: the
// limit holds for every front end, and opening the input here protects it
// from the run's outputs before any exists.
Operation size_checked(Operation op) {
  op.spec.parameters.push_back(max_cells_parameter());
  op.run = [run = op.run](const ParameterValues& values, const RunContext& context) {
    check_run_size(values, context);
    run(values, context);
  };
  return op;
}

}  // namespace

const std::vector<Operation>& operations() {
  static const std::vector<Operation> all = {
      size_checked(metrics_operation()), size_checked(label_operation()),   size_checked(patches_operation()),   size_checked(patchmetric_operation()),
      size_checked(window_operation()),  size_checked(zonal_operation()),  size_checked(change_operation()),
      size_checked(synth_operation()),   size_checked(kmeans_operation()),  size_checked(gradient_operation()),
      size_checked(pyramid_operation()), size_checked(hog_operation()),     size_checked(fuzzy_operation()),
      size_checked(echo_operation()),
  };
  return all;
}

const Operation* find_operation(const std::string& name) {
  for (const Operation& op : operations())
    if (op.spec.name == name) return &op;
  return nullptr;
}

}  // namespace lsm::ops
