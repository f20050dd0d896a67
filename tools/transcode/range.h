// range.h: one piece of a longer job (--range A:B): which frames the piece
// decodes, filters and writes. The video's frames are numbered 0.. in
// presentation order, as the decoder gives them; frame i is found by its
// timestamp, from an index of every video packet's pts (a scan of the packets,
// no decoding; packets marked discard, outside an MP4 edit list, give no frame).
// Output frame t of a temporal mode reads input frames t - before .. t + after
// (the library's cdn::temporal_reach, temporal_reach.h), so the piece decodes
// and filters the context [max(0, A - before), min(N, B + after)) and writes only [A, B): each written frame then sees exactly the frames it
// sees in a run over the whole video, clamped at the video's own ends only.
#pragma once

#include <cstdint>
#include <vector>

#include "cudadenoise/settings.h"
#include "cudadenoise/temporal_reach.h"

namespace cdn::transcode {

class Input;

// Frames a mode reads before and after the frame it filters, as a file (not a
// live source) runs it: the library's temporal_reach (0, 0 for the per-frame
// modes), and 0, 0 without denoising.
using Reach = TemporalReach;
Reach context_reach(const DenoiseSettings& s, bool denoise);

struct RangePlan {
  std::vector<std::int64_t> pts;  // every frame's timestamp (video time base), presentation order
  std::int64_t begin = 0, end = 0;                  // written: [begin, end)
  std::int64_t context_begin = 0, context_end = 0;  // decoded and filtered
  std::int64_t frames() const { return static_cast<std::int64_t>(pts.size()); }
};

// Reads every video packet of `input` (other streams are discarded from then
// on) and plans [begin, end). Throws Failure(kExitInput) for packets without a
// timestamp, kExitUsage for a range past the video's last frame. Leaves the
// input at its end: seek before decoding.
RangePlan plan_range(Input& input, std::int64_t begin, std::int64_t end, const Reach& reach);

// Seeks `input` to the keyframe at or before video timestamp `pts`; throws Failure(kExitInput).
void seek_video(Input& input, std::int64_t pts);

}  // namespace cdn::transcode
