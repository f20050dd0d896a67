// vbm3d_window.h: V-BM3D's hooks into the temporal window (window_filter.h):
// its window (reach() frames either side of a frame, chunks of vbm3d-chunk
// frames; the causal window: reach() frames before it, none after, chunks of
// one frame) and its filter over a chunk on the CPU (vbm3d_reference.h) and on
// CUDA (vbm3d_cuda.h). docs/VBM3D.md.
#pragma once

#include <memory>

#include "cudadenoise/vbm3d_params.h"
#include "stream/window_filter.h"

namespace cdn {

// p: the resolved parameters (vbm3d_params: the profile, the overrides, the
// window); chunk: vbm3d-chunk, the centred window's output frames per chunk.
WindowShape vbm3d_window_shape(const Vbm3dParams& p, int chunk);
// The luma sigma of an output frame is used for every component (the window's
// noise level, as nlm3d does); runs of output frames of equal sigma are filtered
// together. Both validate p (InvalidArgument).
std::unique_ptr<WindowFilter> make_vbm3d_cpu_window(const Vbm3dParams& p, PixelFormat f);
#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> make_vbm3d_cuda_window(const Vbm3dParams& p, PixelFormat f, int device);
#endif

}  // namespace cdn
