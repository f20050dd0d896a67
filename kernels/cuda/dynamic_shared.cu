// dynamic_shared.cu: allow_dynamic_shared (dynamic_shared.h).
#include "cuda/dynamic_shared.h"

#include <cuda_runtime.h>

#include <mutex>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

bool allows(const void* kernel, std::size_t bytes) {
  cudaFuncAttributes now{};
  CDN_CUDA_CHECK(cudaFuncGetAttributes(&now, kernel));
  return static_cast<std::size_t>(now.maxDynamicSharedSizeBytes) >= bytes;
}

}  // namespace

void allow_dynamic_shared(const void* kernel, std::size_t bytes) {
  // Every launch asks; almost every one finds the limit high enough already,
  // and answers without the lock: the limit only ever grows (below), so a
  // limit read as high enough stays so. No lock shared by every pipeline of
  // the process on the hot path (issue 36).
  if (allows(kernel, bytes)) return;
  // A raise: one lock for every kernel and context, so that the read and the
  // raise do not interleave with another thread's for the same kernel (which
  // could set a lower limit after ours).
  static std::mutex lock;
  std::lock_guard<std::mutex> hold(lock);
  if (allows(kernel, bytes)) return;
  CDN_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace cdn
