// cuda_direct_stream.cu: DirectStream's CUDA backend (direct_stream.h): the
// mode's CUDA filter on the caller's stream. Device frames are filtered where
// they are (zero-copy); host frames are staged through two frames of a
// CudaFramePool (upload, filter, download).
#include <cuda_runtime.h>

#include <memory>

#include "core/plane_copy.h"
#include "cuda/cuda_device_scope.h"  // current_cuda_device
#include "cuda/host_wait.h"
#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "stream/direct_stream.h"

namespace cdn {

namespace {

class CudaDirectStream final : public DirectStream {
 public:
  CudaDirectStream(const DenoiseSettings& s, PixelFormat f, int w, int h) : DirectStream(s, f, w, h) {
    CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking));
  }
  ~CudaDirectStream() override {
    reset();
    staging_in_.reset();
    staging_out_.reset();
    pool_.reset();
    held_.reset();
    if (own_stream_) cudaStreamDestroy(own_stream_);
  }
  Backend backend() const override { return Backend::Cuda; }

  void enqueue(const FrameView& in, const FrameView& out, void* stream) override {
    if (in.memory != MemoryKind::Device || out.memory != MemoryKind::Device) return process(in, out, stream);
    check(in, out);
    filter_device(in, out, on(stream));
  }

 protected:
  std::unique_ptr<WindowFilter> make_filter(const DenoiseSettings& s) override {
    return make_cuda_window_filter(s, format_, current_cuda_device());
  }

  void filter_frame(const FrameView& in, const FrameView& out, void* stream_ptr) override {
    const cudaStream_t stream = on(stream_ptr);
    if (in.memory == MemoryKind::Device && out.memory == MemoryKind::Device) {
      filter_device(in, out, stream);
    } else {
      // Staging: frames of our pool, kept for the next call.
      ensure_staging();
      const FrameView& din = in.memory == MemoryKind::Device ? in : staging_in_->view();
      const FrameView& dout = out.memory == MemoryKind::Device ? out : staging_out_->view();
      if (in.memory == MemoryKind::Host) copy_frame_async(in, din, stream);
      filter_device(din, dout, stream);
      if (out.memory == MemoryKind::Host) copy_frame_async(dout, out, stream);
    }
    wait_for_stream(stream);
  }

  Frame new_frame(MemoryKind memory, void*) override {
    if (memory == MemoryKind::Host) {
      auto frame = std::make_shared<HostFrame>(format_, width_, height_);
      return Frame(frame, &frame->view());
    }
    // Frames a caller has pushed and not yet popped: two at most (pop after each push).
    if (!held_) held_ = std::make_unique<CudaFramePool>(format_, width_, height_, 2);
    auto frame = held_->try_acquire(own_stream_);
    if (!frame) throw InvalidArgument("per-frame stream: pop() every ready frame after each push()");
    return Frame(frame, &frame->view());
  }
  void copy_frame(const FrameView& from, const FrameView& to, void* stream_ptr) override {
    check_same_geometry(from, to);
    const cudaStream_t stream = on(stream_ptr);
    copy_frame_async(from, to, stream);
    wait_for_stream(stream);
  }

 private:
  cudaStream_t on(void* stream) const { return stream ? static_cast<cudaStream_t>(stream) : own_stream_; }

  void filter_device(const FrameView& in, const FrameView& out, cudaStream_t stream) {
    for (int p = 0; p < format_info(in.format).planes; ++p)
      if (!plane_is_filtered(settings_.planes, p)) copy_plane_async(in, out, p, stream);
    filter().run(job(in, out), stream);
  }

  void ensure_staging() {
    if (pool_) return;
    pool_ = std::make_unique<CudaFramePool>(format_, width_, height_, 2);
    staging_in_ = pool_->acquire(own_stream_);
    staging_out_ = pool_->acquire(own_stream_);
  }

  cudaStream_t own_stream_ = nullptr;
  std::unique_ptr<CudaFramePool> pool_;
  CudaFramePool::Handle staging_in_, staging_out_;
  std::unique_ptr<CudaFramePool> held_;  // new_frame()'s device frames
};

}  // namespace

std::unique_ptr<DirectStream> make_cuda_direct_stream(const DenoiseSettings& s, PixelFormat f, int w, int h) {
  return std::make_unique<CudaDirectStream>(s, f, w, h);
}

}  // namespace cdn
