// vbm3d_mode.cpp: the registration (mode_spec.h) of vbm3d, video BM3D (Dabov,
// Foi, Egiazarian 2007; docs/VBM3D.md): its window, its causal form (the
// registry's resolved window, to vbm3d_params) and the check of its resolved profile.
#include <string>
#include <vector>

#include "core/mode_spec.h"
#include "cudadenoise/error.h"
#include "vbm3d/vbm3d_window.h"

namespace cdn {

namespace {

// The resolved profile's first problem (vbm3d_params.h), in the centred window
// (the causal one's are found when its filter is made).
void check_vbm3d(const DenoiseSettings& s, std::vector<std::string>* problems) {
  try {
    validate(vbm3d_params(s.vbm3d, false));
  } catch (const InvalidArgument& e) {
    problems->push_back(e.what());
  }
}

WindowShape window(const DenoiseSettings& s, bool causal) {
  return vbm3d_window_shape(vbm3d_params(s.vbm3d, causal), s.vbm3d.chunk);
}
bool causal_possible(const DenoiseSettings&) { return true; }

std::unique_ptr<WindowFilter> cpu_filter(const DenoiseSettings& s, bool causal, PixelFormat format) {
  return make_vbm3d_cpu_window(vbm3d_params(s.vbm3d, causal), format);
}
#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> cuda_filter(const DenoiseSettings& s, bool causal, PixelFormat format, int device) {
  return make_vbm3d_cuda_window(vbm3d_params(s.vbm3d, causal), format, device);
}
#endif

// Indexed by Vbm3dProfile's value (the vbm3d-profile parameter's choices).
constexpr const char* kVbm3dProfileNames[] = {"quality", "fast", "paper", "wide", nullptr};
// The values -1 (the profile's) .. 2 of vbm3d-aggregation (Vbm3dAggregation's from 0).
constexpr const char* kVbm3dAggregationNames[] = {"profile", "frame", "reference", "group", nullptr};

// The mode's rows of the parameter table (settings.h).
std::vector<ParamSpec> params() {
  return {
      {ParamGroup::Vbm3d, "vbm3d-profile",
       "V-BM3D profile: quality (the default), fast (one phase, fewer frames), paper (Dabov et al. 2007 as far as "
       "ours expresses it: no motion), wide (39x39 windows in the frame itself in both phases at step 3: "
       "slower than quality); the vbm3d-* parameters below override it (docs/VBM3D.md)",
       true, 0, 3, 0, [](const DenoiseSettings& s) { return double(s.vbm3d.profile); },
       [](DenoiseSettings& s, double v) { s.vbm3d.profile = int(v); }, nullptr, 0, kVbm3dProfileNames},
      {ParamGroup::Vbm3d, "vbm3d-radius",
       "V-BM3D frames searched before and after each frame, both phases; -1 or profile: the profile's (window=causal: "
       "twice the profile's, all before)", true, -1, kMaxVbm3dRadius,
       -1, [](const DenoiseSettings& s) { return double(s.vbm3d.radius); },
       [](DenoiseSettings& s, double v) { s.vbm3d.radius = int(v); }, "profile", kProfileValue},
      {ParamGroup::Vbm3d, "vbm3d-step",
       "V-BM3D pixels between reference patches, both phases; -1 or profile: the profile's", true, -1, 8, -1,
       [](const DenoiseSettings& s) { return double(s.vbm3d.step); },
       [](DenoiseSettings& s, double v) { s.vbm3d.step = int(v); }, "profile", kProfileValue},
      {ParamGroup::Vbm3d, "vbm3d-window",
       "V-BM3D side of the search window in the frame itself, odd; -1 or profile: the profile's", true, -1, 63, -1,
       [](const DenoiseSettings& s) { return double(s.vbm3d.window); },
       [](DenoiseSettings& s, double v) { s.vbm3d.window = int(v); }, "profile", kProfileValue},
      {ParamGroup::Vbm3d, "vbm3d-predictive",
       "V-BM3D side of the search window around each followed match in the other frames, odd; -1 or profile: the "
       "profile's",
       true, -1, 15, -1, [](const DenoiseSettings& s) { return double(s.vbm3d.predictive); },
       [](DenoiseSettings& s, double v) { s.vbm3d.predictive = int(v); }, "profile", kProfileValue},
      {ParamGroup::Vbm3d, "vbm3d-seeds",
       "V-BM3D matches followed from frame to frame; -1 or profile: the profile's", true, -1, 8, -1,
       [](const DenoiseSettings& s) { return double(s.vbm3d.seeds); },
       [](DenoiseSettings& s, double v) { s.vbm3d.seeds = int(v); }, "profile", kProfileValue},
      {ParamGroup::Vbm3d, "vbm3d-phases",
       "V-BM3D phases: 2 = hard thresholding then Wiener, 1 = basic estimate only; -1 or profile: the profile's",
       true, -1, 2, -1, [](const DenoiseSettings& s) { return double(s.vbm3d.phases); },
       [](DenoiseSettings& s, double v) { s.vbm3d.phases = int(v); }, "profile", kProfileValue},
      {ParamGroup::Vbm3d, "vbm3d-motion",
       "V-BM3D: 2 = the search follows the motion estimated between frames, the Wiener phase's on the basic "
       "estimates; 1 = both phases' on the noisy frames; 0 = no motion (the paper); -1 or profile: the profile's",
       true, -1, 2, -1, [](const DenoiseSettings& s) { return double(s.vbm3d.motion); },
       [](DenoiseSettings& s, double v) { s.vbm3d.motion = int(v); }, "profile", kProfileValue},
      {ParamGroup::Vbm3d, "vbm3d-aggregation",
       "V-BM3D: where the filtered patches of a group go: group = every patch into the frame it came from "
       "(the paper's; a frame also gathers its neighbours' groups, the reach doubles), frame = those of the "
       "reference's frame, reference = the reference alone; profile: the profile's (docs/VBM3D.md); the causal "
       "window takes frame",
       true, -1, 2, -1, [](const DenoiseSettings& s) { return double(s.vbm3d.aggregation); },
       [](DenoiseSettings& s, double v) { s.vbm3d.aggregation = int(v); }, nullptr, 0, kVbm3dAggregationNames},
      {ParamGroup::Vbm3d, "vbm3d-chunk",
       "V-BM3D frames filtered per batch in the centred window (the output never depends on it; the causal "
       "window: 1)",
       true, 1, 500, 50, [](const DenoiseSettings& s) { return double(s.vbm3d.chunk); },
       [](DenoiseSettings& s, double v) { s.vbm3d.chunk = int(v); }},
  };
}

}  // namespace

const ModeSpec& vbm3d_mode() {
  static const ModeSpec spec{Mode::Vbm3d,
                             "vbm3d",
                             "video BM3D: groups from the frame and its neighbours, the search following the motion "
                             "(recorded video: best quality; window=causal for live sources)",
                             {ParamGroup::Vbm3d},
                             params(),
                             true,
                             window,
                             causal_possible,
                             check_vbm3d,
                             cpu_filter,
#ifdef CDN_HAVE_CUDA
                             cuda_filter,
#endif
  };
  return spec;
}

}  // namespace cdn
