// noise_profile.h: a noise profile file (issue 37; docs/NOISE.md, "Noise
// profile file"): the signal-dependent noise model of each plane (noise_model.h),
// measured once (on a flat shot, say) and given back to the element
// (noise-profile=FILE) or the tools (--noise-profile FILE) to use instead of an
// estimate. JSON through nlohmann-json:
//
//   {"format": "cudadenoise-noise-profile", "version": 1,
//    "planes": [{"a": 0.5, "b": 4.0, "curve": [[x, sigma], ...]}, ...]}
//
// Planes in the frame's component order (Y, U, V); 8-bit code values; "curve"
// is the free noise level function (x increasing, sigma > 0) and may be empty
// (the affine model alone). Reading checks everything and says what is wrong.
#pragma once

#include <string>
#include <vector>

#include "cudadenoise/noise_model.h"

namespace cdn {

struct NoiseProfile {
  std::vector<NoiseModel> planes;
};

std::string noise_profile_to_json(const NoiseProfile& profile);
// Throws InvalidArgument naming what is wrong (the field, the plane, the value).
NoiseProfile noise_profile_from_json(const std::string& text);

// The file forms; `save` writes a temporary beside `path` and renames it.
// Both throw InvalidArgument with the path and the reason.
void save_noise_profile(const NoiseProfile& profile, const std::string& path);
NoiseProfile load_noise_profile(const std::string& path);

}  // namespace cdn
