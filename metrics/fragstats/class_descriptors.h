#pragma once
// FRAGSTATS 4.2 class descriptor files ("Class properties" in FRAGSTATS'
// Analysis parameters; FRAGSTATS 4.2 help, "Class descriptors"): one line per
// class, "ID, Name, Enabled, IsBackground", an optional header line with
// those words, fields separated by commas, Enabled and IsBackground as
// true/false. FRAGSTATS' meaning: a class that is not Enabled is left out of
// the class-level output; an IsBackground class is background (inside the
// landscape, no patches, no class).
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace lsm {

struct ClassDescriptors {
  std::map<int32_t, std::string> names;  ///< class code -> name
  std::set<int32_t> disabled;            ///< Enabled = false
  std::set<int32_t> background;          ///< IsBackground = true
};

/// Reads a class descriptor file (at most 1 MiB; the file becomes a
/// protected input). Throws lsm::Error(BadInput) naming the file and line:
/// not a file, too large, a line without 4 fields, an ID that is not an
/// int32 integer, a flag that is not true/false, an ID given twice.
ClassDescriptors read_class_descriptors(const std::string& path);

}  // namespace lsm
