// temporal_modes.cpp: the temporal modes and their hooks (temporal_mode.h). A new
// temporal mode adds a case to each function here.
#include "error.h"
#include "nlm3d_window.h"
#include "temporal_mode.h"
#include "vbm3d_window.h"

namespace cdn {

namespace {
[[noreturn]] void not_temporal(Mode m) {
  throw InvalidArgument(std::string("mode ") + mode_name(m) + " filters each frame on its own, not a window");
}
}  // namespace

WindowShape window_shape(const DenoiseSettings& s) {
  switch (s.mode) {
    case Mode::Nlm3d: return nlm3d_window_shape(s.nlm);
    case Mode::Vbm3d: return vbm3d_window_shape(s.vbm3d);
    default: not_temporal(s.mode);
  }
}

std::unique_ptr<WindowFilter> make_cpu_window_filter(const DenoiseSettings& s, PixelFormat format) {
  switch (s.mode) {
    case Mode::Nlm3d: return make_nlm3d_cpu_window(s.nlm, format);
    case Mode::Vbm3d: return make_vbm3d_cpu_window(s.vbm3d, format);
    default: not_temporal(s.mode);
  }
}

#ifdef CDN_HAVE_CUDA
std::unique_ptr<WindowFilter> make_cuda_window_filter(const DenoiseSettings& s, PixelFormat format, int device) {
  const int filtered = s.planes == PlaneSelection::All ? format_info(format).components : 1;
  switch (s.mode) {
    case Mode::Nlm3d: return make_nlm3d_cuda_window(s.nlm, format, filtered, device);
    case Mode::Vbm3d: return make_vbm3d_cuda_window(s.vbm3d, format, device);
    default: not_temporal(s.mode);
  }
}
#endif

}  // namespace cdn
