#include "huge_page_start.h"

#include <cpl_error.h>
#include <gdal.h>

#include <cstdlib>
#include <string>

#include "huge_page_malloc.h"

namespace lsm::cli {

namespace {

char** program_arguments = nullptr;

bool under_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
    if (std::getenv(name)) return true;
  return false;
}

}  // namespace

void start_on_huge_pages(int argc, char** argv) {
  program_arguments = argv;
  if ((argc > 1 && std::string(argv[1]) == "serve") || under_mpi_launcher()) restart_with_huge_page_malloc(argv);
}

void restart_for_large_inputs(const ops::ParameterValues& values) {
  if (!program_arguments || under_mpi_launcher()) return;
  int64_t cells = 0;
  CPLPushErrorHandler(CPLQuietErrorHandler);  // a failure here is the run's to report, with its reason
  for (const ops::ParameterSpec& p : values.spec().parameters) {
    if (p.role != ops::ParameterRole::InputRaster || !values.given(p.name)) continue;
    for (const std::string& path : values.texts(p.name)) {
      GDALDatasetH dataset = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
      if (!dataset) continue;  // the run says why
      cells += static_cast<int64_t>(GDALGetRasterXSize(dataset)) * GDALGetRasterYSize(dataset);
      GDALClose(dataset);
    }
  }
  const bool restart = cells >= kLargeInputCells && wants_huge_page_restart(this_process_setting());
  if (restart)  // said under the quiet handler, which passes debug messages on (--debug ON)
    CPLDebug("LSM", "%lld input cells: restarting with glibc's malloc on huge pages", static_cast<long long>(cells));
  CPLPopErrorHandler();
  CPLErrorReset();
  if (restart) restart_with_huge_page_malloc(program_arguments);
}

}  // namespace lsm::cli
