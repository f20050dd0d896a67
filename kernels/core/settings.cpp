// settings.cpp: names, the parameter table and validation (settings.h).
#include "cudadenoise/settings.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "cudadenoise/error.h"

namespace cdn {

namespace {
template <typename E>
struct Named {
  E value;
  const char* name;
};
constexpr Named<Mode> kModes[] = {
    {Mode::Pipd, "pipd"}, {Mode::Hybrid, "hybrid"}, {Mode::Nlm3d, "nlm3d"}, {Mode::Bm3d, "bm3d"},
    {Mode::Vbm3d, "vbm3d"}};
constexpr Named<Backend> kBackends[] = {{Backend::Auto, "auto"}, {Backend::Cuda, "cuda"}, {Backend::Cpu, "cpu"}};
constexpr Named<PlaneSelection> kPlanes[] = {{PlaneSelection::Luma, "luma"}, {PlaneSelection::All, "all"}};
// Indexed by Bm3dProfile's value (the bm3d-profile parameter's choices).
constexpr const char* kBm3dProfileNames[] = {"paper", "reference", "fast", "balanced", "quick", "rapid", "draft", nullptr};
// Indexed by Vbm3dProfile's value (the vbm3d-profile parameter's choices).
constexpr const char* kVbm3dProfileNames[] = {"quality", "fast", "paper", "wide", nullptr};
// The values -1 (the profile's) .. 2 of vbm3d-aggregation (Vbm3dAggregation's from 0).
constexpr const char* kVbm3dAggregationNames[] = {"profile", "frame", "reference", "group", nullptr};
// Indexed by TemporalWindow's value (the window parameter's choices).
constexpr const char* kWindowNames[] = {"auto", "centred", "causal", nullptr};

template <typename E, std::size_t N>
const char* name_of(const Named<E> (&table)[N], E v) {
  for (const auto& n : table)
    if (n.value == v) return n.name;
  return "?";
}
template <typename E, std::size_t N>
bool parse_in(const Named<E> (&table)[N], const std::string& s, E* out) {
  for (const auto& n : table)
    if (s == n.name) {
      *out = n.value;
      return true;
    }
  return false;
}
}  // namespace

const char* mode_name(Mode m) { return name_of(kModes, m); }
const char* bm3d_profile_name(Bm3dProfile p) { return kBm3dProfileNames[static_cast<int>(p)]; }
const char* temporal_window_name(TemporalWindow w) { return kWindowNames[static_cast<int>(w)]; }

bool uses_sigma(Mode m) { return m == Mode::Nlm3d || m == Mode::Bm3d || m == Mode::Vbm3d; }

TemporalWindow resolve_window(const DenoiseSettings& s, bool live_source) {
  if (s.window == TemporalWindow::Causal && is_temporal(s.mode) && !has_causal_window(s.mode))
    throw InvalidArgument(std::string("window = causal: mode ") + mode_name(s.mode) +
                          " has no causal window in this build (window = centred or auto)");
  if (s.window != TemporalWindow::Auto) return s.window;
  return live_source && is_temporal(s.mode) && causal_window_possible(s) ? TemporalWindow::Causal
                                                                         : TemporalWindow::Centred;
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (const auto& n : kModes) v.push_back(n.value);
  return v;
}

const char* mode_description(Mode m) {
  switch (m) {
    case Mode::Pipd: return "PI-PD isoline filter, per frame (real time)";
    case Mode::Hybrid: return "hybrid PI-PD with the edge detector, per frame (real time)";
    case Mode::Nlm3d: return "3D non-local means over a temporal window (quality mode for video)";
    case Mode::Bm3d: return "two-phase BM3D, per frame (offline: best quality, a few frames per second)";
    case Mode::Vbm3d:
      return "video BM3D: groups from the frame and its neighbours, the search following the motion (recorded video: "
             "best quality; window=causal for live sources)";
  }
  return "?";
}

bool param_group_applies(ParamGroup g, Mode m) {
  switch (g) {
    case ParamGroup::Pipd: return m == Mode::Pipd || m == Mode::Hybrid;
    case ParamGroup::Hybrid: return m == Mode::Hybrid;
    case ParamGroup::Nlm: return m == Mode::Nlm3d;
    case ParamGroup::Bm3d: return m == Mode::Bm3d;
    case ParamGroup::Noise: return uses_sigma(m);
    case ParamGroup::Vbm3d: return m == Mode::Vbm3d;
    case ParamGroup::Temporal: return is_temporal(m);
  }
  return false;
}
bool parse_mode(const std::string& s, Mode* out) { return parse_in(kModes, s, out); }
const char* backend_name(Backend b) { return name_of(kBackends, b); }
bool parse_backend(const std::string& s, Backend* out) { return parse_in(kBackends, s, out); }
const char* planes_name(PlaneSelection p) { return name_of(kPlanes, p); }
bool parse_planes(const std::string& s, PlaneSelection* out) { return parse_in(kPlanes, s, out); }

const char* patch_shape_name(NlmPatchShape s) { return s == NlmPatchShape::Cube ? "cube" : "2d"; }

bool operator==(const NlmParams& a, const NlmParams& b) {
  return a.search_radius == b.search_radius && a.temporal_radius == b.temporal_radius &&
         a.neighbour_search_radius == b.neighbour_search_radius &&
         a.patch_radius == b.patch_radius && a.patch_shape == b.patch_shape && a.motion_search == b.motion_search &&
         a.distance_offset == b.distance_offset && a.causal == b.causal &&
         a.frame_confidence == b.frame_confidence && a.confidence_cell == b.confidence_cell &&
         a.self_weight_floor == b.self_weight_floor && a.strength == b.strength && a.chunk_size == b.chunk_size;
}

namespace {
const char* const kPatchShapeNames[] = {"cube", "2d", nullptr};
const char* const kOffOn[] = {"off", "on", nullptr};
}  // namespace

const std::vector<ParamSpec>& param_specs() {
  static const std::vector<ParamSpec> specs = {
      {ParamGroup::Pipd, "segment-length", "PI-PD segment length l in pixels (paper: 5)", true, 2, 8, 5,
       [](const DenoiseSettings& s) { return double(s.pipd.segment_length); },
       [](DenoiseSettings& s, double v) { s.pipd.segment_length = int(v); }},
      {ParamGroup::Pipd, "max-length", "PI-PD maximum isoline length n in pixels (paper: 25); isolines grow by whole segments up to it: "
       "floor(n / segment-length) segments, at least one", true,
       2, 64, 25, [](const DenoiseSettings& s) { return double(s.pipd.max_length); },
       [](DenoiseSettings& s, double v) { s.pipd.max_length = int(v); }},
      {ParamGroup::Pipd, "tmax", "PI-PD GLRT threshold Tmax for lengthening an isoline (paper: 1)", false, 0.0, 100.0, 1.0,
       [](const DenoiseSettings& s) { return s.pipd.tmax; }, [](DenoiseSettings& s, double v) { s.pipd.tmax = v; }},
      {ParamGroup::Hybrid, "t2max", "Hybrid PI-PD's edge-detector GLRT threshold T2max (paper: 2)", false, 0.0, 100.0, 2.0,
       [](const DenoiseSettings& s) { return s.pipd.t2max; },
       [](DenoiseSettings& s, double v) { s.pipd.t2max = v; }},
      {ParamGroup::Pipd, "thickness", "PI-PD isoline thickness in pixels, 1 or 3", true, 1, 3, 1,
       [](const DenoiseSettings& s) { return double(s.pipd.thickness); },
       [](DenoiseSettings& s, double v) { s.pipd.thickness = int(v); }},
      {ParamGroup::Pipd, "direction-prefilter",
       "PI-PD: passes of a 3x3 binomial filter over the copy on which stage 1 picks isoline directions; 0 = the "
       "noisy frame, as in the paper (an addition of ours: docs/PIPD.md)",
       true, 0, 2, 0, [](const DenoiseSettings& s) { return double(s.pipd.direction_prefilter); },
       [](DenoiseSettings& s, double v) { s.pipd.direction_prefilter = int(v); }},
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
       [](const DenoiseSettings& s) { return s.nlm.strength; }, [](DenoiseSettings& s, double v) { s.nlm.strength = v; }},
      {ParamGroup::Nlm, "chunk-size", "NLM-3D frames filtered per batch (the output never depends on it; 1 with window=causal)", true, 1, 500, 50,
       [](const DenoiseSettings& s) { return double(s.nlm.chunk_size); },
       [](DenoiseSettings& s, double v) { s.nlm.chunk_size = int(v); }},
      {ParamGroup::Bm3d, "bm3d-profile",
       "BM3D profile: paper (the GPU paper's: DCT in both phases), reference (Dabov et al.'s reference "
       "implementation: biorthogonal 1.5 then DCT, Haar across the group; docs/BM3D.md), fast (paper, step 8, window "
       "19, basic estimate only), balanced (reference with 8-bit block matching: the same quality, faster), quick, "
       "rapid, draft (balanced with less search, faster in that order; docs/BM3D.md)",
       true, 0, 6, 0, [](const DenoiseSettings& s) { return double(static_cast<int>(s.bm3d.profile)); },
       [](DenoiseSettings& s, double v) { s.bm3d.profile = static_cast<Bm3dProfile>(int(v)); }, nullptr, 0,
       kBm3dProfileNames},
      {ParamGroup::Bm3d, "bm3d-step", "BM3D pixels between reference patches, both phases; 0 or profile: the profile's (paper: 3, fast: 8)",
       true, 0, 8, 0, [](const DenoiseSettings& s) { return double(s.bm3d.step); },
       [](DenoiseSettings& s, double v) { s.bm3d.step = int(v); }, "profile", 0.0},
      {ParamGroup::Bm3d, "bm3d-window",
       "BM3D side of the search window in pixels, odd; 0 or profile: the profile's (paper: 39, fast: 19)", true, 0, 63, 0,
       [](const DenoiseSettings& s) { return double(s.bm3d.window); },
       [](DenoiseSettings& s, double v) { s.bm3d.window = int(v); }, "profile", 0.0},
      {ParamGroup::Bm3d, "bm3d-phases",
       "BM3D phases: 2 = hard thresholding then Wiener, 1 = basic estimate only; 0 or profile: the profile's (paper: 2, "
       "fast: 1)",
       true, 0, 2, 0, [](const DenoiseSettings& s) { return double(s.bm3d.phases); },
       [](DenoiseSettings& s, double v) { s.bm3d.phases = int(v); }, "profile", 0.0},
      {ParamGroup::Bm3d, "bm3d-group1",
       "BM3D largest group (N) of phase 1: 8, 16 or 32; 0 or profile: the profile's (paper: 16)", true, 0, 32,
       0, [](const DenoiseSettings& s) { return double(s.bm3d.group1); },
       [](DenoiseSettings& s, double v) { s.bm3d.group1 = int(v); }, "profile", 0.0},
      {ParamGroup::Bm3d, "bm3d-group2",
       "BM3D largest group (N) of phase 2: 8, 16 or 32; 0 or profile: the profile's (paper: 32)", true, 0, 32,
       0, [](const DenoiseSettings& s) { return double(s.bm3d.group2); },
       [](DenoiseSettings& s, double v) { s.bm3d.group2 = int(v); }, "profile", 0.0},
      {ParamGroup::Vbm3d, "vbm3d-profile",
       "V-BM3D profile: quality (the default), fast (one phase, fewer frames), paper (Dabov et al. 2007 as far as "
       "ours expresses it: no motion), wide (39x39 windows in the frame itself in both phases at step 3: 1.7x "
       "the quality profile's time at 1080p); the vbm3d-* parameters below override it (docs/VBM3D.md)",
       true, 0, 3, 0, [](const DenoiseSettings& s) { return double(s.vbm3d.profile); },
       [](DenoiseSettings& s, double v) { s.vbm3d.profile = int(v); }, nullptr, 0, kVbm3dProfileNames},
      {ParamGroup::Vbm3d, "vbm3d-radius",
       "V-BM3D frames searched before and after each frame, both phases; -1 or profile: the profile's (window=causal: "
       "twice the profile's, all before)", true, -1, kMaxVbm3dRadius,
       -1, [](const DenoiseSettings& s) { return double(s.vbm3d.radius); },
       [](DenoiseSettings& s, double v) { s.vbm3d.radius = int(v); }, "profile", -1},
      {ParamGroup::Vbm3d, "vbm3d-step",
       "V-BM3D pixels between reference patches, both phases; -1 or profile: the profile's", true, -1, 8, -1,
       [](const DenoiseSettings& s) { return double(s.vbm3d.step); },
       [](DenoiseSettings& s, double v) { s.vbm3d.step = int(v); }, "profile", -1},
      {ParamGroup::Vbm3d, "vbm3d-window",
       "V-BM3D side of the search window in the frame itself, odd; -1 or profile: the profile's", true, -1, 63, -1,
       [](const DenoiseSettings& s) { return double(s.vbm3d.window); },
       [](DenoiseSettings& s, double v) { s.vbm3d.window = int(v); }, "profile", -1},
      {ParamGroup::Vbm3d, "vbm3d-predictive",
       "V-BM3D side of the search window around each followed match in the other frames, odd; -1 or profile: the "
       "profile's",
       true, -1, 15, -1, [](const DenoiseSettings& s) { return double(s.vbm3d.predictive); },
       [](DenoiseSettings& s, double v) { s.vbm3d.predictive = int(v); }, "profile", -1},
      {ParamGroup::Vbm3d, "vbm3d-seeds",
       "V-BM3D matches followed from frame to frame; -1 or profile: the profile's", true, -1, 8, -1,
       [](const DenoiseSettings& s) { return double(s.vbm3d.seeds); },
       [](DenoiseSettings& s, double v) { s.vbm3d.seeds = int(v); }, "profile", -1},
      {ParamGroup::Vbm3d, "vbm3d-phases",
       "V-BM3D phases: 2 = hard thresholding then Wiener, 1 = basic estimate only; -1 or profile: the profile's",
       true, -1, 2, -1, [](const DenoiseSettings& s) { return double(s.vbm3d.phases); },
       [](DenoiseSettings& s, double v) { s.vbm3d.phases = int(v); }, "profile", -1},
      {ParamGroup::Vbm3d, "vbm3d-motion",
       "V-BM3D: 1 = the search follows the motion estimated between frames, 0 = it does not (the paper); -1 or "
       "profile: the profile's",
       true, -1, 1, -1, [](const DenoiseSettings& s) { return double(s.vbm3d.motion); },
       [](DenoiseSettings& s, double v) { s.vbm3d.motion = int(v); }, "profile", -1},
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
      {ParamGroup::Noise, "sigma",
       "Noise standard deviation in 8-bit code values; 0 or auto: estimated per component from every frame and "
       "tracked over time (docs/NOISE.md), never below 0.5",
       false, 0.0, 255.0, 0.0, [](const DenoiseSettings& s) { return s.sigma; },
       [](DenoiseSettings& s, double v) { s.sigma = v; }, "auto", 0.0},
      {ParamGroup::Noise, "strength",
       "Denoising strength, one unit for every mode that takes a sigma: the denoiser assumes strength x sigma "
       "(given or estimated); 1 = the noise as measured, below 1 keeps more detail, above 1 removes more",
       false, 0.1, 8.0, 1.0, [](const DenoiseSettings& s) { return s.strength; },
       [](DenoiseSettings& s, double v) { s.strength = v; }},
      {ParamGroup::Temporal, "window",
       "Temporal window: centred (past and future frames: best quality, frames of latency), causal (the current and "
       "past frames: at most one frame of latency, for live sources), auto (causal for a live source when the mode "
       "has a causal window, else centred)",
       true, 0, 2, 0, [](const DenoiseSettings& s) { return double(static_cast<int>(s.window)); },
       [](DenoiseSettings& s, double v) { s.window = static_cast<TemporalWindow>(int(v)); }, nullptr, 0,
       kWindowNames},
  };
  return specs;
}

