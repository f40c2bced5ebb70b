// Backend selection: the only place that knows whether this build has CUDA.
#include <string>
#include <vector>

#include "cell_neighbourhood.h"
#include "error.h"
#include "fuzzy_connectedness.h"
#include "gradient.h"
#include "hog.h"
#include "overviews.h"
#include "pyramid.h"
#include "kmeans_pass.h"
#include "split_tile_labeler.h"
#include "tile_labeler.h"
#include "window_count_pass.h"
#ifdef LSM_HAVE_CUDA
#include "cell_neighbourhood_cuda.h"
#include "fuzzy_cuda.h"
#include "gradient_pass_cuda.h"
#include "hog_pass_cuda.h"
#include "overview_pass_cuda.h"
#include "pyramid_pass_cuda.h"
#include "kmeans_pass_cuda.h"
#include "tile_labeler_cuda.h"
#include "window_counts_cuda.h"
#endif

namespace lsm {

Backend parse_backend(const std::string& text) {
  if (text == "auto") return Backend::Auto;
  if (text == "cpu") return Backend::Cpu;
  if (text == "cuda") return Backend::Cuda;
  throw Error(ErrorKind::BadInput, "unknown backend '" + text + "' (expected auto, cpu or cuda)");
}

bool cuda_available(std::string* why_not) {
#ifdef LSM_HAVE_CUDA
  return cuda_device_present(why_not);
#else
  if (why_not) *why_not = "lsm was built without CUDA";
  return false;
#endif
}

std::vector<int> gpus_of_host_rank(int gpu_count, int local_rank, int local_ranks) {
  if (!(local_ranks >= 1 && local_rank >= 0 && local_rank < local_ranks))
    throw Error(ErrorKind::Internal, "bad host rank " + std::to_string(local_rank) + " of " + std::to_string(local_ranks));
  std::vector<int> gpus;
  if (gpu_count <= 0) return gpus;
  if (local_ranks > gpu_count) return {local_rank % gpu_count};
  // Contiguous shares: neighbouring ordinals are usually one NVLink/PCIe switch.
  const int first = static_cast<int>(int64_t(local_rank) * gpu_count / local_ranks);
  const int end = static_cast<int>(int64_t(local_rank + 1) * gpu_count / local_ranks);
  for (int d = first; d < end; ++d) gpus.push_back(d);
  return gpus;
}

namespace {

// Which of the host's processes this is (docs/SCALING.md, one rank per GPU);
// one alone unless the MPI start says otherwise.
struct HostRank {
  int local_rank = 0, local_ranks = 1;
};
HostRank& host_rank() {
  static HostRank rank;
  return rank;
}

}  // namespace

void use_gpu_share_of_host_rank(int local_rank, int local_ranks) {
  gpus_of_host_rank(1, local_rank, local_ranks);  // refuses a bad rank
  host_rank() = HostRank{local_rank, local_ranks};
}

std::vector<int> gpus_of_this_process() {
#ifdef LSM_HAVE_CUDA
  return gpus_of_host_rank(cuda_device_count(), host_rank().local_rank, host_rank().local_ranks);
#else
  return {};
#endif
}

std::unique_ptr<TileLabeler> make_labeler(Backend backend) {
  std::string why;
  switch (backend) {
    case Backend::Cpu:
      return make_cpu_labeler();
    case Backend::Auto:
      return cuda_available() ? make_labeler(Backend::Cuda) : make_cpu_labeler();
    case Backend::Cuda:
      if (!cuda_available(&why)) throw Error(ErrorKind::Backend, "CUDA backend unavailable: " + why);
#ifdef LSM_HAVE_CUDA
      if (const std::vector<int> gpus = gpus_of_this_process(); gpus.size() > 1) {  // one worker per GPU
        std::vector<std::unique_ptr<TileLabeler>> workers;
        for (int d : gpus) workers.push_back(make_cuda_labeler(d));
        return std::make_unique<SplitTileLabeler>(std::move(workers));
      } else {
        return make_cuda_labeler(gpus.at(0));
      }
#endif
      break;
  }
  throw Error(ErrorKind::Internal, "unhandled backend");
}

std::unique_ptr<NeighbourhoodCounter> make_neighbourhood_counter(Backend backend) {
  std::string why;
  switch (backend) {
    case Backend::Cpu:
      return make_cpu_neighbourhood_counter();
    case Backend::Auto:
      return cuda_available() ? make_neighbourhood_counter(Backend::Cuda) : make_cpu_neighbourhood_counter();
    case Backend::Cuda:
      if (!cuda_available(&why)) throw Error(ErrorKind::Backend, "CUDA backend unavailable: " + why);
#ifdef LSM_HAVE_CUDA
      return make_cuda_neighbourhood_counter(gpus_of_this_process().at(0));
#endif
      break;
  }
  throw Error(ErrorKind::Internal, "unhandled backend");
}

// The image operations' passes: the CPU reference, or the CUDA pass where
// this build and the machine have CUDA.
template <class Pass>
std::unique_ptr<Pass> select_pass(Backend backend, std::unique_ptr<Pass> (*cpu)(), std::unique_ptr<Pass> (*cuda)(int)) {
  std::string why;
  switch (backend) {
    case Backend::Cpu:
      return cpu();
    case Backend::Auto:
      return cuda && cuda_available() ? cuda(gpus_of_this_process().at(0)) : cpu();
    case Backend::Cuda:
      if (!cuda_available(&why)) throw Error(ErrorKind::Backend, "CUDA backend unavailable: " + why);
      if (cuda) return cuda(gpus_of_this_process().at(0));
      break;
  }
  throw Error(ErrorKind::Internal, "unhandled backend");
}

#ifdef LSM_HAVE_CUDA
#define LSM_CUDA_PASS(factory) &factory
#else
#define LSM_CUDA_PASS(factory) nullptr
#endif

std::unique_ptr<KMeansPass> make_kmeans_pass(Backend backend) {
  return select_pass<KMeansPass>(backend, &make_cpu_kmeans_pass, LSM_CUDA_PASS(make_cuda_kmeans_pass));
}

std::unique_ptr<GradientPass> make_gradient_pass(Backend backend) {
  return select_pass<GradientPass>(backend, &make_cpu_gradient_pass, LSM_CUDA_PASS(make_cuda_gradient_pass));
}

std::unique_ptr<HogPass> make_hog_pass(Backend backend) {
  return select_pass<HogPass>(backend, &make_cpu_hog_pass, LSM_CUDA_PASS(make_cuda_hog_pass));
}

#ifdef LSM_HAVE_CUDA
static std::unique_ptr<FuzzyEngine> make_cuda_fuzzy_engine_on(int device) { return make_cuda_fuzzy_engine(device); }
#endif

std::unique_ptr<FuzzyEngine> make_fuzzy_engine(Backend backend) {
  return select_pass<FuzzyEngine>(backend, &make_cpu_fuzzy_engine, LSM_CUDA_PASS(make_cuda_fuzzy_engine_on));
}

std::unique_ptr<OverviewPass> make_overview_pass(Backend backend) {
  return select_pass<OverviewPass>(backend, &make_cpu_overview_pass, LSM_CUDA_PASS(make_cuda_overview_pass));
}

std::unique_ptr<PyramidPass> make_pyramid_pass(Backend backend) {
  return select_pass<PyramidPass>(backend, &make_cpu_pyramid_pass, LSM_CUDA_PASS(make_cuda_pyramid_pass));
}

std::unique_ptr<WindowCountPass> make_window_count_pass(Backend backend) {
  std::string why;
  switch (backend) {
    case Backend::Cpu:
      return nullptr;
    case Backend::Auto:
      return cuda_available() ? make_window_count_pass(Backend::Cuda) : nullptr;
    case Backend::Cuda:
      if (!cuda_available(&why)) throw Error(ErrorKind::Backend, "CUDA backend unavailable: " + why);
#ifdef LSM_HAVE_CUDA
      return make_cuda_window_count_pass(gpus_of_this_process());
#endif
      break;
  }
  throw Error(ErrorKind::Internal, "unhandled backend");
}

std::unique_ptr<NeighbourhoodCounter> second_pass_counter(const TileLabeler& labeler) {
  if (labeler.backend() == Backend::Cuda) return make_neighbourhood_counter(Backend::Cuda);
  return nullptr;
}

}  // namespace lsm
