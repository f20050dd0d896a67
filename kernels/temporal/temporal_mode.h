// temporal_mode.h: what a temporal mode (one that filters a window of frames,
// e.g. nlm3d) adds to the window machinery of temporal_stream.h: the shape of
// its window and its filter over one chunk of output frames, on each backend.
// The window itself (which frames are held, when a chunk can run, latency,
// lanes, the end of the stream, memory and copies) is the same for every mode.
//
// Adding a temporal mode is: a WindowShape for its settings, a WindowFilter for
// the CPU and one for CUDA, and a case in temporal_modes.cpp. The element and the
// tools do not change.
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
// so a frame can come out as soon as it is pushed (with chunk 1).
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
  // Noise std of each output frame's luma, in luma code values (given, or
  // estimated: today the first frame's for every frame).
  std::vector<double> sigma;
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

// The window of a temporal mode's settings (throws InvalidArgument for a per-frame mode).
WindowShape window_shape(const DenoiseSettings& s);
std::unique_ptr<WindowFilter> make_cpu_window_filter(const DenoiseSettings& s, PixelFormat format);
#ifdef CDN_HAVE_CUDA
// For CUDA device `device` (made current by the caller); throws Error, naming the
// parameters, when the device cannot run these settings.
std::unique_ptr<WindowFilter> make_cuda_window_filter(const DenoiseSettings& s, PixelFormat format, int device);
#endif

}  // namespace cdn
