// frame_stream.h: what a StreamDenoiser (stream_denoiser.h) runs: a stream of
// frames for one set of settings, of one of two kinds, both over the mode's
// WindowFilter (window_filter.h). DirectStream (direct_stream.h): the window
// {0, 0} of the per-frame modes, the caller's frames straight to the filter.
// TemporalStream (temporal_stream.h): a window of frames held by the stream.
// Internal to kernels/; push(), pop(), finish() and reset() mean what they mean
// on StreamDenoiser.
#pragma once

#include <atomic>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"

namespace cdn {

class FrameStream {
 public:
  virtual ~FrameStream() = default;
  virtual Backend backend() const = 0;
  virtual int latency_frames() const = 0;
  virtual bool ready() const = 0;
  virtual int held() const = 0;
  virtual void push(const FrameView& in, void* stream) = 0;
  virtual bool pop(const FrameView& out, void* stream) = 0;
  virtual void finish() = 0;
  virtual void reset() = 0;
  // The noise std per component (8-bit code values, strength applied) the next
  // frame is filtered with, for modes that take one: StreamDenoiser sets it
  // before every frame (the given sigma, or the tracked estimate).
  virtual void set_noise(const std::vector<double>& sigma) = 0;
  // A flag that, once true, abandons the work in progress (temporal streams: the
  // chunk being filtered, ChunkJob::cancel; Cancelled is thrown from push/pop, and
  // the stream must be reset before further use). Null: none.
  virtual void set_cancel_flag(const std::atomic<bool>*) {}
};

}  // namespace cdn
