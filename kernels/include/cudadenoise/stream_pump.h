// stream_pump.h: the one loop around a StreamDenoiser (stream_denoiser.h), for
// every mode: a frame in, every frame that is ready out, and at the end of the
// stream every frame still held. The element, the tools, the bench and the
// tests all run it; a caller only says where output frames go (a FrameSink).
//
// Per-frame modes filter the input straight into the sink's frame (no copy);
// a window pops into it each frame that is ready. Each frame's tag (the
// caller's metadata, given to feed()) comes back with it to take(). Frames a sink declined to take
// for now (take() returned false, e.g. downstream refused one) stay ready in the
// stream, and the next feed() or drain() pops them first: so the window never
// holds more than its bound, whatever the sink did.
#pragma once

#include <functional>

#include "cudadenoise/stream_denoiser.h"

namespace cdn {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // The frame the next output is written into (the caller's: host or device
  // memory, the stream's format and size). Called once per frame, before it is
  // written; if writing throws, the frame is not taken.
  virtual FrameView next() = 0;
  // The frame from next() now holds the next output frame; `tag` is what its
  // input was fed with. Return false to stop for now (the frames still ready
  // stay in the stream).
  virtual bool take(FrameTag tag) = 0;
};

// A FrameSink from two functions (for tools and tests), with or without the tags.
class FunctionSink final : public FrameSink {
 public:
  FunctionSink(std::function<FrameView()> next, std::function<bool(FrameTag)> take)
      : next_(std::move(next)), take_(std::move(take)) {}
  FunctionSink(std::function<FrameView()> next, std::function<bool()> take)
      : next_(std::move(next)), take_([take = std::move(take)](const FrameTag&) { return take(); }) {}
  FrameView next() override { return next_(); }
  bool take(FrameTag tag) override { return take_(std::move(tag)); }

 private:
  std::function<FrameView()> next_;
  std::function<bool(FrameTag)> take_;
};

// Pops every ready frame into `sink`, until none is ready or the sink declines
// one. Returns the frames taken.
int pop_ready(StreamDenoiser& d, FrameSink& sink, void* stream = nullptr);

// Before a push: every frame still ready (left by a sink that declined one, or
// by a caller that stopped popping) goes to `sink`, whatever take() says: the
// push needs their room. Returns the frames popped.
int catch_up(StreamDenoiser& d, FrameSink& sink, void* stream = nullptr);

// One input frame and its tag: catch_up(), then `in` goes in and every frame
// ready after it comes out (a per-frame mode writes `in` straight into
// sink.next()). Returns the frames taken. `in` may be reused when it returns.
int feed(StreamDenoiser& d, const FrameView& in, FrameSink& sink, void* stream = nullptr, FrameTag tag = nullptr);

// End of the stream: finish(), then every held frame into `sink` in order; the
// next feed() starts a new stream. When the sink declines a frame, the frames
// after it are dropped (reset()). Throws Error if the stream kept frames after
// its end. Returns the frames taken.
int drain(StreamDenoiser& d, FrameSink& sink, void* stream = nullptr);

}  // namespace cdn
