// pipd_filter.h: PI-PD and hybrid PI-PD (pipd-isoline-gpu-filter) as window
// filters of the window {0, 0} (window_filter.h): each frame's filtered
// components, one by one, on the CPU (pipd_reference.h) or with the CUDA
// kernels (pipd_cuda.h).
#pragma once

#include <memory>

#include "stream/window_filter.h"

namespace cdn {

// The mode registry's factories (mode_spec.h); causal is false for a per-frame mode.
std::unique_ptr<WindowFilter> make_pipd_cpu_filter(const DenoiseSettings& s, bool causal, PixelFormat format);
#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> make_pipd_cuda_filter(const DenoiseSettings& s, bool causal, PixelFormat format,
                                                    int device);
#endif

}  // namespace cdn
