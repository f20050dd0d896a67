// cuda_device_scope.cu: DeviceScope (cuda_device_scope.h). The runtime API has no
// context handles, so the caller's context is saved and restored through the
// driver's cuCtxGetCurrent / cuCtxSetCurrent, found with the runtime's entry-point
// query (no link against libcuda).
#include "cuda/cuda_device_scope.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

using CtxGet = CUresult(CUDAAPI*)(CUcontext*);
using CtxSet = CUresult(CUDAAPI*)(CUcontext);

template <typename F>
F driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  CDN_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || !fn) throw Error(std::string("CUDA driver lacks ") + name);
  return reinterpret_cast<F>(fn);
}

struct CtxFunctions {
  CtxGet get = driver_entry<CtxGet>("cuCtxGetCurrent");
  CtxSet set = driver_entry<CtxSet>("cuCtxSetCurrent");
};

const CtxFunctions& ctx_functions() {
  static const CtxFunctions f;
  return f;
}

}  // namespace

int current_cuda_device() {
  int d = 0;
  CDN_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void* current_cuda_context() {
  CUcontext ctx = nullptr;
  if (ctx_functions().get(&ctx) != CUDA_SUCCESS) throw Error("cuCtxGetCurrent failed");
  return ctx;
}

void set_current_cuda_context(void* context) {
  if (ctx_functions().set(static_cast<CUcontext>(context)) != CUDA_SUCCESS) throw Error("cuCtxSetCurrent failed");
}

DeviceScope::DeviceScope(int device) {
  if (device == current_cuda_device()) return;
  CUcontext ctx = nullptr;
  if (ctx_functions().get(&ctx) != CUDA_SUCCESS) throw Error("cuCtxGetCurrent failed");
  saved_ = ctx;
  CDN_CUDA_CHECK(cudaSetDevice(device));
  switched_ = true;
}

DeviceScope::~DeviceScope() {
  if (!switched_) return;
  // The functions were found by the constructor; nothing to report to from a destructor.
  ctx_functions().set(static_cast<CUcontext>(saved_));
}

}  // namespace cdn
