// gpu_device.cpp: FFmpeg's CUDA device and the CUDA runtime on one primary
// context (gpu_device.h). Without CUDA in the build there is never a device.
#include "gpu_device.h"

#include "cudadenoise/backend.h"
#include "errors.h"

#ifdef CDN_HAVE_CUDA
#include <cuda.h>  // CUcontext, CUstream for hwcontext_cuda.h (types only: no libcuda link)
#include <cuda_runtime.h>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
}
#endif

namespace cdn::transcode {

#ifndef CDN_HAVE_CUDA

std::unique_ptr<GpuDevice> GpuDevice::open(int, std::string* why) {
  cuda_available(why);  // "no CUDA device (cudadenoise was built without CUDA)"
  return nullptr;
}

GpuDevice::~GpuDevice() = default;

void GpuDevice::synchronize() const {}

#else

namespace {

void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw Failure(kExitGpu, std::string(what) + " failed: " + cudaGetErrorString(rc));
}

// The driver's cuCtxGetCurrent through the runtime, so we need not link libcuda.
CUcontext runtime_current_context() {
  using Fn = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || !fn)
    return nullptr;
  CUcontext ctx = nullptr;
  return reinterpret_cast<Fn>(fn)(&ctx) == CUDA_SUCCESS ? ctx : nullptr;
}

}  // namespace

std::unique_ptr<GpuDevice> GpuDevice::open(int index, std::string* why) {
  // 0. No device at all: the library's words for it (the element's and the image tool's too).
  if (!cuda_available(why)) return nullptr;
  // 1. FFmpeg first: it fixes the primary context's flags.
  AVBufferRef* dev = nullptr;
  const std::string name = std::to_string(index);
  const int rc = av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_CUDA, name.c_str(), nullptr,
                                        AV_CUDA_USE_PRIMARY_CONTEXT);
  if (rc < 0) {
    if (why) *why = "cannot open CUDA device " + name + ": " + av_error(rc);
    return nullptr;
  }
  std::unique_ptr<GpuDevice> gpu(new GpuDevice);
  gpu->device_.reset(dev);
  gpu->index_ = index;

  // 2. The runtime on the same (primary) context.
  check(cudaSetDevice(index), "cudaSetDevice");
  check(cudaFree(nullptr), "CUDA runtime initialisation");
  auto* hw = reinterpret_cast<AVHWDeviceContext*>(dev->data);
  auto* cu = static_cast<AVCUDADeviceContext*>(hw->hwctx);
  const CUcontext current = runtime_current_context();
  if (current && current != cu->cuda_ctx)  // null: this driver cannot tell; trust the primary context
    throw Failure(kExitGpu, "the CUDA runtime is not on FFmpeg's context for device " + name +
                                " (another primary context is active)");
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) == cudaSuccess) gpu->name_ = prop.name;

  // 3. One blocking stream for NVDEC, the kernels, NVENC and transfers.
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamDefault), "cudaStreamCreate");
  gpu->stream_ = stream;
  cu->stream = reinterpret_cast<CUstream>(stream);
  return gpu;
}

void GpuDevice::synchronize() const {
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "cudaStreamSynchronize");
}

GpuDevice::~GpuDevice() {
  if (!stream_) return;
  // Codecs and frame pools that still hold the device must not use a dead stream.
  auto* hw = reinterpret_cast<AVHWDeviceContext*>(device_->data);
  static_cast<AVCUDADeviceContext*>(hw->hwctx)->stream = nullptr;
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

#endif

}  // namespace cdn::transcode
