// bm3d_filter.h: BM3D per frame (bm3d-gpu-honzatko-krulis-2017; Dabov et al.
// 2007) as window filters of the window {0, 0} (window_filter.h): every filtered
// component of a frame at its own noise level, on the CPU (bm3d_reference.h) or
// with the CUDA kernels (bm3d_cuda.h).
#pragma once

#include <memory>

#include "stream/window_filter.h"

namespace cdn {

// The mode registry's factories (mode_spec.h); causal is false for a per-frame mode.
std::unique_ptr<WindowFilter> make_bm3d_cpu_filter(const DenoiseSettings& s, bool causal, PixelFormat format);
#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> make_bm3d_cuda_filter(const DenoiseSettings& s, bool causal, PixelFormat format,
                                                    int device);
#endif

}  // namespace cdn
