// gpu_info.cpp: device 0's description (gpu_info.h).
#include "gpu_info.h"

#include "cudadenoise/backend.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace cdn::eval {

GpuInfo query_gpu() {
  GpuInfo g;
  if (!cuda_available(&g.why)) return g;
#ifdef CDN_HAVE_CUDA
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    g.why = "cudaGetDeviceProperties failed";
    return g;
  }
  g.available = true;
  g.name = p.name;
  g.sms = p.multiProcessorCount;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  g.memory_gib = p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
  cudaDriverGetVersion(&g.driver_version);
  cudaRuntimeGetVersion(&g.runtime_version);
#endif
  return g;
}

}  // namespace cdn::eval
