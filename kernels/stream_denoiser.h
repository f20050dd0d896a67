// stream_denoiser.h: denoising a stream of frames, the interface the element and
// the transcode tool use for every mode. Frames go in with push() and come out,
// in the same order and the same number, with pop().
//
// Per-frame modes (pipd, hybrid, bm3d) give each frame back at once. The temporal
// mode (nlm3d) holds a window: frame t needs frames t - reach .. t + reach (reach =
// temporal radius + patch radius), and frames are filtered in chunks of
// chunk-size frames, each chunk started as soon as its frames have arrived, on
// one of the stream's workers (one per CUDA device given; temporal_stream.h). So
// up to workers x chunk-size - 1 + reach frames follow a frame before it comes
// out (latency_frames()). Call pop() until it returns false after every push(),
// as the element and the transcode tool do; then at most workers x chunk-size +
// 2 reach + 1 input frames and workers x chunk-size output frames are held,
// whatever the stream's length. finish() marks the end of the stream (the window
// shrinks to the frames that exist) and makes every held frame ready; reset()
// drops them (flush). The output never depends on where chunk borders fall nor
// on the number of workers.
#pragma once

#include <memory>
#include <vector>

#include "denoiser.h"

namespace cdn {

class StreamDenoiser {
 public:
  virtual ~StreamDenoiser() = default;

  // Frames must then have `format` and the given size. CUDA backends bind to the
  // CUDA context current on the calling thread (as FrameDenoiser). cuda_devices:
  // the CUDA devices the temporal mode spreads its chunks over, one worker each
  // (temporal_stream.h; an index may repeat: two workers on that device); frames
  // are pushed and popped on the current context's device. Empty: that device
  // alone. The output is the same for any list.
  static std::unique_ptr<StreamDenoiser> create(Backend backend, const DenoiseSettings& settings, PixelFormat format,
                                                int width, int height, const std::vector<int>& cuda_devices = {});

  virtual Backend backend() const = 0;
  virtual const DenoiseSettings& settings() const = 0;
  // Frames that may follow a frame before it comes out: the latency in frames.
  virtual int latency_frames() const = 0;
  // The same for settings, before a denoiser exists (0 for per-frame modes), for
  // a list of `cuda_devices` entries (0 or 1: one worker).
  static int latency_frames_for(const DenoiseSettings& settings, int cuda_devices = 0);
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
