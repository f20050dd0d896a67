// plane_copy.h: which memory planes a denoiser filters and which it copies.
#pragma once

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"

namespace cdn {

// Memory plane p of `format` holds at least one component that `planes` selects
// for filtering (plane 0 is luma; NV12's plane 1 holds both chroma components).
inline bool plane_is_filtered(PlaneSelection planes, int p) { return p == 0 || planes == PlaneSelection::All; }

// Components (index in components()) to filter.
inline int filtered_components(const FrameView& f, PlaneSelection planes) {
  return planes == PlaneSelection::All ? format_info(f.format).components : 1;
}

// Throws InvalidArgument unless `in` and `out` have the same format and size.
void check_same_geometry(const FrameView& in, const FrameView& out);

}  // namespace cdn
