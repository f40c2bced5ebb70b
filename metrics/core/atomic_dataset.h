#pragma once
// A dataset of one or more files (a raster and GDAL's side files: .aux.xml,
// ENVI's .hdr, a world file; a GeoPackage's journal) that appear at their
// final names only when complete. The dataset is written under its final
// file name inside a staging folder beside it, FINAL.lsm-tmp-PID.d, so every
// side file a driver derives from that name lands there too; commit() moves
// each file into the final folder, the named file last. Destroyed without
// commit() (an error, a cancelled run) the staging folder and all in it are
// removed; a signal removes it too (remove_temporary_outputs_now()).
#include <string>

namespace lsm {

class AtomicDatasetOutput {
 public:
  /// Creates the staging folder at once, so an unwritable destination fails
  /// before any work is done. Throws lsm::Error(Io) "cannot write 'FINAL':
  /// reason", or lsm::Error(BadInput) when `final_path` is an input of this
  /// process (protected_inputs.h).
  explicit AtomicDatasetOutput(std::string final_path);
  ~AtomicDatasetOutput();
  AtomicDatasetOutput(const AtomicDatasetOutput&) = delete;
  AtomicDatasetOutput& operator=(const AtomicDatasetOutput&) = delete;

  const std::string& final_path() const { return final_; }
  /// Where the dataset is written until commit(): the final file name inside the staging folder.
  std::string temp_path() const;
  /// Moves every file of the staging folder into the final folder (replacing
  /// files of the same names), the dataset's named file last, and removes
  /// the folder. Close the dataset first. Throws lsm::Error(Io).
  void commit();

 private:
  std::string final_, folder_, name_;
  bool done_ = false;
  int slot_ = -1;  // in the registry of remove_temporary_outputs_now()
};

}  // namespace lsm
