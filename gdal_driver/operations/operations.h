#pragma once
// The registry of lsm's operations: every front end lists and runs them from
// here. Each operation lives in its own <name>_operation.cpp.
#include <string>
#include <vector>

#include "operation_spec.h"

namespace lsm::ops {

Operation metrics_operation();      ///< FRAGSTATS tables (CSV)
Operation label_operation();        ///< patch-ID raster
Operation patches_operation();      ///< patch polygons with their metrics
Operation patchmetric_operation();  ///< a patch metric of every cell
Operation synth_operation();        ///< neutral landscape model
Operation kmeans_operation();       ///< K-means classes
Operation gradient_operation();     ///< Gaussian-derivative gradients
Operation pyramid_operation();      ///< image pyramid or GDAL overviews
Operation hog_operation();          ///< HOG descriptors
Operation window_operation();       ///< moving-window metric rasters
Operation zonal_operation();        ///< tables of every zone as a landscape
Operation change_operation();       ///< metrics of two dates and their change
Operation fuzzy_operation();        ///< fuzzy connectedness
Operation echo_operation();         ///< gives back its inputs (the service's conformance process)

/// Every operation, in the order front ends list them.
const std::vector<Operation>& operations();
/// The operation named `name`, or nullptr.
const Operation* find_operation(const std::string& name);

}  // namespace lsm::ops
