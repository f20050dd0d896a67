// temporal_stream.h: the StreamDenoiser of the temporal mode, one implementation
// of the window bookkeeping (ChunkScheduler) over backend hooks for memory and
// filtering: CpuTemporalStream (host frames, nlm3d_reference) and the CUDA one
// (device frames from a CudaFramePool, nlm3d_cuda).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "chunk_scheduler.h"
#include "stream_denoiser.h"

namespace cdn {

class TemporalStream : public StreamDenoiser {
 public:
  TemporalStream(const DenoiseSettings& settings, PixelFormat format, int width, int height);

  const DenoiseSettings& settings() const override { return settings_; }
  int latency_frames() const override { return sched_.latency_frames(); }
  int held() const override { return sched_.pushed_count() - popped_; }
  bool ready() const override {
    int b, e;
    return !outputs_.empty() || sched_.next_chunk(&b, &e);
  }
  void push(const FrameView& in, void* stream) override;
  bool pop(const FrameView& out, void* stream) override;
  void finish() override { sched_.finish(); }
  void reset() override;

 protected:
  // A frame owned by the backend (host or device), released when the pointer goes.
  using Frame = std::shared_ptr<const FrameView>;
  struct Chunk {
    int begin, end;                     // output frames [begin, end)
    int window_begin;                   // stream index of window[0]
    int stream_length;                  // frames that exist for clamping
    std::vector<Frame> window;          // input frames window_begin ..
    std::vector<Frame> outputs;         // one per output frame
    const double* sigma;                // per component, in its code values
  };
  virtual Frame new_frame(void* stream) = 0;
  virtual void copy_frame(const FrameView& from, const FrameView& to, void* stream) = 0;
  virtual void copy_plane(const FrameView& from, const FrameView& to, int plane, void* stream) = 0;
  // The noise of each component of the stream's first frame, in its code values.
  virtual std::vector<double> estimate_sigma(const FrameView& first, void* stream) = 0;
  // Filters component c of every output frame of the chunk.
  virtual void filter(const Chunk& chunk, int component, void* stream) = 0;
  virtual void synchronize(void* stream) = 0;

  DenoiseSettings settings_;
  PixelFormat format_;
  int width_, height_;

 private:
  ChunkScheduler sched_;
  std::deque<Frame> inputs_;   // stream frames first_input_ .. pushed - 1
  std::deque<Frame> outputs_;  // filtered frames popped_ .. computed - 1
  int first_input_ = 0;
  int popped_ = 0;
  std::vector<double> sigma_;
};

std::unique_ptr<StreamDenoiser> make_cpu_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h);
#ifdef CDN_HAVE_CUDA
std::unique_ptr<StreamDenoiser> make_cuda_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h);
#endif

}  // namespace cdn
