// dynamic_shared.cu: allow_dynamic_shared (dynamic_shared.h).
#include "cuda/dynamic_shared.h"

#include <cuda_runtime.h>

#include <mutex>

#include "cudadenoise/error.h"

namespace cdn {

void allow_dynamic_shared(const void* kernel, std::size_t bytes) {
  // One lock for every kernel and context: the read and the raise must not
  // interleave with another thread's for the same kernel, and a launch is far
  // longer than the two calls.
  static std::mutex lock;
  std::lock_guard<std::mutex> hold(lock);
  cudaFuncAttributes now{};
  CDN_CUDA_CHECK(cudaFuncGetAttributes(&now, kernel));
  if (static_cast<std::size_t>(now.maxDynamicSharedSizeBytes) >= bytes) return;
  CDN_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace cdn
