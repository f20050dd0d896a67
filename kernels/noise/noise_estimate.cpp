// noise_estimate.cpp: one frame's automatic sigma (noise_estimate.h).
#include "cudadenoise/noise_estimate.h"

#include <cmath>

#include "cudadenoise/error.h"
#include "cudadenoise/noise_level.h"
#include "cudadenoise/noise_tracker.h"

namespace cdn {

double estimate_noise_sigma(const PlaneView& p) {
  if (p.memory != MemoryKind::Host) throw InvalidArgument("estimate_noise_sigma needs a host plane");
  const NoiseLevel l = estimate_noise_level(p);
  return l.usable ? l.sigma : 0.0;
}

std::vector<double> component_sigmas(const FrameView& frame, double given) {
  // A given sigma only changes units: any frame, on the host or a device.
  if (given > 0) return in_code_values(std::vector<double>(components(frame).size(), given), frame.format);
  if (frame.memory != MemoryKind::Host) throw InvalidArgument("component_sigmas estimates from a host frame");
  // One frame through a fresh tracker: its estimate, floored, or the default.
  NoiseTrackerSettings s;
  s.budget = kNoiseDefaultBudget;  // a single frame: the whole-plane budget
  NoiseLevelOptions defaults;
  s.max_selected = defaults.max_selected;
  NoiseTracker t(s);
  t.observe(frame);
  return t.sigma_code_values();
}

double luma_sigma(const FrameView& frame, double given) { return component_sigmas(frame, given)[0]; }

}  // namespace cdn
