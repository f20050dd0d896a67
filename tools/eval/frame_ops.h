// frame_ops.h: small host-frame operations of the harness: copying a frame,
// cutting a region out of one, keeping only its luma, gray to neutral 4:2:0.
#pragma once

#include "cudadenoise/host_frame.h"
#include "frame_rgb.h"

namespace cdn::eval {

HostFrame clone_frame(const FrameView& f);
// A region of a GRAY8, I420 or Y444 frame; 4:2:0 needs an even region.
// Throws cdn::InvalidArgument when it does not fit.
HostFrame crop_frame(const FrameView& f, const Region& r);
// The luma plane as a GRAY8 frame.
HostFrame luma_frame(const FrameView& f);
// A GRAY8 frame (even size) as I420: the same luma, chroma 128. Throws for other formats.
HostFrame gray_to_i420(const FrameView& f);

}  // namespace cdn::eval
