// nlm3d_window.h: NLM-3D's hooks into the temporal window (temporal_mode.h): its
// window (temporal radius + patch radius either side of a frame, chunks of
// chunk-size frames) and its filter over a chunk on the CPU (nlm3d_reference.h)
// and on CUDA (nlm3d_cuda.h).
#pragma once

#include <memory>

#include "temporal_mode.h"

namespace cdn {

WindowShape nlm3d_window_shape(const NlmParams& p);
std::unique_ptr<WindowFilter> make_nlm3d_cpu_window(const NlmParams& p, PixelFormat f);
#ifdef CDN_HAVE_CUDA
// Checks that `device` has the shared memory the widest pass needs (Error otherwise).
std::unique_ptr<WindowFilter> make_nlm3d_cuda_window(const NlmParams& p, PixelFormat f, int filtered, int device);
#endif

}  // namespace cdn
