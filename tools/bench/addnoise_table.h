// addnoise_table.h: the noise part of cudadenoise-bench: what the cudaaddnoise
// element pays per frame for its noise, NV12 and P010_10LE at 1920x1080 and
// 3840x2160. Rows: add_gaussian_noise (kernels/include/cudadenoise/noise.h, the element's noise
// until the counter-based generator replaced it: one sequential xoshiro256**
// stream), the counter-based noise on the CPU (kernels/include/cudadenoise/counter_noise.h) on one
// thread and on every hardware thread (the element's system-memory path), and
// on the GPU (CounterNoiseCuda::add on device frames, launch and synchronize:
// the element's CUDA-memory path; printed only where a GPU is usable).
#pragma once

#include "cudadenoise/frame.h"

namespace cdn::bench {

void addnoise_table(const FrameView& source, int iterations, int cpu_iterations, bool gpu, bool cpu);

}  // namespace cdn::bench
