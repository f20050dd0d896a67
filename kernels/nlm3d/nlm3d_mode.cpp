// nlm3d_mode.cpp: the registration (mode_spec.h) of nlm3d, 3D non-local means
// over a temporal window (nlm3d-gpu-cuomo-2014; docs/NLM3D.md): its window,
// its causal form (2D patches only) and the checks of its parameters.
#include <sstream>
#include <string>
#include <vector>

#include "core/mode_spec.h"
#include "nlm3d/nlm3d_window.h"

namespace cdn {

namespace {

std::string format_value(double v) {
  std::ostringstream m;
  m << v;
  return m.str();
}

// NLM-3D's parameters against patch-shape=cube, the papers' similarity cube: one
// problem naming every value that needs 2D patches, whatever order they were set in.
void check_nlm_cube(const DenoiseSettings& s, std::vector<std::string>* problems) {
  const NlmSettings& n = s.nlm;
  if (n.patch_shape != NlmPatchShape::Cube) return;
  std::vector<std::string> conflicts;
  if (n.patch_radius > 3) conflicts.push_back("patch-radius = " + std::to_string(n.patch_radius) + " (a cube: 0 to 3)");
  if (n.neighbour_search_radius >= 0 && n.neighbour_search_radius != n.search_radius)
    conflicts.push_back("neighbour-search-radius = " + std::to_string(n.neighbour_search_radius) +
                        " (the papers' search cube has one radius: same)");
  if (n.motion_search) conflicts.push_back("motion-search=on (a cube's frames would each need their own vector)");
  if (n.frame_confidence > 0)
    conflicts.push_back("frame-confidence = " + format_value(n.frame_confidence) +
                        " (it compares one frame's 2D patches with another's)");
  if (s.mode == Mode::Nlm3d && s.window == TemporalWindow::Causal)
    conflicts.push_back("window=causal (a cube spans later frames)");
  if (conflicts.empty()) return;
  std::string m = "patch-shape=cube conflicts with ";
  for (std::size_t i = 0; i < conflicts.size(); i++) m += (i ? ", " : "") + conflicts[i];
  m += ": set those too (the papers' cubes: patch-radius=1 neighbour-search-radius=same motion-search=off "
       "frame-confidence=0), or patch-shape=2d";
  problems->push_back(m);
}
void check_nlm(const DenoiseSettings& s, std::vector<std::string>* problems) {
  check_nlm_cube(s, problems);
  if (s.nlm.neighbour_search_radius == 0 && !s.nlm.motion_search)
    problems->push_back("neighbour-search-radius = 0 compares each pixel with itself in the other frames: "
                        "use it with motion-search=on, or a radius of 1 or more");
  if (s.nlm.confidence_cell % 16 != 0)
    problems->push_back("confidence-cell = " + std::to_string(s.nlm.confidence_cell) +
                        " is invalid: expected a multiple of 16");
}

WindowShape window(const DenoiseSettings& s, bool causal) { return nlm3d_window_shape(nlm_params(s.nlm, causal)); }
// A cube spans later frames: the causal window takes 2D patches only.
bool causal_possible(const DenoiseSettings& s) { return s.nlm.patch_shape == NlmPatchShape::Planar; }

std::unique_ptr<WindowFilter> cpu_filter(const DenoiseSettings& s, bool causal, PixelFormat format) {
  return make_nlm3d_cpu_window(nlm_params(s.nlm, causal), format);
}
#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> cuda_filter(const DenoiseSettings& s, bool causal, PixelFormat format, int device) {
  const int filtered = s.planes == PlaneSelection::All ? format_info(format).components : 1;
  return make_nlm3d_cuda_window(nlm_params(s.nlm, causal), format, filtered, device);
}
#endif

const char* const kPatchShapeNames[] = {"cube", "2d", nullptr};
const char* const kOffOn[] = {"off", "on", nullptr};

// The mode's rows of the parameter table (settings.h).
std::vector<ParamSpec> params() {
  return {
      {ParamGroup::Nlm, "search-radius", "NLM-3D spatial search radius R in frame t: (2R+1)^2 candidates (paper: 5, an 11^3 cube)", true,
       1, 10, 3, [](const DenoiseSettings& s) { return double(s.nlm.search_radius); },
       [](DenoiseSettings& s, double v) { s.nlm.search_radius = int(v); }},
      {ParamGroup::Nlm, "temporal-radius", "NLM-3D frames searched before and after each frame (before only with window=causal; paper: 5)", true, 0, 10, 4,
       [](const DenoiseSettings& s) { return double(s.nlm.temporal_radius); },
       [](DenoiseSettings& s, double v) { s.nlm.temporal_radius = int(v); }},
      {ParamGroup::Nlm, "neighbour-search-radius",
       "NLM-3D spatial search radius in the other frames t+-1..t+-Rt (not in the paper: its cube has one radius); -1 or "
       "same: search-radius",
       true, -1, 10, 2, [](const DenoiseSettings& s) { return double(s.nlm.neighbour_search_radius); },
       [](DenoiseSettings& s, double v) { s.nlm.neighbour_search_radius = int(v); }, "same", -1.0},
      {ParamGroup::Nlm, "patch-radius", "NLM-3D patch radius r: (2r+1)^2 per frame, over 2r+1 frames for the cube (paper: 1, a 3^3 cube; cube up to 3, 2d up to 4)", true, 0, 4, 4,
       [](const DenoiseSettings& s) { return double(s.nlm.patch_radius); },
       [](DenoiseSettings& s, double v) { s.nlm.patch_radius = int(v); }},
      {ParamGroup::Nlm, "patch-shape", "NLM-3D patch: cube = (2r+1)^3 spanning frames (paper); 2d = one frame's (2r+1)^2 patch compared with the other frames' (follows motion)",
       true, 0, 1, 1, [](const DenoiseSettings& s) { return double(static_cast<int>(s.nlm.patch_shape)); },
       [](DenoiseSettings& s, double v) { s.nlm.patch_shape = static_cast<NlmPatchShape>(int(v)); }, nullptr, 0,
       kPatchShapeNames},
      {ParamGroup::Nlm, "motion-search", "NLM-3D: centre the search window in each other frame on the motion vector towards it (not in the paper; patch-shape=2d; the streams estimate the motion)",
       true, 0, 1, 1, [](const DenoiseSettings& s) { return s.nlm.motion_search ? 1.0 : 0.0; },
       [](DenoiseSettings& s, double v) { s.nlm.motion_search = v != 0; }, nullptr, 0, kOffOn},
      {ParamGroup::Nlm, "distance-offset", "NLM-3D: weigh patches by their distance less the noise's expected share, 2 sigma^2 per sample (IPOL NLM; not in the paper)",
       true, 0, 1, 1, [](const DenoiseSettings& s) { return s.nlm.distance_offset ? 1.0 : 0.0; },
       [](DenoiseSettings& s, double v) { s.nlm.distance_offset = v != 0; }, nullptr, 0, kOffOn},
      {ParamGroup::Nlm, "frame-confidence",
       "NLM-3D: weigh each other frame's candidates, per cell, by how well that frame matches frame t there "
       "(exp(-E / (c^2 sigma^2 |patch|)), E the excess of its best patch distance over frame t's own; not in the paper; "
       "patch-shape=2d); c, 0 = off",
       false, 0.0, 10.0, 0.5, [](const DenoiseSettings& s) { return s.nlm.frame_confidence; },
       [](DenoiseSettings& s, double v) { s.nlm.frame_confidence = v; }},
      {ParamGroup::Nlm, "confidence-cell", "NLM-3D frame-confidence's cells, in luma pixels (a multiple of 16)", true, 16, 256, 32,
       [](const DenoiseSettings& s) { return double(s.nlm.confidence_cell); },
       [](DenoiseSettings& s, double v) { s.nlm.confidence_cell = int(v); }},
      {ParamGroup::Nlm, "self-weight-floor",
       "NLM-3D: the self weight is the largest weight of the other candidates (the paper's rule, 0) or this floor, "
       "whichever is larger: a pixel that no candidate matches within the noise is kept (not in the paper)",
       false, 0.0, 1.0, 0.01, [](const DenoiseSettings& s) { return s.nlm.self_weight_floor; },
       [](DenoiseSettings& s, double v) { s.nlm.self_weight_floor = v; }},
      {ParamGroup::Nlm, "nlm-beta", "NLM-3D filter parameter beta in h^2 = 2 beta sigma^2 |patch| (paper's cubes: 0.4; the strength knob scales sigma for every mode)", false, 0.05, 20.0, 0.2,
       [](const DenoiseSettings& s) { return s.nlm.beta; }, [](DenoiseSettings& s, double v) { s.nlm.beta = v; }},
      {ParamGroup::Nlm, "chunk-size", "NLM-3D frames filtered per batch (the output never depends on it; 1 with window=causal)", true, 1, 500, 50,
       [](const DenoiseSettings& s) { return double(s.nlm.chunk_size); },
       [](DenoiseSettings& s, double v) { s.nlm.chunk_size = int(v); }},
  };
}

}  // namespace

const ModeSpec& nlm3d_mode() {
  static const ModeSpec spec{Mode::Nlm3d,
                             "nlm3d",
                             "3D non-local means over a temporal window (quality mode for video)",
                             {ParamGroup::Nlm},
                             params(),
                             true,
                             window,
                             causal_possible,
                             check_nlm,
                             cpu_filter,
#ifdef CDN_HAVE_CUDA
                             cuda_filter,
#endif
  };
  return spec;
}

}  // namespace cdn
