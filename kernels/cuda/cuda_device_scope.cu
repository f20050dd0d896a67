// cuda_device_scope.cu: DeviceScope (cuda_device_scope.h). The runtime API has no
// context handles, so the caller's context is saved and restored through the
// driver's cuCtxGetCurrent / cuCtxSetCurrent, found with the runtime's entry-point
// query (no link against libcuda).
#include "cuda/cuda_device_scope.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

using CtxGet = CUresult(CUDAAPI*)(CUcontext*);
using CtxSet = CUresult(CUDAAPI*)(CUcontext);
using CtxEnablePeer = CUresult(CUDAAPI*)(CUcontext, unsigned int);

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
  CtxEnablePeer enable_peer = driver_entry<CtxEnablePeer>("cuCtxEnablePeerAccess");
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

namespace {

// The current context reaches `peer`'s memory from now on.
void enable_peer_context(CUcontext peer) {
  const CUresult rc = ctx_functions().enable_peer(peer, 0);
  if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    throw Error("cuCtxEnablePeerAccess failed: CUDA driver error " + std::to_string(static_cast<int>(rc)));
}

}  // namespace

void enable_peer_access_with(int device) {
  const int here = current_cuda_device();
  if (device == here) return;
  int here_reaches = 0, device_reaches = 0;
  CDN_CUDA_CHECK(cudaDeviceCanAccessPeer(&here_reaches, here, device));
  CDN_CUDA_CHECK(cudaDeviceCanAccessPeer(&device_reaches, device, here));
  const auto mine = static_cast<CUcontext>(current_cuda_context());
  CUcontext theirs = nullptr;
  {
    DeviceScope on(device);
    theirs = static_cast<CUcontext>(current_cuda_context());
    if (device_reaches) enable_peer_context(mine);
  }
  if (here_reaches) enable_peer_context(theirs);
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
