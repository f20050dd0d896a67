// bm3d_table.h: the BM3D part of cudadenoise-bench.
#pragma once

#include <utility>
#include <vector>

#include "cudadenoise/host_frame.h"

namespace cdn::bench {

// For each size, GRAY8 (a luma plane) and NV12 (all planes) with the paper and
// the reference profiles, GRAY8 with the fast, balanced, quick, rapid and draft
// profiles and NV12 with balanced: GPU milliseconds per
// frame split into block matching, filtering with aggregation, and the rest
// (conversion, guides, division), frames per second and the device memory the
// filter holds; medians over `iterations` runs after one warm-up. Then time and
// memory at 3840x2160 and 7680x4320 (reference, balanced, rapid), and the CPU
// reference at the first size.
void bm3d_table(const FrameView& source, const std::vector<std::pair<int, int>>& sizes, int iterations, bool gpu,
                bool cpu);

}  // namespace cdn::bench
