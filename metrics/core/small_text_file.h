#pragma once
// Small text files named by options (K-means' --init, FRAGSTATS class
// descriptors): read whole with a size limit, so that an endless or huge file
// (a device, a wrong path) cannot grow memory until the run is killed, and
// recorded as protected inputs (protected_inputs.h).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lsm {

/// The bytes of the file `path`. `what` names it in messages ("the initial
/// centres file"). Throws lsm::Error(BadInput): "WHAT 'PATH' is a folder",
/// "cannot read WHAT 'PATH'", "WHAT 'PATH' is larger than N MiB".
std::string read_small_text_file(const std::string& path, const std::string& what, uint64_t max_bytes);

/// The records of a small hand-written CSV file (FRAGSTATS' class descriptor
/// and batch files), read by read_small_text_file(): a UTF-8 byte order mark
/// (Excel's "CSV UTF-8") and Windows line ends dropped, blank lines skipped,
/// and with `comments` lines starting with '#' too. `record` gets each line's
/// fields (split_csv_line(), each trimmed_field()), its 1-based number and
/// "PATH:LINE: " to start its messages with. Throws what
/// read_small_text_file() throws, and what `record` throws.
void for_each_csv_record(const std::string& path, const std::string& what, uint64_t max_bytes, bool comments,
                         const std::function<void(const std::vector<std::string>& fields, int line,
                                                  const std::string& where)>& record);

}  // namespace lsm
