// settings.cpp: names, the parameter table and validation (settings.h); the
// modes' own facts are the registry's (mode_registry.cpp).
#include "cudadenoise/settings.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/mode_spec.h"
#include "cudadenoise/error.h"

namespace cdn {

namespace {
template <typename E>
struct Named {
  E value;
  const char* name;
};
constexpr Named<Backend> kBackends[] = {{Backend::Auto, "auto"}, {Backend::Cuda, "cuda"}, {Backend::Cpu, "cpu"}};
constexpr Named<PlaneSelection> kPlanes[] = {{PlaneSelection::Luma, "luma"}, {PlaneSelection::All, "all"}};
// Indexed by TemporalWindow's value (the window parameter's choices).
constexpr const char* kWindowNames[] = {"auto", "centred", "causal", nullptr};
// Indexed by NoiseModelKind's value (the noise-model parameter's choices).
constexpr const char* kNoiseModelNames[] = {"constant", "signal", "curve", nullptr};
// noise-a's word: the model is estimated from the frames.
constexpr double kNoiseAAuto = -1;

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

const char* temporal_window_name(TemporalWindow w) { return kWindowNames[static_cast<int>(w)]; }
const char* noise_model_name(NoiseModelKind k) { return kNoiseModelNames[static_cast<int>(k)]; }

const char* backend_name(Backend b) { return name_of(kBackends, b); }
bool parse_backend(const std::string& s, Backend* out) { return parse_in(kBackends, s, out); }
const char* planes_name(PlaneSelection p) { return name_of(kPlanes, p); }
bool parse_planes(const std::string& s, PlaneSelection* out) { return parse_in(kPlanes, s, out); }

const char* patch_shape_name(NlmPatchShape s) { return s == NlmPatchShape::Cube ? "cube" : "2d"; }

bool operator==(const NlmSettings& a, const NlmSettings& b) {
  return a.search_radius == b.search_radius && a.temporal_radius == b.temporal_radius &&
         a.neighbour_search_radius == b.neighbour_search_radius &&
         a.patch_radius == b.patch_radius && a.patch_shape == b.patch_shape && a.motion_search == b.motion_search &&
         a.distance_offset == b.distance_offset &&
         a.frame_confidence == b.frame_confidence && a.confidence_cell == b.confidence_cell &&
         a.self_weight_floor == b.self_weight_floor && a.beta == b.beta && a.chunk_size == b.chunk_size;
}

NlmParams nlm_params(const NlmSettings& s, bool causal) {
  NlmParams p;
  static_cast<NlmSettings&>(p) = s;
  p.causal = causal;
  return p;
}

const std::vector<ParamSpec>& param_specs() {
  // Each mode's own rows (its registration), in the registry's order, then the
  // rows every mode that takes a noise level or a window shares.
  static const std::vector<ParamSpec> specs = [] {
    std::vector<ParamSpec> all;
    for (const ModeSpec* m : mode_specs()) all.insert(all.end(), m->params.begin(), m->params.end());
    const std::vector<ParamSpec> shared = {
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
        {ParamGroup::Noise, "noise-model",
         "How the noise depends on the intensity: constant (one sigma per component), signal (variance a x + b per "
         "component, filtered behind the generalized Anscombe transform), curve (a free noise level function, "
         "filtered behind its integral transform); docs/NOISE.md",
         true, 0, 2, 0, [](const DenoiseSettings& s) { return double(static_cast<int>(s.noise_model)); },
         [](DenoiseSettings& s, double v) { s.noise_model = static_cast<NoiseModelKind>(int(v)); }, nullptr, 0,
         kNoiseModelNames},
        {ParamGroup::Noise, "noise-a",
         "Slope a of the signal model var = a x + b (8-bit code values), for every component; auto: the model is "
         "estimated from the frames (or read from a noise profile)",
         false, kNoiseAAuto, 64.0, kNoiseAAuto, [](const DenoiseSettings& s) { return s.noise_a; },
         [](DenoiseSettings& s, double v) { s.noise_a = v; }, "auto", kNoiseAAuto},
        {ParamGroup::Noise, "noise-b",
         "Offset b of the signal model var = a x + b (8-bit code values squared), with noise-a",
         false, -4096.0, 65025.0, 0.0, [](const DenoiseSettings& s) { return s.noise_b; },
         [](DenoiseSettings& s, double v) { s.noise_b = v; }},
        {ParamGroup::Noise, "noise-interval",
         "With the noise estimated (sigma auto, or its model): one frame in this many is measured (the first "
         "included), each measurement counting for as many frames; 1 measures every frame (a step of the noise is "
         "followed sooner, at a higher host cost); docs/NOISE.md",
         true, 1.0, 60.0, 4.0, [](const DenoiseSettings& s) { return double(s.noise_interval); },
         [](DenoiseSettings& s, double v) { s.noise_interval = static_cast<int>(v); }},
        {ParamGroup::Temporal, "window",
         "Temporal window: centred (past and future frames: best quality, frames of latency), causal (the current and "
         "past frames: at most one frame of latency, for live sources), auto (causal for a live source when the mode "
         "has a causal window, else centred)",
         true, 0, 2, 0, [](const DenoiseSettings& s) { return double(static_cast<int>(s.window)); },
         [](DenoiseSettings& s, double v) { s.window = static_cast<TemporalWindow>(int(v)); }, nullptr, 0,
         kWindowNames},
    };
    all.insert(all.end(), shared.begin(), shared.end());
    return all;
  }();
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
  if (uses_sigma(to.mode) && from.noise_profile != to.noise_profile) return true;  // the noise group's file
  for (const auto& p : param_specs())
    if (param_group_applies(p.group, to.mode) && p.get(from) != p.get(to)) return true;
  return false;
}

namespace {

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

// The noise model's values that contradict each other.
void check_noise_model(const DenoiseSettings& s, std::vector<std::string>* problems) {
  const bool given_ab = s.noise_a != kNoiseAAuto;
  if (s.noise_a != kNoiseAAuto && s.noise_a < 0)
    problems->push_back("noise-a must be auto or >= 0");
  if (!given_ab && s.noise_b != 0) problems->push_back("noise-b needs noise-a (give both, or neither)");
  if (given_ab && s.noise_a * 255.0 + s.noise_b <= 0)
    problems->push_back("noise-a and noise-b give no noise over 0..255 (a x + b <= 0 everywhere)");
  switch (s.noise_model) {
    case NoiseModelKind::Constant:
      if (given_ab) problems->push_back("noise-a and noise-b give the signal model: set noise-model=signal");
      if (s.noise_profile) problems->push_back("a noise profile needs noise-model=signal or noise-model=curve");
      break;
    case NoiseModelKind::Signal:
    case NoiseModelKind::Curve:
      if (s.sigma > 0)
        problems->push_back(std::string("sigma is the constant model's noise level; with noise-model=") +
                            noise_model_name(s.noise_model) + " give a noise profile" +
                            (s.noise_model == NoiseModelKind::Signal ? ", noise-a and noise-b," : "") +
                            " or neither (estimated)");
      if (given_ab && s.noise_model == NoiseModelKind::Curve)
        problems->push_back("noise-a and noise-b give the signal model: set noise-model=signal, or give the curve "
                            "in a noise profile");
      if (given_ab && s.noise_profile) problems->push_back("noise-a and noise-b and a noise profile: give one");
      break;
  }
}

}  // namespace

std::vector<std::string> settings_problems(const DenoiseSettings& s) {
  std::vector<std::string> problems;
  check_ranges(s, &problems);
  // Each mode's own parameters, whatever the mode selected.
  for (const ModeSpec* m : mode_specs())
    if (m->check) m->check(s, &problems);
  check_noise_model(s, &problems);
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
