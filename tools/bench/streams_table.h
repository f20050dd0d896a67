// streams_table.h: how many 1080p streams the GPUs of this host carry in one
// process (issue 36 items 1 and 3): N streams at once, each a thread with its
// own StreamDenoiser, CUDA stream and device frames, placed round robin on the
// first G GPUs (G = 1, then every GPU when there are several), for the named
// presets with sigma auto (the product's default; the noise tracker's work is
// in the time). Per row: frames per second in all, the slowest stream's, and
// how many 30 fps streams that makes. The frames are on the device already:
// what a decoder or cudaupload costs is not in it (scripts/gpu-pipeline-timing.sh
// measures whole GStreamer pipelines).
#pragma once

#include <string>
#include <vector>

#include "cudadenoise/frame.h"

namespace cdn::bench {

void streams_table(const FrameView& source, const std::vector<std::string>& presets, const std::vector<int>& counts,
                   int frames);

}  // namespace cdn::bench
