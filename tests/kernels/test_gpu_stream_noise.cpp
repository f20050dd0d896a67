// test_gpu_stream_noise.cpp (GPU host): sigma auto through StreamDenoiser on
// the CUDA backend with device frames, as the element and the transcode tool
// run the default preset: the stream's sigma is a host NoiseTracker's over the
// same frames after each frame (host and device frames: the first at once,
// later frames two frames late, the background schedule of noise_tracker.h), the same as a CPU stream over
// the same frames in host memory, a step of the noise is followed, and each output equals the
// CPU reference given the sigma the stream used (within BM3D's float rounding:
// at most 2 code values, under 0.05 on average). Skips without CUDA or a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/stream_denoiser.h"
#include "noise_test_support.h"
#include "stream/direct_stream.h"
#include "test_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

HostFrame make_frame(PixelFormat f, int w, int h, int t, double sigma) {
  static const test::LumaSource src = test::photo_luma("camera.png");
  HostFrame frame(f, w, h);
  const auto comps = components(frame.view());
  for (std::size_t c = 0; c < comps.size(); ++c)
    test::render(test::crop(src, 60 + 3 * t + 11 * static_cast<int>(c), 30 + 2 * t, comps[c].width, comps[c].height),
                 c == 0 ? sigma : sigma / 2, 31 * t + c + 1, comps[c]);
  return frame;
}

TEST(GpuStreamNoise, DefaultPresetOnDeviceFramesTracksTheNoiseAndEqualsTheCpu) {
  CDN_REQUIRE_GPU();
  const PixelFormat f = PixelFormat::NV12;
  const int w = 320, h = 240;
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    // standard: bm3d rapid, sigma auto; every frame measured, so that the frames
    // filtered at the level before the step are as few as the bounds below were
    // set for (with the default interval 4, 9 frames, and one differed by 5
    // code values, 2026-11-29); the default interval on device frames is
    // test_gpu_noise_tracker.cpp's.
    DenoiseSettings s = SettingsChoice().resolve();
    s.noise_interval = 1;
    auto den = StreamDenoiser::create(Backend::Cuda, s, f, w, h);
    auto cpu_stream = StreamDenoiser::create(Backend::Cpu, s, f, w, h);  // the same frames in host memory
    auto cpu = make_cpu_direct_stream(s, f, w, h);  // the CPU reference, given the GPU stream's sigma
    CudaFramePool pool(f, w, h, 4);
    NoiseTrackerSettings background;  // the stream's schedule (noise_tracker.h)
    background.background = true;
    background.interval = s.noise_interval;  // 1 here (see above)
    NoiseTracker host(background);
    std::vector<CudaFramePool::Handle> held;
    for (int t = 0; t < 7; ++t) {  // the step at frame 3 is taken at frame 4, in the value from frame 6 on
      SCOPED_TRACE(t);
      const double sigma = t < 3 ? 8.0 : 24.0;
      HostFrame hf = make_frame(f, w, h, t, sigma);
      auto din = pool.acquire(stream), dout = pool.acquire(stream);
      copy_frame_async(hf.view(), din->view(), stream);
      den->process(din->view(), dout->view(), stream);
      // One schedule for host and device frames (the stream's: the first at
      // once, later frames two frames late): the host tracker after the same frame.
      host.observe(hf.view());
      EXPECT_EQ(den->noise_sigma(), host.sigma());
      HostFrame gpu_out(f, w, h), cpu_out(f, w, h), cpu_stream_out(f, w, h);
      cpu_stream->process(hf.view(), cpu_stream_out.view());
      EXPECT_EQ(den->noise_sigma(), cpu_stream->noise_sigma()) << "the CPU stream over host frames";
      copy_frame_async(dout->view(), gpu_out.view(), stream);
      CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
      cpu->set_noise(den->noise_sigma());  // strength 1
      cpu->process(hf.view(), cpu_out.view(), nullptr);
      long long n = 0, sum = 0;
      int worst = 0;
      const auto a = components(gpu_out.view()), b = components(cpu_out.view());
      for (std::size_t c = 0; c < a.size(); ++c)
        for (int y = 0; y < a[c].height; ++y)
          for (int x = 0; x < a[c].width; ++x) {
            const int d = std::abs(a[c].get(x, y) - b[c].get(x, y));
            worst = std::max(worst, d);
            sum += d;
            ++n;
          }
      EXPECT_LE(worst, 2);
      EXPECT_LT(double(sum) / n, 0.05);
      long long differ = 0;
      const auto e = components(cpu_stream_out.view());
      for (std::size_t c = 0; c < b.size(); ++c)
        for (int y = 0; y < b[c].height; ++y)
          for (int x = 0; x < b[c].width; ++x) differ += b[c].get(x, y) != e[c].get(x, y);
      EXPECT_EQ(differ, 0) << "the CPU stream over the same frames in host memory gives the same output";
      held.push_back(din);
      if (held.size() > 2) held.erase(held.begin());
    }
    EXPECT_NEAR(den->noise_sigma()[0], 24.0, 2.4) << "the step 8 -> 24 followed";
  }
  CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  CDN_CUDA_CHECK(cudaStreamDestroy(stream));
}

#else

TEST(GpuStreamNoise, DefaultPresetOnDeviceFramesTracksTheNoiseAndEqualsTheCpu) { GTEST_SKIP() << "built without CUDA"; }

#endif

}  // namespace
}  // namespace cdn
