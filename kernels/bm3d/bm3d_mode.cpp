// bm3d_mode.cpp: the registration (mode_spec.h) of bm3d, two-phase BM3D per
// frame (bm3d-gpu-honzatko-krulis-2017; docs/BM3D.md), and the checks of its
// parameters.
#include <string>
#include <utility>
#include <vector>

#include "bm3d/bm3d_filter.h"
#include "core/mode_spec.h"

namespace cdn {

namespace {

// Indexed by Bm3dProfile's value (the bm3d-profile parameter's choices).
constexpr const char* kBm3dProfileNames[] = {"paper", "reference", "fast", "balanced", "quick", "rapid", "draft", nullptr};

// The problems of the bm3d-* values a range cannot express. 0 took the
// profile's value until 2026-11-29; kProfileValue (-1) does now, as for
// vbm3d-*, and 0 is refused with a message that says so rather than read as
// something else.
void check_bm3d(const DenoiseSettings& s, std::vector<std::string>* problems) {
  const Bm3dSettings& b = s.bm3d;
  const std::pair<const char*, int> overrides[] = {
      {"bm3d-step", b.step}, {"bm3d-window", b.window}, {"bm3d-phases", b.phases},
      {"bm3d-group1", b.group1}, {"bm3d-group2", b.group2}};
  for (const auto& [name, v] : overrides)
    if (v == 0)
      problems->push_back(std::string(name) + " = 0 is invalid: the profile's value is -1 or profile (0 no longer "
                                               "means the profile's)");
  if (b.window > 0 && b.window % 2 == 0)
    problems->push_back("bm3d-window = " + std::to_string(b.window) + " is invalid: expected an odd number");
  for (int n : {b.group1, b.group2})
    if (n > 0 && n != 8 && n != 16 && n != 32) {
      problems->push_back("bm3d-group1/bm3d-group2 = " + std::to_string(n) +
                          " is invalid: expected -1 (the profile's), 8, 16 or 32");
      break;
    }
}

// The mode's rows of the parameter table (settings.h).
std::vector<ParamSpec> params() {
  return {
      {ParamGroup::Bm3d, "bm3d-profile",
       "BM3D profile: paper (the GPU paper's: DCT in both phases), reference (Dabov et al.'s reference "
       "implementation: biorthogonal 1.5 then DCT, Haar across the group; docs/BM3D.md), fast (paper, step 8, window "
       "19, basic estimate only), balanced (reference with 8-bit block matching: the same quality, faster), quick, "
       "rapid, draft (balanced with less search, faster in that order; docs/BM3D.md)",
       true, 0, 6, 0, [](const DenoiseSettings& s) { return double(static_cast<int>(s.bm3d.profile)); },
       [](DenoiseSettings& s, double v) { s.bm3d.profile = static_cast<Bm3dProfile>(int(v)); }, nullptr, 0,
       kBm3dProfileNames},
      {ParamGroup::Bm3d, "bm3d-step", "BM3D pixels between reference patches, both phases; -1 or profile: the profile's (paper: 3, fast: 8)",
       true, -1, 8, kProfileValue, [](const DenoiseSettings& s) { return double(s.bm3d.step); },
       [](DenoiseSettings& s, double v) { s.bm3d.step = int(v); }, "profile", kProfileValue},
      {ParamGroup::Bm3d, "bm3d-window",
       "BM3D side of the search window in pixels, odd; -1 or profile: the profile's (paper: 39, fast: 19)", true, -1, 63,
       kProfileValue,
       [](const DenoiseSettings& s) { return double(s.bm3d.window); },
       [](DenoiseSettings& s, double v) { s.bm3d.window = int(v); }, "profile", kProfileValue},
      {ParamGroup::Bm3d, "bm3d-phases",
       "BM3D phases: 2 = hard thresholding then Wiener, 1 = basic estimate only; -1 or profile: the profile's (paper: 2, "
       "fast: 1)",
       true, -1, 2, kProfileValue, [](const DenoiseSettings& s) { return double(s.bm3d.phases); },
       [](DenoiseSettings& s, double v) { s.bm3d.phases = int(v); }, "profile", kProfileValue},
      {ParamGroup::Bm3d, "bm3d-group1",
       "BM3D largest group (N) of phase 1: 8, 16 or 32; -1 or profile: the profile's (paper: 16)", true, -1, 32,
       kProfileValue, [](const DenoiseSettings& s) { return double(s.bm3d.group1); },
       [](DenoiseSettings& s, double v) { s.bm3d.group1 = int(v); }, "profile", kProfileValue},
      {ParamGroup::Bm3d, "bm3d-group2",
       "BM3D largest group (N) of phase 2: 8, 16 or 32; -1 or profile: the profile's (paper: 32)", true, -1, 32,
       kProfileValue, [](const DenoiseSettings& s) { return double(s.bm3d.group2); },
       [](DenoiseSettings& s, double v) { s.bm3d.group2 = int(v); }, "profile", kProfileValue},
  };
}

}  // namespace

const char* bm3d_profile_name(Bm3dProfile p) { return kBm3dProfileNames[static_cast<int>(p)]; }

const ModeSpec& bm3d_mode() {
  static const ModeSpec spec{Mode::Bm3d,
                             "bm3d",
                             "two-phase BM3D, per frame (the default; its profile sets speed against quality)",
                             {ParamGroup::Bm3d},
                             params(),
                             true,
                             nullptr,
                             nullptr,
                             check_bm3d,
                             make_bm3d_cpu_filter,
#ifdef CDN_HAVE_CUDA
                             make_bm3d_cuda_filter,
#endif
  };
  return spec;
}

}  // namespace cdn
