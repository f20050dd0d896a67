// temporal_stream.h: a window of frames for a temporal mode (window_filter.h):
// one implementation of the window's bookkeeping (ChunkScheduler) over backend
// hooks for memory and lanes: CpuTemporalStream (host frames) and the CUDA one
// (device frames from a CudaFramePool, on one or several devices,
// cuda_temporal_stream.cu). The mode's WindowFilter filters each chunk.
//
// Output frame t needs input frames t - before .. t + after (WindowShape), and
// frames are filtered in chunks of C frames, each chunk started as soon as its
// frames have arrived, on one of L lanes (the CUDA backend's devices; the
// papers' split of the video along time, nlm3d-multigpu-palma): a chunk is
// launched on the next lane as soon as it can be filtered and a lane is free,
// and runs while frames keep being pushed. Outputs leave in order: pop() hands
// out the oldest chunk's frames once it is done, and waits for it only when
// every lane is busy or the stream has ended. Each output frame depends only on
// its own window, so the output does not depend on the number of lanes nor on
// chunk borders.
//
// Bounds (pop every ready frame after each push): input frames held at most
// L C + before + after + 1, output frames L C, and a frame waits for at most
// L C - 1 + after later frames (latency_frames()): a causal window (after 0) of
// chunk 1 on one lane gives each frame back at the push that brought it.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "stream/frame_stream.h"
#include "temporal/chunk_scheduler.h"
#include "stream/window_filter.h"

namespace cdn {

class TemporalStream : public FrameStream {
 public:
  TemporalStream(const DenoiseSettings& settings, PixelFormat format, int width, int height, int lanes = 1)
      : TemporalStream(settings, window_shape(settings), format, width, height, lanes) {}
  // Another window than the mode's (the scheduling tests' causal windows).
  TemporalStream(const DenoiseSettings& settings, const WindowShape& shape, PixelFormat format, int width, int height,
                 int lanes);

  // How far (a factor, either way) the stream's measured sigma may move before
  // the window takes the new value. The temporal filters take runs of frames of
  // equal sigma together (vbm3d makes each run's basic estimates once, nlm3d
  // launches once a run); the noise tracker's value moves a little with every
  // frame, which would make every frame a run of its own (vbm3d at 1080p: 259
  // ms a frame instead of 38). 2 % is within the scatter of one frame's
  // estimate (1 to 3 %, noise_tracker.h; docs/NOISE.md).
  static constexpr double kSigmaHoldRatio = 1.02;

  const DenoiseSettings& settings() const { return settings_; }
  int latency_frames() const override { return latency_for(shape_, lanes_); }
  int held() const override { return sched_.pushed_count() - popped_; }
  bool ready() const override;
  void push(const FrameView& in, void* stream) override;
  bool pop(const FrameView& out, void* stream) override;
  void finish() override { sched_.finish(); }
  void reset() override;
  void set_noise(const std::vector<double>& sigma) override { noise_ = sigma; }
  void set_cancel_flag(const std::atomic<bool>* flag) override { cancel_ = flag; }

  // latency_frames() for these settings (or this window) and lanes.
  static int latency_for(const DenoiseSettings& s, int lanes) { return latency_for(window_shape(s), lanes); }
  static int latency_for(const WindowShape& w, int lanes) { return lanes * w.chunk - 1 + w.after; }
  // Frames of the stream's format a backend needs at most for the window:
  // inputs (L C + before + after + 1) and outputs (L C).
  static int frames_needed(const DenoiseSettings& s, int lanes) { return frames_needed(window_shape(s), lanes); }
  static int frames_needed(const WindowShape& w, int lanes) { return 2 * lanes * w.chunk + w.before + w.after + 1; }

 protected:
  // A frame owned by the backend (host or device), released when the pointer goes.
  using Frame = std::shared_ptr<const FrameView>;
  struct Chunk {
    int begin, end;                     // output frames [begin, end)
    int window_begin;                   // stream index of window[0]
    int stream_length;                  // frames that exist for clamping
    std::vector<Frame> window;          // input frames window_begin ..
    std::vector<Frame> outputs;         // one per output frame
    std::vector<std::vector<double>> sigma;  // per output frame (ChunkJob::sigma)
    int lane;                           // the worker it runs on
    std::vector<Frame> lane_frames;     // what the lane holds while it runs (backend's)
  };
  // The job for a mode's WindowFilter, over the given frames (the chunk's own,
  // or the lane's copies of them).
  static ChunkJob job_of(const Chunk& chunk, const std::vector<Frame>& window, const std::vector<Frame>& outputs,
                         int filtered);

  virtual Frame new_frame(void* stream) = 0;
  virtual void copy_frame(const FrameView& from, const FrameView& to, void* stream) = 0;
  virtual void copy_plane(const FrameView& from, const FrameView& to, int plane, void* stream) = 0;
  // Starts filtering components [0, filtered) of every output frame of the chunk
  // on lane chunk.lane, after the work queued so far on `stream` (the caller's);
  // may return before it is done.
  virtual void launch(Chunk& chunk, int filtered, void* stream) = 0;
  // Whether a launched chunk is done, so that its outputs may be read on
  // `stream`; with `wait`, waits for it first (then true).
  virtual bool done(const Chunk& chunk, bool wait, void* stream) const = 0;
  virtual void synchronize(void* stream) = 0;

  DenoiseSettings settings_;
  const std::atomic<bool>* cancel_ = nullptr;  // for the mode's filter (ChunkJob::cancel)
  WindowShape shape_;
  PixelFormat format_;
  int width_, height_;

 private:
  // The noise level the next frame is filtered with (ChunkJob::sigma): the
  // stream's measurement (set_noise()) held while its luma stays within
  // kSigmaHoldRatio of the value held; empty for modes that take none.
  std::vector<double> next_sigma();
  // Launches the chunks that can be filtered while lanes are free.
  void dispatch(void* stream);
  // pop() must wait for the oldest chunk rather than ask for more input.
  bool must_wait() const;

  ChunkScheduler sched_;
  int lanes_;
  int launched_ = 0;           // chunks launched since the stream began
  std::deque<Frame> inputs_;   // stream frames first_input_ .. pushed - 1
  std::deque<std::vector<double>> sigmas_;  // their noise levels
  std::deque<Chunk> running_;  // launched and not wholly popped, oldest first
  int front_popped_ = 0;       // outputs of running_.front() already popped
  int first_input_ = 0;
  int popped_ = 0;
  std::vector<double> noise_;       // set_noise(): the next frame's, 8-bit code values
  std::vector<double> held_sigma_;  // the measurement frames are filtered with, code values (empty: none yet)
};

std::unique_ptr<TemporalStream> make_cpu_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h);
#ifdef CDN_HAVE_CUDA
// devices: CUDA device indices, one lane each (a repeated index: two lanes on it);
// empty: the device of the current context.
std::unique_ptr<TemporalStream> make_cuda_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h,
                                                          const std::vector<int>& devices);
#endif

}  // namespace cdn
