// stream_denoiser.h: the library's front door, for every mode. Frames go in and
// come out in the same order and number; host or device frames, on the CUDA
// backend or the CPU one (the same output).
//
// Every mode is a filter over a window of frames (kernels/stream/window_filter.h,
// the modes' registry kernels/core/mode_spec.h). Per-frame modes (pipd, hybrid,
// bm3d) have the window {0, 0}: process() hands the caller's input and output
// frames straight to the filter (device frames stay where they are: zero-copy).
// Temporal modes (nlm3d, vbm3d) hold a window of frames: push() copies a frame
// in, pop() hands out the next frame once the frames it needs have arrived,
// latency_frames() later at most. push() and pop() work for every mode, and
// carry a tag per frame (the caller's metadata: the element's buffer, the
// tool's frame properties) from the push to the pop of that frame. Most callers
// use neither directly but the loop of stream_pump.h, which does the right
// thing for both.
//
// The stream owns the stream-level rules: settings changed while frames flow
// take effect from the next frame when they can, else at the next stream start
// (restarts_stream() in settings.h, decided from the parameter table); the
// latency to report; whether input frames may be dropped (QoS). finish() ends a
// stream: every held frame becomes ready, and once they are all popped the next
// push() starts a new stream; reset() drops them (flush).
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <vector>

#include "cudadenoise/backend.h"
#include "cudadenoise/frame.h"
#include "cudadenoise/noise_model.h"
#include "cudadenoise/settings.h"

namespace cdn {

class FrameStream;
class DirectStream;
class NoiseTracker;
class NoiseStage;
class StabilizingTables;

// What a caller attaches to a frame it pushes: the stream keeps it while it
// holds the frame and hands it back with that frame's output (pop()); reset()
// and the end of the stream's life drop it. Anything the caller likes: the
// element's input buffer (its timestamps and metas), the tool's frame shell.
using FrameTag = std::shared_ptr<void>;

class StreamDenoiser {
 public:
  // Frames must then have `format` and the given size. CUDA backends bind to the
  // CUDA context current on the calling thread (the element pushes its
  // GstCudaContext; tools use the device's primary context), and every call that
  // may filter or make a stream (push, pop, process, enqueue, finish, reset,
  // set_settings) must be made with it current. cuda_devices: the devices the
  // temporal mode spreads its chunks over, one worker each (an index may repeat:
  // two workers on it); frames are pushed and popped on the current context's
  // device. Empty: that device alone. The output is the same for any list.
  // Throws InvalidArgument for bad settings, Error for CUDA failures.
  static std::unique_ptr<StreamDenoiser> create(Backend backend, const DenoiseSettings& settings, PixelFormat format,
                                                int width, int height, const std::vector<int>& cuda_devices = {});
  ~StreamDenoiser();
  StreamDenoiser(const StreamDenoiser&) = delete;
  StreamDenoiser& operator=(const StreamDenoiser&) = delete;

  Backend backend() const;  // Cuda or Cpu (Auto resolved at creation)
  PixelFormat format() const { return format_; }
  int width() const { return width_; }
  int height() const { return height_; }
  // The settings frames are filtered with now.
  const DenoiseSettings& settings() const { return settings_; }
  // New settings (validated first: InvalidArgument keeps the old ones). They take
  // effect from the next frame, or, when restarts_stream() says so and the
  // stream holds frames, at the next stream start (the held frames keep the old
  // ones); a stream that holds nothing starts anew at once.
  void set_settings(const DenoiseSettings& settings);

  // True when the stream holds no frames and none is under way (a temporal
  // stream after finish() and its last pop(), or reset()): new settings take
  // effect at once, and the next push() starts a stream.
  bool idle() const;
  // Frames that may follow a frame before it comes out: while a stream is under
  // way, the larger of its window's and of the settings waiting for the next
  // stream start; when idle, the next stream's.
  int latency_frames() const;
  // The same for settings, before a stream exists (0 for per-frame modes), for a
  // list of `cuda_devices` entries (0 or 1: one worker).
  static int latency_frames_for(const DenoiseSettings& settings, int cuda_devices = 0, bool live_source = false);

  // Whether frames come from a live source (window auto: causal where the mode
  // has one). Applies like new settings (set_settings).
  void set_live_source(bool live);
  bool live_source() const { return live_; }
  // The window the temporal stream runs (centred or causal; centred for per-frame modes).
  TemporalWindow window() const;

  // The noise sigma per component (luma first), in 8-bit code values, before
  // `strength`: the given `sigma`, or with sigma auto the tracked estimate (0.5
  // until a frame with usable content); with a signal or curve model, the
  // model's sigma at mid-grey (128). Empty for modes that take no sigma.
  std::vector<double> noise_sigma() const;
  // Whether noise_sigma() (or the model) comes from the frames and every component has had a usable frame.
  bool noise_estimated() const;
  // With the noise estimated from the frames: how many of the stream's frames
  // were measured and are in it (the tracker's schedule: one frame in
  // noise_interval, the first at once, later ones folded in later;
  // noise_tracker.h); 0 otherwise.
  std::int64_t noise_frames() const;
  // True once when the estimate first becomes known and whenever it moves by
  // more than 5 % (NoiseTracker::changed): for the element's message. Always
  // false with a given sigma. With a signal or curve model: once when the
  // model frames are filtered with is first known (given: at the first frame),
  // then whenever it moves by more than 5 % at some intensity.
  bool noise_changed();
  // With noise-model signal or curve: the model of each component (luma first,
  // 8-bit code values) the last frame was filtered with (before any frame: the
  // next one's): the noise profile's, the given noise-a and noise-b for every
  // component, or the frames' estimate (NoiseTracker::model(); a component whose
  // model is flat, or not yet fitted, is the constant model of the tracked
  // sigma). Empty for the constant model and for modes that take no sigma.
  std::vector<NoiseModel> noise_models() const;
  // True when the next frame goes one for one through process(): its mode
  // filters each frame on its own. Otherwise push() and pop().
  bool per_frame() const;
  // Whether a caller may drop input frames (QoS) now and until the next stream
  // start: only per-frame modes; a window needs every frame of its stream.
  bool may_drop_frames() const;

