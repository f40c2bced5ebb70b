#pragma once
// Small text files named by options (K-means' --init, FRAGSTATS class
// descriptors): read whole with a size limit, so that an endless or huge file
// (a device, a wrong path) cannot grow memory until the run is killed, and
// recorded as protected inputs (protected_inputs.h).
#include <cstdint>
#include <string>

namespace lsm {

/// The bytes of the file `path`. `what` names it in messages ("the initial
/// centres file"). Throws lsm::Error(BadInput): "WHAT 'PATH' is a folder",
/// "cannot read WHAT 'PATH'", "WHAT 'PATH' is larger than N MiB".
std::string read_small_text_file(const std::string& path, const std::string& what, uint64_t max_bytes);

}  // namespace lsm
