// mode_runner.h: runs one cudadenoise mode on one backend over a clip and times
// it, the way docs/PERFORMANCE.md does; the one runner of cudadenoise-eval (the
// report) and cudadenoise-bench (namespace cdn::eval, where it began):
//
// - end-to-end: host frames in and out, through a StreamDenoiser and the loop of
//   stream_pump.h. Per-frame modes: wall time of each frame's feed() (upload,
//   filter, download on the GPU). Temporal modes: wall time of feeding and
//   draining the whole clip, divided by its frame count (the stream made before
//   the clock starts).
// - device (CUDA only): frames already in GPU memory. Per-frame modes: device
//   time between CUDA events around StreamDenoiser::enqueue (the kernels).
//   Temporal modes: wall time of the feed/drain loop on device frames per frame
//   (kernels plus the stream's device-to-device copies).
//
// Each time is the median of the samples taken after `warmup` untimed runs:
// per-frame modes take max(frames, repeat) samples, one per call, cycling over
// the frames; temporal modes take `repeat` runs over a timing stream of
// `timing_frames` frames, the clip played forwards and backwards (0 or fewer
// than the clip: the clip itself), so that most frames see a whole temporal
// window as in a long video, not the shrunken windows of a short clip's ends.
// The output frames come from the end-to-end path over the clip itself. With
// max_seconds > 0, sampling stops early once that much time has gone into it
// (never before one sample per frame of a per-frame mode, which the output
// needs, and one timed run of a temporal mode): a slow CPU backend then costs
// bounded time, and the samples actually taken are reported.
#pragma once

#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/settings.h"

namespace cdn::eval {

struct ModeRun {
  Backend backend = Backend::Cpu;  // as resolved
  std::vector<HostFrame> output;
  double e2e_ms = 0;
  double device_ms = -1;  // < 0: not measured (CPU backend)
  int e2e_samples = 0, device_samples = 0;
};

ModeRun run_mode(const std::vector<HostFrame>& clip, Backend backend, const DenoiseSettings& settings, int warmup,
                 int repeat, int timing_frames = 0, double max_seconds = 0);

// The clip's frames played forwards, then backwards (without repeating the
// turning frame), ... until `frames` views; the clip itself when frames <= its size.
std::vector<FrameView> ping_pong(const std::vector<HostFrame>& clip, int frames);

}  // namespace cdn::eval
