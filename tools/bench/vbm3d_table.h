// vbm3d_table.h: the video mode's part of cudadenoise-bench.
#pragma once

#include "cudadenoise/host_frame.h"

namespace cdn::bench {

// 1920x1080 GRAY8 and NV12 (all planes), then 3840x2160 NV12, at the quality
// and the fast profile: a clip panning (3, 2) pixels a frame over the source
// picture (independent noise per frame), filtered in chunks of `chunk` output
// frames from windows of chunk + 2 reach frames, as the temporal stream hands
// them out. Per output frame: GPU milliseconds split into motion estimation,
// block matching, filtering with aggregation and the rest (CUDA events; the
// basic estimates of a chunk's 2 R2 extra frames are included), frames per
// second, and the device memory the filter holds; medians over `iterations`
// chunks after a warm-up chunk. Then the CPU reference on a 320x240 clip.
// stream_only: the StreamDenoiser rows at 1080p alone.
void vbm3d_table(const FrameView& source, int iterations, int chunk, bool gpu, bool cpu, bool stream_only = false);

}  // namespace cdn::bench
