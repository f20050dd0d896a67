// test_gpu_temporal_cancel.cpp: the cancel flag (StreamDenoiser::set_cancel_flag)
// reaches the CUDA chunk filters of the temporal modes (issue 33 item 6): with
// the flag set, the push that launches a chunk throws Cancelled before it
// queues any filter kernel (the filters check it before each launch; what was
// queued is waited for before the chunk's frames go back to the pool), no frame
// comes out, and after reset() with the flag cleared the same stream gives a
// fresh stream's frames bit for bit. nlm3d and vbm3d, centred (NV12: every
// pass) and causal windows; on one lane, and on two lanes of GPU 0 (and GPUs 0
// and 1 where there are two), whose launch threads carry Cancelled back to the
// caller (cuda_temporal_stream.cu). Skips, with the reason, without a CUDA device.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "cudadenoise/backend.h"
#include "cudadenoise/stream_denoiser.h"
#include "test_support.h"

namespace cdn {
namespace {

std::vector<HostFrame> random_clip(PixelFormat f, int w, int h, int frames) {
  std::vector<HostFrame> clip;
  for (int i = 0; i < frames; ++i) {
    clip.emplace_back(f, w, h);
    const auto planes = components(clip.back().view());
    for (std::size_t c = 0; c < planes.size(); ++c) test::fill_random(planes[c], 100 * i + c + 1);
  }
  return clip;
}

// One stream on the lanes of `devices` (empty: the current device alone); the
// fresh stream it is compared with has the same lanes.
void expect_cancelled_then_fresh_on(const DenoiseSettings& s, PixelFormat f, const std::string& what,
                                    const std::vector<int>& devices) {
  const int w = 64, h = 48;
  const auto clip = random_clip(f, w, h, 24);
  auto d = StreamDenoiser::create(Backend::Cuda, s, f, w, h, devices);
  std::atomic<bool> cancel{true};
  d->set_cancel_flag(&cancel);
  int out = 0;
  HostFrame sink_frame(f, w, h);
  FunctionSink sink([&] { return sink_frame.view(); }, [&] { return ++out > 0; });
  bool cancelled = false;
  try {
    for (const HostFrame& frame : clip) feed(*d, frame.view(), sink);
    drain(*d, sink);
  } catch (const Cancelled&) {
    cancelled = true;
  }
  EXPECT_TRUE(cancelled) << what << ": the chunk ran although the flag was set";
  EXPECT_EQ(out, 0) << what << ": frames came out of a cancelled chunk";

  cancel = false;
  d->reset();
  const auto again = test::run_clip(*d, clip);
  auto fresh = StreamDenoiser::create(Backend::Cuda, s, f, w, h, devices);
  const auto want = test::run_clip(*fresh, clip);
  ASSERT_EQ(again.size(), clip.size()) << what;
  ASSERT_EQ(want.size(), clip.size()) << what;
  for (std::size_t i = 0; i < clip.size(); ++i)
    EXPECT_TRUE(test::same_samples(again[i].view(), want[i].view())) << what << ": frame " << i << " after the reset";
}

// On one lane, two lanes of GPU 0 (launch threads), and GPUs 0 and 1 where there are two.
void expect_cancelled_then_fresh(const DenoiseSettings& s, PixelFormat f, const std::string& what_alone) {
  for (const std::vector<int>& devices : std::vector<std::vector<int>>{{}, {0, 0}, {0, 1}}) {
    if (devices.size() == 2 && devices[1] >= cuda_device_count()) continue;
    const std::string what = what_alone + (devices.empty() ? "" : ", lanes on GPUs " + std::to_string(devices[0]) +
                                                                       " and " + std::to_string(devices[1]));
    expect_cancelled_then_fresh_on(s, f, what, devices);
  }
}

DenoiseSettings nlm3d(TemporalWindow window) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.sigma = 10;
  s.window = window;
  s.planes = PlaneSelection::All;
  s.nlm.chunk_size = 4;
  return s;
}

DenoiseSettings vbm3d(TemporalWindow window) {
  DenoiseSettings s;
  s.mode = Mode::Vbm3d;
  s.sigma = 10;
  s.window = window;
  s.planes = PlaneSelection::All;
  s.vbm3d.radius = 2;
  s.vbm3d.chunk = 4;
  return s;
}

TEST(GpuTemporalCancel, Nlm3dChunkThrowsCancelledAndTheStreamRunsAfterReset) {
  CDN_REQUIRE_GPU();
  expect_cancelled_then_fresh(nlm3d(TemporalWindow::Centred), PixelFormat::NV12, "nlm3d centred NV12");
  expect_cancelled_then_fresh(nlm3d(TemporalWindow::Causal), PixelFormat::GRAY8, "nlm3d causal");
}

TEST(GpuTemporalCancel, Vbm3dChunkThrowsCancelledAndTheStreamRunsAfterReset) {
  CDN_REQUIRE_GPU();
  expect_cancelled_then_fresh(vbm3d(TemporalWindow::Centred), PixelFormat::NV12, "vbm3d centred NV12");
  expect_cancelled_then_fresh(vbm3d(TemporalWindow::Causal), PixelFormat::GRAY8, "vbm3d causal");
}

}  // namespace
}  // namespace cdn
