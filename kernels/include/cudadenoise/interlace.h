// interlace.h: what the library does with interlaced video, decided here once
// for the element and the tools alike. An interlaced frame holds two instants,
// a field each, line by line; filtering the woven frame as one picture mixes
// them. So:
// - a per-frame mode filters each field on its own, as a frame of half the
//   height made of every other line (field_view: no copy), top field first;
// - a temporal mode refuses interlaced input: its window is a sequence of whole
//   pictures, and the fields of a frame are neither one picture nor two frames
//   of the same lines. Deinterlace first, or pick a per-frame mode.
// The callers say how interlacing is signalled in their world (caps, field
// order) and what deinterlacer to use; the decision and its words are here.
#pragma once

#include <string>

#include "cudadenoise/frame.h"
#include "cudadenoise/settings.h"

namespace cdn {

enum class InterlacedInput {
  FilterFields,  // each field filtered on its own (field_view), the top one first
  Refuse,        // not filtered: interlaced_refusal() says why and what to do
};

// What mode `m` does with interlaced input.
InterlacedInput interlaced_input(Mode m);

// "" when `m` filters interlaced input field by field; else why it refuses, for
// the caller to put after its own words on the input, e.g. "--mode " + it or
// "mode=" + it: "nlm3d filters whole frames ... deinterlace it first (HOW) or
// use a per-frame mode (pipd, hybrid, bm3d), which filters each field apart".
// `how_to_deinterlace` (may be empty) names the caller's deinterlacer.
std::string interlaced_refusal(Mode m, const std::string& how_to_deinterlace = "");

// Whether a frame of `height` lines of `format` splits into two fields that
// are frames of the format: an even height, and for 4:2:0 a multiple of 4 (its
// chroma lines alternate between the fields too).
bool fields_fit(PixelFormat format, int height);
// "" when they fit; else "a height (H) whose chroma lines do not split evenly
// into two fields", for the caller to put after "... is interlaced with ".
std::string fields_misfit(PixelFormat format, int height);

// One field of an interlaced frame as a frame of half the height: every other
// line of each plane (parity 0: the top field, lines 0, 2, 4, ...; 1: the
// bottom field), the same memory (host or device), no copy. Throws
// InvalidArgument when the fields do not fit (fields_fit) or parity is not 0 or 1.
FrameView field_view(const FrameView& frame, int parity);

}  // namespace cdn
