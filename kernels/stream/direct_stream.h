// direct_stream.h: the stream of a mode that filters each frame on its own (its
// window is {0, 0}: window_filter.h). process() hands the caller's input and
// output frames straight to the mode's filter (device frames stay where they
// are: zero-copy); push() filters into a frame of the stream's own that pop()
// copies out, for callers without their output frame at hand. Backends: the
// CPU (host frames; direct_stream.cpp) and CUDA (device frames straight, host
// frames staged through two frames of a pool; cuda_direct_stream.cu). Internal
// to kernels/: callers use StreamDenoiser.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "stream/frame_stream.h"
#include "stream/window_filter.h"

namespace cdn {

class DirectStream : public FrameStream {
 public:
  DirectStream(const DenoiseSettings& settings, PixelFormat format, int width, int height);
  ~DirectStream() override;

  // New settings of a per-frame mode, from the next frame (a new filter).
  void set_settings(const DenoiseSettings& settings);

  // Filters `in` into `out` (the stream's format and size, distinct memory; planes
  // the settings do not filter are copied) and returns when `out` is complete.
  // `stream`: a cudaStream_t to order the work after (nullptr: the stream's own).
  void process(const FrameView& in, const FrameView& out, void* stream);
  // Like process(), but device frames on the CUDA backend are only queued on
  // `stream`: the caller synchronizes before reading `out`.
  virtual void enqueue(const FrameView& in, const FrameView& out, void* stream) { process(in, out, stream); }

  int latency_frames() const override { return 0; }
  bool ready() const override { return !ready_.empty(); }
  int held() const override { return static_cast<int>(ready_.size()); }
  void push(const FrameView& in, void* stream) override;
  bool pop(const FrameView& out, void* stream) override;
  void finish() override {}
  void reset() override { ready_.clear(); }
  void set_noise(const std::vector<double>& sigma) override { noise_ = sigma; }
  void set_cancel_flag(const std::atomic<bool>* flag) override { cancel_ = flag; }

 protected:
  using Frame = std::shared_ptr<const FrameView>;
  // The mode's filter on this backend.
  virtual std::unique_ptr<WindowFilter> make_filter(const DenoiseSettings& settings) = 0;
  // Filters `in` into `out` (checked) with filter(); returns when `out` is complete.
  virtual void filter_frame(const FrameView& in, const FrameView& out, void* stream) = 0;
  // A frame of the stream's format and size in `memory`, the stream's own.
  virtual Frame new_frame(MemoryKind memory, void* stream) = 0;
  // Copies a whole frame, synchronously.
  virtual void copy_frame(const FrameView& from, const FrameView& to, void* stream) = 0;

  // The job for the filter: `in` into `out`, with the noise level (set_noise())
  // in the components' code values, the filtered components and the cancel flag.
  ChunkJob job(const FrameView& in, const FrameView& out) const;
  WindowFilter& filter();
  void check(const FrameView& in, const FrameView& out) const;

  DenoiseSettings settings_;
  PixelFormat format_;
  int width_, height_;

 private:
  std::unique_ptr<WindowFilter> filter_;  // made at the first frame (make_filter() is virtual)
  std::vector<double> noise_;
  const std::atomic<bool>* cancel_ = nullptr;
  std::deque<Frame> ready_;  // push()'s frames, oldest first
};

std::unique_ptr<DirectStream> make_cpu_direct_stream(const DenoiseSettings& s, PixelFormat f, int w, int h);
#ifdef CDN_HAVE_CUDA
// Binds to the CUDA context current on the calling thread.
std::unique_ptr<DirectStream> make_cuda_direct_stream(const DenoiseSettings& s, PixelFormat f, int w, int h);
#endif

}  // namespace cdn
