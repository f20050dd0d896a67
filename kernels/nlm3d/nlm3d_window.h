// nlm3d_window.h: NLM-3D's hooks into the temporal window (window_filter.h): its
// window (temporal radius + patch radius either side of a frame, chunks of
// chunk-size frames) and its filter over a chunk on the CPU (nlm3d_reference.h)
// and on CUDA (nlm3d_cuda.h). With motion-search the filter estimates the
// motion fields that centre the windows (nlm3d_motion.h) from the chunk's
// window: for each output frame t and each other frame t + dt it searches, a
// field from t to t + dt by the project's hierarchical block matching
// (motion_reference.h on the CPU, motion_cuda.h on CUDA: the same field bit for
// bit) on the noisy luma, cells of 16 pixels (docs/NLM3D.md, "Moving video").
// Each field depends on its two frames only, so the output still depends only
// on the frame's window, never on chunk borders.
#pragma once

#include <memory>

#include "motion/motion_reference.h"
#include "stream/window_filter.h"

namespace cdn {

// The block matching's parameters for NLM-3D's fields (cells of 16 luma pixels,
// whole warp rows of the 2D kernel in a 4:2:0 chroma pass too).
MotionParams nlm3d_motion_params();

// Centred: reach() frames either side, chunks of chunk-size; causal: reach()
// frames before, none after, chunks of one frame.
WindowShape nlm3d_window_shape(const NlmParams& p);
std::unique_ptr<WindowFilter> make_nlm3d_cpu_window(const NlmParams& p, PixelFormat f);
#ifdef CDN_HAVE_CUDA
// Checks that `device` has the shared memory the widest pass needs (Error otherwise).
std::unique_ptr<WindowFilter> make_nlm3d_cuda_window(const NlmParams& p, PixelFormat f, int filtered, int device);
#endif

}  // namespace cdn
