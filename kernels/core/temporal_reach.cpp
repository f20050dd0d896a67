// temporal_reach.cpp: a mode's window reach from its settings (temporal_reach.h).
#include "cudadenoise/temporal_reach.h"

#include "stream/window_filter.h"

namespace cdn {

TemporalReach temporal_reach(const DenoiseSettings& s, bool live_source) {
  if (!is_temporal(s.mode)) return {};
  DenoiseSettings resolved = s;
  resolved.window = resolve_window(s, live_source);
  const WindowShape w = window_shape(resolved);
  return {w.before, w.after};
}

}  // namespace cdn
