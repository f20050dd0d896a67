// cpu_denoiser.cpp: FrameDenoiser over the CPU references (pipd_reference.h,
// bm3d_reference.h).
#include "bm3d/bm3d_reference.h"
#include "core/plane_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_estimate.h"
#include "cudadenoise/noise_tracker.h"
#include "pipd/pipd_reference.h"
#include "stream/frame_denoiser.h"

namespace cdn {

void check_same_geometry(const FrameView& in, const FrameView& out) {
  validate_frame(in);
  validate_frame(out);
  if (in.format != out.format || in.width != out.width || in.height != out.height)
    throw InvalidArgument("input and output frames differ in format or size");
  if (in.data[0] == out.data[0]) throw InvalidArgument("input and output frames must not share memory");
}

namespace {

class CpuDenoiser final : public FrameDenoiser {
 public:
  explicit CpuDenoiser(const DenoiseSettings& s) : settings_(s) {}
  Backend backend() const override { return Backend::Cpu; }
  const DenoiseSettings& settings() const override { return settings_; }
  void set_settings(const DenoiseSettings& s) override {
    validate(s);
    if (is_temporal(s.mode)) throw InvalidArgument("a FrameDenoiser cannot switch to a temporal mode");
    settings_ = s;
    sigma_.reset();
  }

  void process(const FrameView& in, const FrameView& out, void*) override {
    check_same_geometry(in, out);
    if (in.memory != MemoryKind::Host || out.memory != MemoryKind::Host)
      throw InvalidArgument("the CPU backend needs frames in host memory");
    const FormatInfo fi = format_info(in.format);
    for (int p = 0; p < fi.planes; ++p) {
      if (!plane_is_filtered(settings_.planes, p)) copy_host_plane(in, out, p);
    }
    const auto ic = components(in), oc = components(out);
    const int filtered = filtered_components(in, settings_.planes);
    if (settings_.mode == Mode::Bm3d) {
      const std::vector<double> sigma = noise_.empty() ? sigma_.get(in, settings_.sigma) : in_code_values(noise_, in.format);
      bm3d::bm3d_reference(ic, oc, filtered, settings_.bm3d, sigma, 0, cancel_);
      return;
    }
    for (int c = 0; c < filtered; ++c) pipd_reference(ic[c], oc[c], settings_.mode, settings_.pipd);
  }

  std::shared_ptr<const FrameView> new_frame(PixelFormat f, int w, int h, MemoryKind memory) override {
    if (memory != MemoryKind::Host) throw InvalidArgument("the CPU backend needs frames in host memory");
    auto frame = std::make_shared<HostFrame>(f, w, h);
    return std::shared_ptr<const FrameView>(frame, &frame->view());
  }
  void copy_frame(const FrameView& from, const FrameView& to, void*) override {
    check_same_geometry(from, to);
    if (from.memory != MemoryKind::Host || to.memory != MemoryKind::Host)
      throw InvalidArgument("the CPU backend needs frames in host memory");
    copy_host_frame(from, to);
  }

 private:
  DenoiseSettings settings_;
  FirstFrameSigma sigma_;
};

}  // namespace

std::unique_ptr<FrameDenoiser> make_cpu_denoiser(const DenoiseSettings& settings) {
  validate(settings);
  return std::make_unique<CpuDenoiser>(settings);
}

}  // namespace cdn
