// gpu_device.h: the one CUDA device everything on the GPU path shares: NVDEC,
// our denoiser, our output frame pool and NVENC.
//
// FFmpeg's CUDA device is created first, on the device's primary context
// (AV_CUDA_USE_PRIMARY_CONTEXT): FFmpeg sets the primary context's flags
// (blocking sync) and refuses to if it is already active with others, so no
// CUDA runtime call may come before it. The runtime then uses the same primary
// context by itself after cudaSetDevice(N): no cuCtxPushCurrent/PopCurrent and
// no link to libcuda (FFmpeg loads the driver with dlopen). We check that the
// runtime's current context is FFmpeg's, create one blocking stream and hand it
// to FFmpeg (AVCUDADeviceContext.stream) before any codec opens, so NVDEC's
// frame mapping, our kernels, NVENC and av_hwframe_transfer_data are ordered
// on one stream.
#pragma once

#include <memory>
#include <string>

#include "av_ptr.h"

namespace cdn::transcode {

class GpuDevice {
 public:
  // nullptr (and *why) when there is no usable device: no driver, no device
  // `index`, a build without CUDA. Throws Failure(kExitGpu) when the device
  // opens but CUDA then fails.
  static std::unique_ptr<GpuDevice> open(int index, std::string* why);
  ~GpuDevice();
  GpuDevice(const GpuDevice&) = delete;
  GpuDevice& operator=(const GpuDevice&) = delete;

  // The AVHWDeviceContext (AV_HWDEVICE_TYPE_CUDA) for codecs and frame pools.
  AVBufferRef* device() const { return device_.get(); }
  // The cudaStream_t the device context uses; pass it to the StreamDenoiser.
  void* stream() const { return stream_; }
  int index() const { return index_; }
  // Waits for everything queued on stream(). Throws Failure(kExitGpu).
  void synchronize() const;
  const std::string& name() const { return name_; }

 private:
  GpuDevice() = default;
  BufferPtr device_;
  void* stream_ = nullptr;
  int index_ = 0;
  std::string name_;
};

}  // namespace cdn::transcode
