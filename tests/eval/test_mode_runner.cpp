// test_mode_runner.cpp: the harness runs every cudadenoise mode (from
// cdn::all_modes(), so a new mode is covered when it lands) exactly as the
// library does on its own, gives the noise sigma only to the modes the library
// says take one (uses_sigma), and plays short clips back and forth for timing.
#include <gtest/gtest.h>

#include <string>

#include "eval_test_support.h"

#include "convert.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_pump.h"
#include "frame_ops.h"
#include "mode_runner.h"
#include "mode_settings.h"
#include "test_picture.h"

namespace {

using namespace cdn;
using namespace cdn::eval;

std::vector<HostFrame> noisy_clip(int frames) {
  const HostFrame photo = tools::image_to_frame(tools::make_test_picture(96, 64));
  std::vector<HostFrame> clip;
  for (int i = 0; i < frames; ++i) {
    clip.push_back(crop_frame(photo.view(), {i, 0, 48, 40}));
    add_gaussian_noise(clip.back().view(), 20, 100 + i);
  }
  return clip;
}

using eval_test::same;

// The library on its own: a StreamDenoiser over the clip.
std::vector<HostFrame> reference(const std::vector<HostFrame>& clip, const DenoiseSettings& s) {
  const FrameView& f0 = clip[0].view();
  auto d = StreamDenoiser::create(Backend::Cpu, s, f0.format, f0.width, f0.height);
  std::vector<HostFrame> out;
  out.reserve(clip.size());  // views into them stay valid
  FunctionSink sink(
      [&] {
        out.emplace_back(f0.format, f0.width, f0.height);
        return out.back().view();
      },
      [] { return true; });
  for (const HostFrame& f : clip) feed(*d, f.view(), sink);
  drain(*d, sink);
  return out;
}

// Which modes take a sigma is the library's (uses_sigma): the known sigma goes
// to `sigma` of exactly those modes, and nothing else changes.
TEST(ModeSettings, SigmaGoesOnlyToModesThatTakeOne) {
  for (Mode m : all_modes()) {
    SCOPED_TRACE(mode_name(m));
    const DenoiseSettings s = settings_for(m, 17);
    EXPECT_EQ(s.mode, m);
    EXPECT_EQ(s.planes, PlaneSelection::All);
    const DenoiseSettings d = settings_for(m, 0);
    for (const ParamSpec& p : param_specs())
      EXPECT_EQ(p.get(s) != p.get(d), uses_sigma(m) && std::string(p.name) == "sigma") << p.name;
    EXPECT_DOUBLE_EQ(sigma_given(s), uses_sigma(m) ? 17 : 0);
  }
  EXPECT_DOUBLE_EQ(settings_for(Mode::Nlm3d, 17).sigma, 17);
  EXPECT_DOUBLE_EQ(settings_for(Mode::Bm3d, 17).sigma, 17);
  EXPECT_DOUBLE_EQ(settings_for(Mode::Nlm3d, 1000).sigma, find_param("sigma")->max);  // clamped to the range
  EXPECT_DOUBLE_EQ(sigma_given(settings_for(Mode::Pipd, 17)), 0);
  EXPECT_DOUBLE_EQ(settings_for(Mode::Pipd, 17).sigma, 0);
}

TEST(ModeRunner, EveryModeGivesTheLibrarysOutputAndATime) {
  const std::vector<HostFrame> clip = noisy_clip(5);
  for (Mode m : all_modes()) {
    const DenoiseSettings s = settings_for(m, 20);
    const ModeRun r = run_mode(clip, Backend::Cpu, s, 0, 2, is_temporal(m) ? 9 : 0);
    EXPECT_EQ(r.backend, Backend::Cpu);
    ASSERT_EQ(r.output.size(), clip.size());
    const std::vector<HostFrame> want = reference(clip, s);
    for (std::size_t i = 0; i < clip.size(); ++i) EXPECT_TRUE(same(r.output[i].view(), want[i].view())) << mode_name(m) << i;
    EXPECT_GT(r.e2e_ms, 0) << mode_name(m);
    EXPECT_EQ(r.e2e_samples, is_temporal(m) ? 2 : 5) << mode_name(m);
    EXPECT_LT(r.device_ms, 0);
  }
}

TEST(ModeRunner, PingPongPlaysTheClipBackAndForth) {
  const std::vector<HostFrame> clip = noisy_clip(4);
  const std::vector<FrameView> v = ping_pong(clip, 11);
  ASSERT_EQ(v.size(), 11u);
  const int want[] = {0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2};
  for (int i = 0; i < 11; ++i) EXPECT_EQ(v[i].data[0], clip[want[i]].view().data[0]) << i;
  EXPECT_EQ(ping_pong(clip, 2).size(), 4u);  // never shorter than the clip
}

}  // namespace
