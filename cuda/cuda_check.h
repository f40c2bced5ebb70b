#pragma once
// Every CUDA runtime call of lsm goes through LSM_CUDA_CHECK, which turns a
// failure into lsm::Error(ErrorKind::Device) naming the call and the place.
#include <cuda_runtime.h>

#include <string>

#include "error.h"

namespace lsm {
[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  throw Error(ErrorKind::Device, std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                                     ") in " + call + " at " + file + ":" + std::to_string(line));
}
}  // namespace lsm

#define LSM_CUDA_CHECK(call)                                                         \
  do {                                                                               \
    const cudaError_t lsm_cuda_status_ = (call);                                     \
    if (lsm_cuda_status_ != cudaSuccess)                                             \
      ::lsm::throw_cuda_error(lsm_cuda_status_, #call, __FILE__, __LINE__);          \
  } while (0)

/// Checks the launch of the kernel just enqueued (configuration errors).
#define LSM_CUDA_CHECK_LAUNCH() LSM_CUDA_CHECK(cudaGetLastError())
