// clip_table.h: cudadenoise-bench's timings on real footage (--clip FILE.y4m).
// The synthetic tables feed a repeated frame (nlm3d) or a uniform pan (vbm3d);
// work that depends on the content, such as the motion search skipping
// candidates it has already matched (kernels/motion/motion_cuda.cu), needs a
// real moving clip to be timed honestly.
#pragma once

#include <string>
#include <vector>

namespace cdn::bench {

// For each clip (8-bit y4m, 4:2:0 or gray; its first `frames` frames, AWGN
// sigma 20 with seed 2024 + frame on every plane), GRAY8 (its luma) and NV12
// (all planes) through a CUDA StreamDenoiser at the temporal modes' named
// settings (nlm3d video, fast, causal; vbm3d quality, fast): device frames
// pushed and popped as the element does, the clip played forwards and
// backwards for `length` frames; wall-clock ms per frame after a warm-up stream.
void clip_table(const std::vector<std::string>& clips, int frames, int length, bool gpu);

}  // namespace cdn::bench
