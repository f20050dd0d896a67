// mode_registry.cpp: the list of modes (mode_spec.h) and every public question
// about a mode (settings.h: names, descriptions, parameter groups, noise level,
// windows) answered from it.
#include <string>

#include "core/mode_spec.h"
#include "cudadenoise/error.h"

namespace cdn {

// Each mode's registration, in its folder.
const ModeSpec& pipd_mode();
const ModeSpec& hybrid_mode();
const ModeSpec& nlm3d_mode();
const ModeSpec& bm3d_mode();
const ModeSpec& vbm3d_mode();

const std::vector<const ModeSpec*>& mode_specs() {
  // One line per mode.
  static const std::vector<const ModeSpec*> specs = {
      &pipd_mode(),
      &hybrid_mode(),
      &nlm3d_mode(),
      &bm3d_mode(),
      &vbm3d_mode(),
  };
  return specs;
}

const ModeSpec& mode_spec(Mode m) {
  for (const ModeSpec* s : mode_specs())
    if (s->mode == m) return *s;
  throw InvalidArgument("mode " + std::to_string(static_cast<int>(m)) + " is not registered");
}

const char* mode_name(Mode m) {
  for (const ModeSpec* s : mode_specs())
    if (s->mode == m) return s->name;
  return "?";
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (const ModeSpec* s : mode_specs()) v.push_back(s->mode);
  return v;
}

const char* mode_description(Mode m) { return mode_spec(m).description; }

bool parse_mode(const std::string& name, Mode* out) {
  for (const ModeSpec* s : mode_specs())
    if (name == s->name) {
      *out = s->mode;
      return true;
    }
  return false;
}

bool is_temporal(Mode m) { return mode_spec(m).temporal(); }
bool uses_sigma(Mode m) { return mode_spec(m).takes_sigma; }
bool has_causal_window(Mode m) { return mode_spec(m).causal_possible != nullptr; }

bool causal_window_possible(const DenoiseSettings& s) {
  const ModeSpec& spec = mode_spec(s.mode);
  return spec.causal_possible && spec.causal_possible(s);
}

bool param_group_applies(ParamGroup g, Mode m) {
  const ModeSpec& spec = mode_spec(m);
  if (g == ParamGroup::Noise) return spec.takes_sigma;
  if (g == ParamGroup::Temporal) return spec.temporal();
  for (ParamGroup own : spec.groups)
    if (own == g) return true;
  return false;
}

TemporalWindow resolve_window(const DenoiseSettings& s, bool live_source) {
  const ModeSpec& spec = mode_spec(s.mode);
  if (s.window == TemporalWindow::Causal && spec.temporal() && !spec.causal_possible)
    throw InvalidArgument(std::string("window = causal: mode ") + spec.name +
                          " has no causal window in this build (window = centred or auto)");
  if (s.window != TemporalWindow::Auto) return s.window;
  return live_source && spec.temporal() && causal_window_possible(s) ? TemporalWindow::Causal
                                                                     : TemporalWindow::Centred;
}

namespace {

// The one place the window the user chose (DenoiseSettings::window) becomes the
// filter's: causal or not. Auto is resolved by the caller (StreamDenoiser:
// causal for a live source); here it is centred. Per-frame modes: false.
bool resolved_causal(const DenoiseSettings& s) {
  return mode_spec(s.mode).temporal() && resolve_window(s, false) == TemporalWindow::Causal;
}

}  // namespace

WindowShape window_shape(const DenoiseSettings& s) {
  const ModeSpec& spec = mode_spec(s.mode);
  if (!spec.temporal()) return WindowShape{0, 0, 1};
  const bool causal = resolved_causal(s);
  WindowShape w = spec.window(s, causal);
  // Causal: the current and past frames only, each frame out at the push that
  // brought it (one frame per chunk).
  if (causal) {
    w.after = 0;
    w.chunk = 1;
  }
  return w;
}

std::unique_ptr<WindowFilter> make_cpu_window_filter(const DenoiseSettings& s, PixelFormat format) {
  return mode_spec(s.mode).cpu_filter(s, resolved_causal(s), format);
}

#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> make_cuda_window_filter(const DenoiseSettings& s, PixelFormat format, int device) {
  return mode_spec(s.mode).cuda_filter(s, resolved_causal(s), format, device);
}
#endif

}  // namespace cdn
