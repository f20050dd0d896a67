// denoiser.h: the library's front door. A FrameDenoiser filters whole frames
// with one backend, chosen at run time: CUDA kernels or the CPU reference,
// which give the same output (bit-exact for PI-PD and hybrid, see docs/PIPD.md).
//
// The element and the tools only talk to this interface and to frame.h.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "frame.h"
#include "settings.h"

namespace cdn {

// True when the library was compiled with CUDA kernels.
bool built_with_cuda();
// True when a CUDA device can be used now; otherwise `why` (if given) says why not.
bool cuda_available(std::string* why = nullptr);
// CUDA devices this process can use (0 without CUDA).
int cuda_device_count();
// Auto resolves to Cuda when cuda_available(), else Cpu. Cuda without a device throws.
Backend resolve_backend(Backend requested);

class FrameDenoiser {
 public:
  virtual ~FrameDenoiser() = default;

  // CUDA backends bind to the CUDA context current on the calling thread (the
  // element pushes its GstCudaContext first; tools use the device's primary
  // context). Throws InvalidArgument for bad settings, Error for CUDA failures.
  static std::unique_ptr<FrameDenoiser> create(Backend backend, const DenoiseSettings& settings);

  virtual Backend backend() const = 0;
  virtual const DenoiseSettings& settings() const = 0;
  // Takes effect from the next frame. Throws InvalidArgument (and keeps the old settings).
  virtual void set_settings(const DenoiseSettings& settings) = 0;

  // Filters `in` into `out`: same format and size, distinct memory. Planes not
  // selected by settings().planes are copied. The CPU backend takes host frames;
  // the CUDA backend takes device frames (zero-copy) or host frames (uploaded and
  // downloaded through its frame pool). `stream` is a cudaStream_t (nullptr: the
  // denoiser's own stream). Returns when `out` is complete (synchronous).
  virtual void process(const FrameView& in, const FrameView& out, void* stream = nullptr) = 0;

  // Like process(), but for device frames on the CUDA backend it returns as soon
  // as the work is queued on `stream`: the caller synchronizes (or queues more
  // work behind it). On the CPU backend and for host frames it is process().
  virtual void enqueue(const FrameView& in, const FrameView& out, void* stream) { process(in, out, stream); }

  // A flag that another thread may set to abandon the frame in progress: process()
  // then throws Cancelled and the output frame is incomplete. The slow mode checks
  // it often (bm3d: between rows of reference patches on the CPU, between batches
  // and phases on the GPU); the others finish their frame. nullptr: none.
  void set_cancel_flag(const std::atomic<bool>* flag) { cancel_ = flag; }

 protected:
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace cdn
