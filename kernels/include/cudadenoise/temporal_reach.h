// temporal_reach.h: how far a mode's window reaches, for callers that plan
// around it (the transcode tool's --range decodes these extra frames on each
// side of a piece so that its frames are filtered as in a run over the whole
// video). The library's own answer (the window each mode's settings give), so
// a caller never includes the private temporal headers.
#pragma once

#include "cudadenoise/settings.h"

namespace cdn {

// Output frame t reads input frames t - before .. t + after (clamped to the
// stream's ends).
struct TemporalReach {
  int before = 0;
  int after = 0;
};

// The reach of `s` as a stream runs it: window=auto resolved for a live source
// or not (resolve_window: causal reads no frame after). 0, 0 for a per-frame
// mode. Throws InvalidArgument where resolve_window does (window=causal for a
// mode without a causal form).
TemporalReach temporal_reach(const DenoiseSettings& s, bool live_source);

}  // namespace cdn
