// cuda_copy.h: asynchronous copies of frame planes between host and device
// memory (either direction), on a stream. For the CUDA backends.
#pragma once

#include <cuda_runtime.h>

#include "cudadenoise/frame.h"

namespace cdn {

void copy_plane_async(const FrameView& from, const FrameView& to, int plane, cudaStream_t stream);
void copy_frame_async(const FrameView& from, const FrameView& to, cudaStream_t stream);

}  // namespace cdn
