// preset_table.h: the presets part of cudadenoise-bench (issue 16 item 2):
// each offered preset (kernels/include/cudadenoise/presets.h) through StreamDenoiser as the element
// and the transcode tool run it, sigma auto (the noise tracker included), on
// NV12 at 1920x1080 and 3840x2160: GPU wall-clock ms per frame on device frames
// (feed() over a stream of frames and its drain, temporal presets with their window
// over 100 frames: tracker, filter, one synchronisation at the end, per frame), fps,
// and whether the default keeps 25
// fps at 3840x2160; then the default preset on the CPU (all hardware threads) at
// growing sizes (160x90 to 1280x720), and the largest of them it keeps at 25 fps there.
#pragma once

#include "cudadenoise/frame.h"

namespace cdn::bench {

void preset_table(const FrameView& source, int iterations, bool gpu, bool cpu);

}  // namespace cdn::bench
