// temporal_modes.cpp: the temporal modes and their hooks (temporal_mode.h). A new
// temporal mode adds a case to each function here.
#include "cudadenoise/error.h"
#include "nlm3d/nlm3d_window.h"
#include "temporal/temporal_mode.h"
#include "vbm3d/vbm3d_window.h"

namespace cdn {

namespace {
[[noreturn]] void not_temporal(Mode m) {
  throw InvalidArgument(std::string("mode ") + mode_name(m) + " filters each frame on its own, not a window");
}
// vbm3d's causal filter (Vbm3dSettings::causal) when the stream's window resolves
// to causal (window=causal, or auto on a live source: StreamDenoiser resolves it).
Vbm3dSettings vbm3d_settings(const DenoiseSettings& s) {
  Vbm3dSettings v = s.vbm3d;
  if (resolve_window(s, false) == TemporalWindow::Causal) v.causal = 1;
  return v;
}
// nlm3d's causal filter (NlmParams::causal) when the stream's window resolves to causal.
NlmParams nlm_settings(const DenoiseSettings& s) {
  NlmParams p = s.nlm;
  if (resolve_window(s, false) == TemporalWindow::Causal) p.causal = true;
  return p;
}
}  // namespace

bool has_causal_window(Mode m) {
  switch (m) {
    case Mode::Nlm3d: return true;  // 2D patches only (validate() says so)
    case Mode::Vbm3d: return true;  // Vbm3dSettings::causal (vbm3d_params.h)
    default: return false;
  }
}

bool causal_window_possible(const DenoiseSettings& s) {
  if (!has_causal_window(s.mode)) return false;
  return s.mode != Mode::Nlm3d || s.nlm.patch_shape == NlmPatchShape::Planar;
}

WindowShape window_shape(const DenoiseSettings& s) {
  WindowShape w;
  switch (s.mode) {
    case Mode::Nlm3d: w = nlm3d_window_shape(nlm_settings(s)); break;
    case Mode::Vbm3d: w = vbm3d_window_shape(vbm3d_settings(s)); break;
    default: not_temporal(s.mode);
  }
  // Causal: the current and past frames only, each frame out at the push that
  // brought it (one frame per chunk). Auto is resolved by the caller
  // (StreamDenoiser: causal for a live source); here it is centred.
  if (resolve_window(s, false) == TemporalWindow::Causal) {
    w.after = 0;
    w.chunk = 1;
  }
  return w;
}

std::unique_ptr<WindowFilter> make_cpu_window_filter(const DenoiseSettings& s, PixelFormat format) {
  switch (s.mode) {
    case Mode::Nlm3d: return make_nlm3d_cpu_window(nlm_settings(s), format);
    case Mode::Vbm3d: return make_vbm3d_cpu_window(vbm3d_settings(s), format);
    default: not_temporal(s.mode);
  }
}

#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> make_cuda_window_filter(const DenoiseSettings& s, PixelFormat format, int device) {
  const int filtered = s.planes == PlaneSelection::All ? format_info(format).components : 1;
  switch (s.mode) {
    case Mode::Nlm3d: return make_nlm3d_cuda_window(nlm_settings(s), format, filtered, device);
    case Mode::Vbm3d: return make_vbm3d_cuda_window(vbm3d_settings(s), format, device);
    default: not_temporal(s.mode);
  }
}
#endif

}  // namespace cdn
