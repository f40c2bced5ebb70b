#include "operations.h"

namespace lsm::ops {

const std::vector<Operation>& operations() {
  static const std::vector<Operation> all = {
      metrics_operation(), label_operation(), patchmetric_operation(), synth_operation(), kmeans_operation(),
      gradient_operation(), pyramid_operation(), hog_operation(), fuzzy_operation(),
  };
  return all;
}

const Operation* find_operation(const std::string& name) {
  for (const Operation& op : operations())
    if (op.spec.name == name) return &op;
  return nullptr;
}

}  // namespace lsm::ops
