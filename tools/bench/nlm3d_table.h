// nlm3d_table.h: the NLM-3D kernel part of cudadenoise-bench: device time of
// nlm3d_cuda_chunk per 1920x1080 frame for named settings (the papers' cubes,
// the video settings with and without motion-search, the fast settings), gray
// and NV12 (all planes), without the stream around it.
#pragma once

#include "cudadenoise/host_frame.h"

namespace cdn::bench {

// One chunk of `frames` output frames (the window around it: frames + 2 reach
// inputs), every pass; medians over `iterations` launches after a warm-up.
// Motion-search reads fields of a global shift (2 dt, dt) pixels in cells of 16:
// the motion estimation that makes real fields is not timed here.
void nlm3d_kernel_table(const FrameView& source, int frames, int iterations, bool gpu);

}  // namespace cdn::bench
