// noise_stage.h: the variance-stabilising stage around a mode's filter in a
// stream (issue 37; docs/NOISE.md, "The noise model in the stream"). A frame is
// mapped through the forward tables of the stream's noise model
// (noise/stabilizing_tables.h) into a frame of the stage's own, the mode filters
// that at the stabilised sigma, and the filtered frame goes through the inverse
// tables (those the frame went in with) into the caller's frame. Host frames are
// transformed on the host, device frames on the caller's CUDA stream (no host
// round trip); both give the same bytes.
#pragma once

#include <memory>

#include "cudadenoise/frame.h"
#include "noise/stabilizing_tables.h"

namespace cdn {

class NoiseStage {
 public:
  NoiseStage(PixelFormat format, int width, int height);
  ~NoiseStage();
  NoiseStage(const NoiseStage&) = delete;
  NoiseStage& operator=(const NoiseStage&) = delete;

  // `in` through `tables`' forward transform into the stage's frame of in's
  // memory kind; returns that frame (valid until the next forward()).
  const FrameView& forward(const StabilizingTables& tables, const FrameView& in, void* stream);
  // The stage's frame a filter writes a frame into that goes to memory `memory`.
  const FrameView& filtered(MemoryKind memory, void* stream);
  // filtered(out.memory)'s frame through `tables`' inverse transform into `out`.
  // A device `out` is complete once the work queued on `stream` is: wait().
  void inverse(const StabilizingTables& tables, const FrameView& out, void* stream);
  // The CUDA stream the stage and the filter run a device frame on: `stream`, or
  // for none (null) a stream of the stage's own (not the legacy default stream,
  // which the filters' own non-blocking streams do not wait for).
  void* stream_for(void* stream);
  // Waits for the work queued on `stream` (CUDA builds; nothing otherwise).
  static void wait(void* stream);

 private:
  struct Scratch;
  Scratch& scratch(int which, MemoryKind memory, void* stream);
  PixelFormat format_;
  int width_, height_;
  std::unique_ptr<Scratch> scratch_[2][2];  // [in, filtered][host, device]
  void* own_stream_ = nullptr;              // a cudaStream_t, made by stream_for()
};

}  // namespace cdn
