// frame_stream.h: what a StreamDenoiser (stream_denoiser.h) runs: a stream of
// frames for one set of settings, of one of two kinds. PerFrameStream: the
// per-frame modes over a FrameDenoiser, each frame filtered on its own
// (process() writes straight into the caller's frame). TemporalStream
// (temporal_stream.h): a window of frames. Internal to kernels/; push(), pop(),
// finish() and reset() mean what they mean on StreamDenoiser.
#pragma once

#include <atomic>

#include <deque>
#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"
#include "stream/frame_denoiser.h"

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
  // pushed frame is filtered with; empty: the stream's own (the given sigma, or
  // its first frame's estimate). StreamDenoiser sets it before every frame.
  virtual void set_noise(const std::vector<double>& sigma) = 0;
  // A flag that, once true, abandons the work in progress (temporal streams: the
  // chunk being filtered, ChunkJob::cancel; Cancelled is thrown from push/pop, and
  // the stream must be reset before further use). Null: none.
  virtual void set_cancel_flag(const std::atomic<bool>*) {}
};

// Per-frame modes as a stream: push() filters into a frame of the denoiser's own
// (in the input's memory), pop() copies it out. Callers that have their output
// frame at hand call denoiser().process() instead: no copy.
class PerFrameStream final : public FrameStream {
 public:
  PerFrameStream(std::unique_ptr<FrameDenoiser> denoiser, PixelFormat format, int width, int height)
      : den_(std::move(denoiser)), format_(format), width_(width), height_(height) {}
  FrameDenoiser& denoiser() { return *den_; }

  Backend backend() const override { return den_->backend(); }
  int latency_frames() const override { return 0; }
  bool ready() const override { return !ready_.empty(); }
  int held() const override { return static_cast<int>(ready_.size()); }
  void push(const FrameView& in, void* stream) override;
  bool pop(const FrameView& out, void* stream) override;
  void finish() override {}
  void reset() override { ready_.clear(); }
  void set_noise(const std::vector<double>& sigma) override { den_->set_noise(sigma); }

 private:
  std::unique_ptr<FrameDenoiser> den_;
  PixelFormat format_;
  int width_, height_;
  std::deque<std::shared_ptr<const FrameView>> ready_;  // after den_: its frames go back first
};

}  // namespace cdn
