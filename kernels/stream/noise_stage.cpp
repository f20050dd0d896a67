// noise_stage.cpp: the variance-stabilising stage's frames and transforms (noise_stage.h).
#include "stream/noise_stage.h"

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/host_wait.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace cdn {

// One frame of the stage: host memory, or a device frame of a pool of one. A
// device frame used on a new CUDA stream waits for the work of the old one first.
struct NoiseStage::Scratch {
  std::unique_ptr<HostFrame> host;
#ifdef CDN_HAVE_CUDA
  std::unique_ptr<CudaFramePool> pool;
  CudaFramePool::Handle device;
  void* last_stream = nullptr;
#endif
  FrameView view;
};

NoiseStage::NoiseStage(PixelFormat format, int width, int height) : format_(format), width_(width), height_(height) {}

NoiseStage::~NoiseStage() {
#ifdef CDN_HAVE_CUDA
  // Queued lookups may still read or write the device frames.
  for (auto& which : scratch_)
    if (which[1] && which[1]->device) cudaStreamSynchronize(static_cast<cudaStream_t>(which[1]->last_stream));
  for (auto& which : scratch_)
    for (auto& s : which) s.reset();  // device frames go back on their stream, before it goes
  if (own_stream_) cudaStreamDestroy(static_cast<cudaStream_t>(own_stream_));
#endif
}

void* NoiseStage::stream_for(void* stream) {
  if (stream) return stream;
#ifdef CDN_HAVE_CUDA
  if (!own_stream_) {
    cudaStream_t s = nullptr;
    CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    own_stream_ = s;
  }
#endif
  return own_stream_;
}

void NoiseStage::wait(void* stream) {
#ifdef CDN_HAVE_CUDA
  wait_for_stream(static_cast<cudaStream_t>(stream));
#else
  (void)stream;
#endif
}

NoiseStage::Scratch& NoiseStage::scratch(int which, MemoryKind memory, void* stream) {
  const int m = memory == MemoryKind::Host ? 0 : 1;
  std::unique_ptr<Scratch>& s = scratch_[which][m];
  if (!s) s = std::make_unique<Scratch>();
  if (memory == MemoryKind::Host) {
    if (!s->host) {
      s->host = std::make_unique<HostFrame>(format_, width_, height_);
      s->view = s->host->view();
    }
    return *s;
  }
#ifdef CDN_HAVE_CUDA
  if (!s->device) {
    s->pool = std::make_unique<CudaFramePool>(format_, width_, height_, 1);
    s->device = s->pool->acquire(stream);
    s->view = s->device->view();
  } else if (s->last_stream != stream) {
    wait_for_stream(static_cast<cudaStream_t>(s->last_stream));
  }
  s->last_stream = stream;
  s->device->set_stream(stream);
  return *s;
#else
  (void)stream;
  throw Error("noise stage: frames in device memory need a build with CUDA");
#endif
}

const FrameView& NoiseStage::forward(const StabilizingTables& tables, const FrameView& in, void* stream) {
  const FrameView& to = scratch(0, in.memory, stream).view;
  if (in.memory == MemoryKind::Host)
    tables.forward_host(in, to);
  else
    tables.forward_device(in, to, stream);
  return to;
}

const FrameView& NoiseStage::filtered(MemoryKind memory, void* stream) { return scratch(1, memory, stream).view; }

void NoiseStage::inverse(const StabilizingTables& tables, const FrameView& out, void* stream) {
  const FrameView& from = scratch(1, out.memory, stream).view;
  if (out.memory == MemoryKind::Host)
    tables.inverse_host(from, out);
  else
    tables.inverse_device(from, out, stream);
}

}  // namespace cdn
