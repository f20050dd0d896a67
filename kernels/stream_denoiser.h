// stream_denoiser.h: denoising a stream of frames, the interface the element and
// the transcode tool use for every mode. Frames go in with push() and come out,
// in the same order and the same number, with pop().
//
// Per-frame modes (pipd, hybrid) give each frame back at once. The temporal mode
// (nlm3d) holds a window: frame t needs frames t - reach .. t + reach (reach =
// temporal radius + patch radius), and frames are filtered in chunks of
// chunk-size frames; so up to chunk-size - 1 + reach frames follow a frame
// before it comes out (latency_frames()). Chunks are filtered lazily in pop():
// call pop() until it returns false after every push(), as the element and the
// transcode tool do; then at most chunk-size + 2 reach + 1 input frames and
// chunk-size output frames are held, whatever the stream's length. finish() marks the end of the stream (the window
// shrinks to the frames that exist) and makes every held frame ready; reset()
// drops them (flush). The output never depends on where chunk borders fall.
#pragma once

#include <memory>

#include "denoiser.h"

namespace cdn {

class StreamDenoiser {
 public:
  virtual ~StreamDenoiser() = default;

  // Frames must then have `format` and the given size. CUDA backends bind to the
  // CUDA context current on the calling thread (as FrameDenoiser).
  static std::unique_ptr<StreamDenoiser> create(Backend backend, const DenoiseSettings& settings, PixelFormat format,
                                                int width, int height);

  virtual Backend backend() const = 0;
  virtual const DenoiseSettings& settings() const = 0;
  // Frames that may follow a frame before it comes out: the latency in frames.
  virtual int latency_frames() const = 0;
  // The same for settings, before a denoiser exists (0 for per-frame modes).
  static int latency_frames_for(const DenoiseSettings& settings);
  // Whether pop() would hand out a frame now.
  virtual bool ready() const = 0;
  // Frames pushed and not yet popped.
  virtual int held() const = 0;

  // Copies `in` (host or, on the CUDA backend, device memory) into the window;
  // `in` may be reused or freed as soon as push() returns.
  virtual void push(const FrameView& in, void* stream = nullptr) = 0;
  // Writes the next frame into `out` and returns true, or returns false when
  // the next frame is not ready. Synchronous: `out` is complete on return.
  virtual bool pop(const FrameView& out, void* stream = nullptr) = 0;
  // End of stream: every held frame becomes ready.
  virtual void finish() = 0;
  // Drops every held frame; the next push starts a new stream.
  virtual void reset() = 0;
};

}  // namespace cdn
