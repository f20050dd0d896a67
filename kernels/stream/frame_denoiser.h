// frame_denoiser.h: one frame in, one frame out, on one backend: what the
// per-frame modes (pipd, hybrid, bm3d) run under StreamDenoiser
// (stream_denoiser.h). Internal to kernels/: callers use StreamDenoiser.
// Backends: CpuDenoiser (cpu_denoiser.cpp, the references) and CudaDenoiser
// (cuda_denoiser.cu, the kernels), which give the same output.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"

namespace cdn {

class FrameDenoiser {
 public:
  virtual ~FrameDenoiser() = default;

  virtual Backend backend() const = 0;
  virtual const DenoiseSettings& settings() const = 0;
  // A per-frame mode's settings, from the next frame. Throws InvalidArgument (and keeps the old ones).
  virtual void set_settings(const DenoiseSettings& settings) = 0;

  // Filters `in` into `out`: same format and size, distinct memory. Planes not
  // selected by settings().planes are copied. The CPU backend takes host frames;
  // the CUDA backend takes device frames (zero-copy) or host frames (uploaded and
  // downloaded through its frame pool). `stream` is a cudaStream_t (nullptr: the
  // denoiser's own stream). Returns when `out` is complete (synchronous).
  virtual void process(const FrameView& in, const FrameView& out, void* stream) = 0;
  // Like process(), but for device frames on the CUDA backend it returns as soon
  // as the work is queued on `stream`. On the CPU backend and for host frames it is process().
  virtual void enqueue(const FrameView& in, const FrameView& out, void* stream) { process(in, out, stream); }

  // A frame of this format and size in `memory` (Device: on the CUDA backend
  // only), the denoiser's own until the pointer goes; copy_frame() copies between
  // any two frames the backend can reach, synchronously.
  virtual std::shared_ptr<const FrameView> new_frame(PixelFormat f, int width, int height, MemoryKind memory) = 0;
  virtual void copy_frame(const FrameView& from, const FrameView& to, void* stream) = 0;

  // A flag that another thread may set to abandon the frame in progress: process()
  // then throws Cancelled and the output frame is incomplete. The slow mode checks
  // it often (bm3d: between rows of reference patches on the CPU, between batches
  // and phases on the GPU); the others finish their frame. nullptr: none.
  void set_cancel_flag(const std::atomic<bool>* flag) { cancel_ = flag; }

  // The noise std per component (8-bit code values) for the frames from the next
  // one on, as the stream measured it (StreamDenoiser: strength x the given or
  // tracked sigma). Empty (the default): settings().sigma, or when it is auto the
  // first frame's estimate (FirstFrameSigma).
  void set_noise(const std::vector<double>& sigma) { noise_ = sigma; }

 protected:
  const std::atomic<bool>* cancel_ = nullptr;
  std::vector<double> noise_;
};

// Backend Cpu or Cuda (resolved). Throws InvalidArgument for bad settings or a
// temporal mode, Error for CUDA failures. CUDA binds to the context current on
// the calling thread.
std::unique_ptr<FrameDenoiser> make_frame_denoiser(Backend backend, const DenoiseSettings& settings);
std::unique_ptr<FrameDenoiser> make_cpu_denoiser(const DenoiseSettings& settings);
#ifdef CDN_HAVE_CUDA
std::unique_ptr<FrameDenoiser> make_cuda_denoiser(const DenoiseSettings& settings);
#endif

}  // namespace cdn
