// window_filter.h: the one filter interface of every mode. A mode filters a
// window of input frames into output frames: output frame t reads input frames
// t - before .. t + after (WindowShape). Per-frame modes (pipd, hybrid, bm3d)
// are the window {0 back, 0 ahead}: the stream hands them the caller's input and
// output frames straight (direct_stream.h: no copy); temporal modes (nlm3d,
// vbm3d) get frames of the window the stream holds (temporal_stream.h).
//
// Each mode makes its filters for the CPU and for CUDA through its registration
// (mode_spec.h); the stream around them (which frames are held, when a chunk
// can run, latency, lanes, the end of the stream, memory and copies, the noise
// level) is the same for every mode. The element and the tools do not change
// when a mode is added.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"

namespace cdn {

// Output frame t reads input frames t - before .. t + after (clamped to the
// stream); chunk output frames are filtered per launch. A centred window has
// before == after; a causal one (current and past frames only) has after == 0,
// so a frame can come out as soon as it is pushed (with chunk 1). Per-frame
// modes: {0, 0, 1}.
struct WindowShape {
  int before = 0;
  int after = 0;
  int chunk = 1;
};

// One launch: output frames out_first .. out_first + outputs.size() - 1 of the
// stream, from input frames window_first .. window_first + window.size() - 1.
// Every frame has the stream's format and size and lives where the filter runs
// (host memory for the CPU, the lane's device for CUDA).
struct ChunkJob {
  std::vector<const FrameView*> window;
  std::vector<const FrameView*> outputs;
  int window_first = 0;
  int out_first = 0;
  int stream_length = 0;  // frames that exist (reads beyond it are clamped or skipped, as the mode says)
  // The noise std of each output frame, per component (luma first), each in its
  // own component's code values: the stream's measurement times strength
  // (StreamDenoiser: the given sigma or the tracked estimate). Empty for modes
  // that take no noise level. Temporal streams hold it in runs (TemporalStream::
  // kSigmaHoldRatio); the temporal filters read the luma's, sigma[i][0].
  std::vector<std::vector<double>> sigma;
  int filtered = 1;  // components [0, filtered) of every output are filtered; the others are copied already
  // When it becomes true the filter throws Cancelled (StreamDenoiser::set_cancel_flag)
  // and the outputs are incomplete. CPU filters stop within a band of rows of a
  // frame's filter or a row of cells of its motion estimation; CUDA filters queue
  // no further launch (what is queued still runs: the caller waits for it).
  const std::atomic<bool>* cancel = nullptr;
};

class WindowFilter {
 public:
  virtual ~WindowFilter() = default;
  // CPU: filters the chunk before returning (stream is ignored). CUDA: queues it
  // on `stream` (a cudaStream_t of the current device), may return before it is done.
  virtual void run(const ChunkJob& job, void* stream) = 0;
};

// The window of settings whose `window` is resolved (Centred or Causal): the
// mode's (mode_spec.h), {0, 0, 1} for per-frame modes.
WindowShape window_shape(const DenoiseSettings& s);
// The mode's filter for these (resolved) settings.
std::unique_ptr<WindowFilter> make_cpu_window_filter(const DenoiseSettings& s, PixelFormat format);
#ifdef CDN_HAVE_CUDA
// For CUDA device `device` (made current by the caller); throws Error, naming the
// parameters, when the device cannot run these settings.
std::unique_ptr<WindowFilter> make_cuda_window_filter(const DenoiseSettings& s, PixelFormat format, int device);
#endif

}  // namespace cdn
