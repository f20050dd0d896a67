// cuda_util.cu: CUDA availability checks for backend selection (backend.h).
#include <cuda_runtime.h>

#include <string>

#include "cudadenoise/backend.h"

namespace cdn {

bool built_with_cuda() { return true; }

bool cuda_available(std::string* why) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    // No GPU at all shows as either of the first two, depending on whether a driver is installed.
    if (why)
      *why = rc == cudaErrorNoDevice ? std::string("no CUDA device found")
             : rc == cudaErrorInsufficientDriver
                 ? std::string("no CUDA device found (no NVIDIA driver, or one older than this build's CUDA runtime)")
                 : std::string("no usable CUDA device: ") + cudaGetErrorString(rc);
    cudaGetLastError();  // clear the error so later calls start clean
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device found";
    return false;
  }
  return true;
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace cdn
