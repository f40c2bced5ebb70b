#pragma once
// FRAGSTATS batch files (.fbt; FRAGSTATS 4.2 help, "Selecting input layers",
// Import batch) and plain lists of rasters: the landscapes of one batch run.
// A FRAGSTATS line is "InputFileName, CellSize, Background, Rows, Columns,
// BandNumber, NoData, InputDataType" (FRAGSTATS 4; FRAGSTATS 3's six fields,
// without band and nodata, are read too); "x" or an empty field means "as the
// raster says". A line of one field is a path alone (a list of rasters).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lsm {

/// One landscape of a batch.
struct BatchLandscape {
  std::string path;                    ///< relative paths resolved against the batch file's folder
  std::optional<double> cell_size;     ///< metres: checked against the raster's
  std::optional<int32_t> background;   ///< the landscape's background class (FRAGSTATS' Background)
  std::optional<int64_t> rows, columns;  ///< checked against the raster's
  std::optional<int> band;             ///< 1-based band to read
  std::optional<double> nodata;        ///< the nodata value, where the file gives one
  std::string batch_file;              ///< the batch file it comes from ("" = given directly)
  int line = 0;                        ///< line in the batch file, for messages
};

/// Runs `open` (which opens or checks the landscape's raster); an lsm::Error
/// it throws for a landscape of a batch file is thrown again with the file
/// and line in front, and what the file was read as ("FILE:LINE: ... (FILE
/// is read as a batch file: ...)"): a .txt given as a raster otherwise fails
/// with no word of the list it was taken for.
void with_batch_line(const BatchLandscape& landscape, const std::function<void()>& open);

/// True for the names read as batch files: .fbt (FRAGSTATS) and .txt or
/// .lst (one raster per line), any case.
bool is_batch_file(const std::string& path);

/// Reads a batch file (at most 1 MiB; a protected input). Blank lines and
/// lines starting with '#' are skipped; the data type field is not used (GDAL
/// reads the format). Throws lsm::Error(BadInput) naming the file and line:
/// a line of 2 to 5 or more than 8 fields, a number that is not one, a band
/// below 1, no landscape at all.
std::vector<BatchLandscape> read_batch_file(const std::string& path);

}  // namespace lsm