bool param_value_from_text(const ParamSpec& spec, const std::string& text, double* out) {
  if (spec.word && text == spec.word) {
    *out = spec.word_value;
    return true;
  }
  for (int k = 0; spec.choices && spec.choices[k]; ++k)
    if (text == spec.choices[k]) {
      *out = spec.min + k;
      return true;
    }
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

const ParamSpec* find_param(const std::string& name) {
  for (const auto& p : param_specs())
    if (name == p.name) return &p;
  return nullptr;
}

bool restarts_stream(const DenoiseSettings& from, const DenoiseSettings& to) {
  if (!is_temporal(from.mode) && !is_temporal(to.mode)) return false;
  if (from.mode != to.mode || from.planes != to.planes) return true;
  for (const auto& p : param_specs())
    if (param_group_applies(p.group, to.mode) && p.get(from) != p.get(to)) return true;
  return false;
}

namespace {

std::string format_value(double v) {
  std::ostringstream m;
  m << v;
  return m.str();
}

// Every parameter of the table outside its range, one problem each.
void check_ranges(const DenoiseSettings& s, std::vector<std::string>* problems) {
  for (const auto& p : param_specs()) {
    const double v = p.get(s);
    if (!(v >= p.min && v <= p.max) || (p.integer && v != std::floor(v))) {
      std::ostringstream m;
      m << p.name << " = " << v << " is out of range: expected " << (p.integer ? "an integer " : "a number ")
        << "from " << p.min << " to " << p.max;
      problems->push_back(m.str());
    }
  }
}

// NLM-3D's parameters against patch-shape=cube, the papers' similarity cube: one
// problem naming every value that needs 2D patches, whatever order they were set in.
void check_nlm_cube(const DenoiseSettings& s, std::vector<std::string>* problems) {
  const NlmParams& n = s.nlm;
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
  if (n.causal || (s.mode == Mode::Nlm3d && s.window == TemporalWindow::Causal))
    conflicts.push_back("window=causal (a cube spans later frames)");
  if (conflicts.empty()) return;
  std::string m = "patch-shape=cube conflicts with ";
  for (std::size_t i = 0; i < conflicts.size(); i++) m += (i ? ", " : "") + conflicts[i];
  m += ": set those too (the papers' cubes: patch-radius=1 neighbour-search-radius=same motion-search=off "
       "frame-confidence=0), or patch-shape=2d";
  problems->push_back(m);
}

}  // namespace

std::vector<std::string> settings_problems(const DenoiseSettings& s) {
  std::vector<std::string> problems;
  check_ranges(s, &problems);
  if (s.bm3d.window != 0 && s.bm3d.window % 2 == 0)
    problems.push_back("bm3d-window = " + std::to_string(s.bm3d.window) + " is invalid: expected an odd number");
  for (int n : {s.bm3d.group1, s.bm3d.group2})
    if (n != 0 && n != 8 && n != 16 && n != 32) {
      problems.push_back("bm3d-group1/bm3d-group2 = " + std::to_string(n) +
                         " is invalid: expected 0 (the profile's), 8, 16 or 32");
      break;
    }
  check_nlm_cube(s, &problems);
  if (s.nlm.neighbour_search_radius == 0 && !s.nlm.motion_search)
    problems.push_back("neighbour-search-radius = 0 compares each pixel with itself in the other frames: "
                       "use it with motion-search=on, or a radius of 1 or more");
  if (s.nlm.confidence_cell % 16 != 0)
    problems.push_back("confidence-cell = " + std::to_string(s.nlm.confidence_cell) +
                       " is invalid: expected a multiple of 16");
  if (s.pipd.thickness != 1 && s.pipd.thickness != 3)
    problems.push_back("thickness = " + std::to_string(s.pipd.thickness) + " is invalid: expected 1 or 3");
  // The resolved video profile and the window: each throws its first problem.
  try {
    validate(vbm3d_params(s.vbm3d));
  } catch (const InvalidArgument& e) {
    problems.push_back(e.what());
  }
  try {
    resolve_window(s, false);  // causal on a mode without a causal window
  } catch (const InvalidArgument& e) {
    problems.push_back(e.what());
  }
  return problems;
}

void validate(const DenoiseSettings& s) {
  const std::vector<std::string> problems = settings_problems(s);
  if (problems.empty()) return;
  std::string m;
  for (std::size_t i = 0; i < problems.size(); i++) m += (i ? "; " : "") + problems[i];
  throw InvalidArgument(m);
}

}  // namespace cdn
