#pragma once
// Inputs are never overwritten. Every file a run reads (the raster, its
// sidecars, a seeds or centres file) is recorded here by device and inode, so
// links, hard links and relative spellings ("./sub/../in.tif") all resolve to
// the same file; every output (AtomicOutput) asks refuse_overwriting_input()
// before it creates anything, so a run that would replace its input stops
// before any work with one error line and leaves the input's bytes unchanged.
// The record lives as long as the process: in the service or a GIS session a
// file that was once read stays protected, which is what a user expects.
#include <string>

namespace lsm {

/// Records `path` as an input of this process. Names that are not local files
/// (GDAL's "/vsi..." paths, "NETCDF:..." subdatasets) are ignored: nothing
/// lsm writes can replace them. Thread-safe.
void protect_input_file(const std::string& path);

/// Throws lsm::Error(BadInput) "output 'OUT' is the input 'IN': lsm never
/// overwrites an input; choose another output name" when `output_path` is a
/// protected input (same device and inode), or the ".ovr" / ".aux.xml" / ".msk"
/// sidecar GDAL would read with it (only `lsm pyramid --overviews` writes the
/// input's .ovr, deliberately, through GDAL and not through this check).
void refuse_overwriting_input(const std::string& output_path);

}  // namespace lsm
