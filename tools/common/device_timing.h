// device_timing.h: the "device" time of mode_runner.h, on frames already in GPU
// memory (CUDA builds only; elsewhere it throws cdn::Error).
#pragma once

#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"

namespace cdn::eval {

struct DeviceTiming {
  double ms = -1;  // median per frame
  int samples = 0;
};

// Per-frame modes: CUDA events around StreamDenoiser::enqueue on device frames,
// max(frames, repeat) samples after `warmup` calls. Temporal modes: wall time of
// the StreamDenoiser feed/drain loop on device frames per frame, `repeat` runs
// after `warmup` runs. Uploads are not timed.
DeviceTiming time_on_device(const std::vector<FrameView>& frames, const DenoiseSettings& settings, int warmup,
                            int repeat);

}  // namespace cdn::eval
