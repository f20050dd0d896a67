// presets.cpp: the preset table and how a preset and explicit values combine
// (presets.h). Why each row: docs/PRESETS.md (measured quality and speed).
#include "cudadenoise/presets.h"

#include "cudadenoise/error.h"

namespace cdn {

const std::vector<Preset>& preset_table() {
  // Each row's job says what the preset is for, never a measured figure (the
  // help texts print it, and figures go stale): its speed and quality are in
  // docs/PRESETS.md (test_presets checks). The default must keep 25 fps at
  // 3840x2160 NV12 on one H100/H200 (issue 16; measured there).
  static const std::vector<Preset> table = {
      {"standard", "bm3d",
       "the default: BM3D's rapid profile, every frame with the noise measured on it: everything, real time up to "
       "3840x2160 NV12 on one GPU; clean and compressed frames kept",
       {{"bm3d-profile", "rapid"}}},
      {"draft", "bm3d", "the fastest BM3D (draft profile): 8K or several streams, a little below standard",
       {{"bm3d-profile", "draft"}}},
      {"quality", "bm3d", "BM3D's quick profile: a little above standard, at a higher cost",
       {{"bm3d-profile", "quick"}}},
      {"best", "bm3d",
       "BM3D at the reference implementation's quality (balanced profile): files, photos, post-production",
       {{"bm3d-profile", "balanced"}}},
      {"isoline", "hybrid",
       "hybrid PI-PD at docs/PIPD.md's quality settings: the cheapest filter, no noise level needed; far below BM3D, "
       "may lower PSNR at low noise",
       {{"direction-prefilter", "1"}, {"thickness", "3"}, {"t2max", "1"}}},
      // The video modes (docs/VBM3D.md, docs/NLM3D.md): offered whenever their mode
      // and parameters exist in the build (preset_available).
      {"video", "nlm3d",
       "NLM-3D at its video defaults (9x9 2D patches, windows centred by estimated motion over 9 frames, each "
       "weighed by how well it matches): recorded moving video",
       {}},
      {"live", "nlm3d",
       "NLM-3D's causal window (the current and 4 past frames, no frame of latency): live sources and previews",
       {{"window", "causal"}}},
      {"static-video", "vbm3d",
       "V-BM3D (quality profile) along the motion: static or slow cameras (surveillance, tripod, screen capture), "
       "files",
       {{"vbm3d-profile", "quality"}}},
      {"video-fast", "vbm3d", "V-BM3D, fast profile (one phase, fewer frames): moving video in real time",
       {{"vbm3d-profile", "fast"}}},
  };
  return table;
}

bool preset_available(const Preset& p, std::string* why) {
  Mode m;
  if (!parse_mode(p.mode, &m)) {
    if (why) *why = std::string("no mode ") + p.mode + " in this build";
    return false;
  }
  for (const PresetValue& v : p.values) {
    const ParamSpec* spec = find_param(v.param);
    double x;
    if (!spec || !param_value_from_text(*spec, v.value, &x)) {
      if (why) *why = std::string("no parameter ") + v.param + " = " + v.value + " in this build";
      return false;
    }
  }
  return true;
}

std::vector<const Preset*> available_presets() {
  std::vector<const Preset*> out;
  for (const Preset& p : preset_table())
    if (preset_available(p)) out.push_back(&p);
  return out;
}

const Preset* find_preset(const std::string& name) {
  for (const Preset* p : available_presets())
    if (name == p->name) return p;
  return nullptr;
}

const char* default_preset_name() { return "standard"; }

std::string preset_choices() {
  std::string list;
  for (const Preset* p : available_presets()) list += (list.empty() ? "" : "|") + std::string(p->name);
  return list;
}

DenoiseSettings preset_settings(const Preset& p) {
  std::string why;
  if (!preset_available(p, &why)) throw InvalidArgument(std::string("preset ") + p.name + ": " + why);
  DenoiseSettings s;
  parse_mode(p.mode, &s.mode);
  for (const PresetValue& v : p.values) {
    const ParamSpec* spec = find_param(v.param);
    double x = 0;
    param_value_from_text(*spec, v.value, &x);
    spec->set(s, x);
  }
  return s;
}

SettingsChoice::SettingsChoice() : preset_(default_preset_name()) {}

void SettingsChoice::set_preset(const std::string& name) {
  if (!find_preset(name))
    throw InvalidArgument("preset = " + name + " is not a preset: expected one of " + preset_choices());
  preset_ = name;
}

void SettingsChoice::set_mode(Mode m) {
  given_.mode = m;
  mode_set_ = true;
}

void SettingsChoice::set_planes(PlaneSelection p) {
  given_.planes = p;
  planes_set_ = true;
}

void SettingsChoice::set_param(const ParamSpec& spec, double value) {
  spec.set(given_, value);
  params_.insert(spec.name);
}

DenoiseSettings SettingsChoice::resolve() const {
  const Preset* p = find_preset(preset_);
  DenoiseSettings s = p ? preset_settings(*p) : DenoiseSettings{};
  if (mode_set_) s.mode = given_.mode;
  if (planes_set_) s.planes = given_.planes;
  for (const ParamSpec& spec : param_specs())
    if (params_.count(spec.name)) spec.set(s, spec.get(given_));
  return s;
}

}  // namespace cdn