  // Per-frame modes: filters `in` into `out` (same format and size as the
  // stream, distinct memory; host or device frames, any mix on the CUDA backend)
  // and returns when `out` is complete. `stream` is a cudaStream_t to order the
  // work after (nullptr: the denoiser's own). Throws InvalidArgument when the
  // mode holds a window (per_frame() is false).
  void process(const FrameView& in, const FrameView& out, void* stream = nullptr);
  // Like process(), but for device frames on the CUDA backend it returns as soon
  // as the work is queued on `stream`: the caller synchronizes before reading `out`.
  void enqueue(const FrameView& in, const FrameView& out, void* stream);

  // Every mode. push() takes a frame and its tag; `in` may be reused as soon as
  // it returns. pop() writes the next frame into `out`, gives its tag (when
  // `tag` is not null) and returns true, or returns false when it is not ready
  // yet; synchronous. Call pop() until it returns false after every push(): then
  // a temporal stream holds a bounded number of frames whatever the stream's
  // length (temporal_stream.h). A per-frame mode filters on push() into a frame
  // of its own that pop() copies: process() avoids the copy.
  void push(const FrameView& in, void* stream = nullptr, FrameTag tag = nullptr);
  bool pop(const FrameView& out, void* stream = nullptr, FrameTag* tag = nullptr);
  // Whether pop() would hand out a frame now.
  bool ready() const;
  // Frames pushed and not yet popped.
  int held() const;
  // End of the stream: every held frame becomes ready; once they are popped the
  // next push() starts a new stream (with settings waiting for one).
  void finish();
  // Drops every held frame and its tag (flush); the next push() starts a new stream.
  void reset();

  // A flag another thread (or a signal handler) may set to abandon the frame or
  // the temporal chunk in progress (bm3d and the temporal modes check it often:
  // on the CPU between bands of rows, on CUDA before each launch, and what is
  // queued still runs; pipd and hybrid finish their frame): process(), push()
  // or pop() then throws Cancelled, and a temporal stream must be reset()
  // before further use. nullptr: none.
  void set_cancel_flag(const std::atomic<bool>* flag);

 private:
  StreamDenoiser(Backend backend, PixelFormat format, int width, int height, std::vector<int> cuda_devices);
  // Makes the stream for `s`, dropping the old one first (its memory).
  void build(const DenoiseSettings& s);
  // The stream has ended: the next push() starts a new one (with the settings
  // waiting for it).
  void start_over();
  // Idle with settings waiting for a stream start: they apply now.
  void start_pending();
  void check_geometry(const FrameView& f) const;
  FrameStream& impl() const;
  // The settings a stream is built with: the window resolved for live_.
  DenoiseSettings runnable(const DenoiseSettings& s) const;
  // Before a frame is filtered: observes it (sigma or model auto), gives the
  // stream strength x sigma per component, and with a signal or curve model
  // makes the stabilising tables the frame goes through (stabilizing() then).
  void observe_noise(const FrameView& in, void* stream);
  // The frame into the noise tracker (made here, `model`: following the model too).
  void track_noise(const FrameView& in, void* stream, bool model);
  bool stabilizing() const;
  // With a signal or curve model: whether it comes from the frames (no profile, noise-a auto).
  bool estimates_model() const;
  // The models for the next frame (noise_models() without the tables' hold).
  std::vector<NoiseModel> current_models() const;
  NoiseStage& stage();
  // The CUDA stream a stabilised frame runs on (NoiseStage::stream_for) when
  // either frame is in device memory; `stream` otherwise.
  void* stage_stream(const FrameView& a, const FrameView& b, void* stream);

  Backend backend_;
  PixelFormat format_;
  int width_, height_;
  std::vector<int> devices_;
  DenoiseSettings settings_;
  DenoiseSettings pending_;
  bool has_pending_ = false;
  bool in_stream_ = false;  // a temporal stream has taken frames since it started
  bool finished_ = false;   // finish() called; the stream ends when its frames are out
  std::unique_ptr<FrameStream> impl_;
  DirectStream* per_frame_ = nullptr;  // impl_ while a per-frame mode runs
  // Of each frame pushed and not yet popped, oldest first: its tag, and the
  // stabilising tables it went in with (null: none).
  struct Held {
    FrameTag tag;
    std::shared_ptr<const StabilizingTables> tables;
  };
  std::deque<Held> held_;
  std::shared_ptr<const StabilizingTables> tables_;  // the next frame's (null: constant model)
  std::vector<NoiseModel> tables_models_;            // the models tables_ was made from
  std::vector<NoiseModel> reported_models_;          // noise_changed()'s last
  std::unique_ptr<NoiseStage> stage_;                // made at the first frame that needs it
  const std::atomic<bool>* cancel_ = nullptr;
  bool live_ = false;
  std::unique_ptr<NoiseTracker> tracker_;  // made at the first frame that needs it
  bool tracker_models_ = false;            // tracker_ follows the model too
};

}  // namespace cdn
