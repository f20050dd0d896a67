// test_gpu_noise_tracker.cpp: NoiseTracker on frames in device memory (the
// sampled bands copied by noise_device_samples.cu) against the same frames in
// host memory: after every observe() and after flush(), the same sigma and the
// same estimates, bit for bit (host and device frames follow one schedule: the
// first at once, later frames a frame late, or two on the background schedule,
// NoiseTrackerSettings::background, where the host frames' samples are staged
// in host memory and both are estimated on the tracker's worker); every
// format, odd sizes, small frames (sampled densely; 35x18: too narrow to be
// usable), 1080p, a stream that mixes host and device frames, reset with a
// copy and an estimate in flight; the same for the noise model
// (NoiseTrackerSettings::model); without a caller's stream, the same, on a
// stream that waits for no other (noise_device_samples.cu). Both schedules
// throughout. Skips, with the
// reason, where no CUDA device can be used.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"
#include "noise_test_support.h"
#include "test_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

// Frame t of a pan over camera.png with noise sigma[c] on component c.
HostFrame make_frame(PixelFormat f, int w, int h, int t, const std::vector<double>& sigma) {
  static const test::LumaSource src = test::photo_luma("camera.png");
  HostFrame frame(f, w, h);
  const auto comps = components(frame.view());
  for (std::size_t c = 0; c < comps.size(); ++c)
    test::render(test::crop(src, 3 * t + 11 * static_cast<int>(c), 2 * t, comps[c].width, comps[c].height),
                 sigma[c], 77 * t + c + 1, comps[c]);
  return frame;
}

void expect_same(const NoiseTracker& dev, const NoiseTracker& host, const char* what) {
  ASSERT_EQ(dev.sigma().size(), host.sigma().size()) << what;
  for (std::size_t c = 0; c < host.sigma().size(); ++c) {
    EXPECT_EQ(dev.sigma()[c], host.sigma()[c]) << what << " component " << c;
    EXPECT_EQ(dev.last()[c].sigma, host.last()[c].sigma) << what << " component " << c;
    EXPECT_EQ(dev.last()[c].selected, host.last()[c].selected) << what << " component " << c;
    EXPECT_EQ(dev.last()[c].candidates, host.last()[c].candidates) << what << " component " << c;
  }
  // The model (NoiseTrackerSettings::model): the same level sets estimated, the same values.
  const std::vector<NoiseModel> dm = dev.model(), hm = host.model();
  ASSERT_EQ(dm.size(), hm.size()) << what;
  for (std::size_t c = 0; c < hm.size(); ++c) {
    EXPECT_EQ(dev.last_model_levels()[c], host.last_model_levels()[c]) << what << " component " << c;
    ASSERT_EQ(dev.last_models()[c].size(), host.last_models()[c].size()) << what << " component " << c;
    for (std::size_t k = 0; k < host.last_models()[c].size(); ++k)
      EXPECT_EQ(dev.last_models()[c][k].sigma, host.last_models()[c][k].sigma) << what << " component " << c;
    EXPECT_EQ(dm[c].a, hm[c].a) << what << " component " << c;
    EXPECT_EQ(dm[c].b, hm[c].b) << what << " component " << c;
    EXPECT_EQ(dm[c].usable, hm[c].usable) << what << " component " << c;
    ASSERT_EQ(dm[c].levels.size(), hm[c].levels.size()) << what;
    for (std::size_t k = 0; k < hm[c].levels.size(); ++k) {
      EXPECT_EQ(dm[c].levels[k].mean, hm[c].levels[k].mean) << what << " component " << c << " level " << k;
      EXPECT_EQ(dm[c].levels[k].variance, hm[c].levels[k].variance) << what << " component " << c << " level " << k;
      EXPECT_EQ(dm[c].levels[k].selected, hm[c].levels[k].selected) << what << " component " << c << " level " << k;
    }
  }
}

NoiseTrackerSettings with_model(bool model, bool background, int interval = 1) {
  NoiseTrackerSettings s;
  s.model = model;
  s.background = background;
  s.interval = interval;
  return s;
}

// caller_stream false: each device frame is complete before observe(), which
// gets no stream (what the element passes).
void check(PixelFormat f, int w, int h, bool background, bool model = false, int frames = 6, int interval = 1,
           bool caller_stream = true) {
  SCOPED_TRACE(std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) +
               (model ? " with the model" : "") + (background ? ", background" : ", foreground") + ", interval " +
               std::to_string(interval) + (caller_stream ? "" : ", no stream given"));
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    CudaFramePool pool(f, w, h, 3);
    NoiseTracker host(with_model(model, background, interval)), dev(with_model(model, background, interval));
    const std::vector<double> sigma = {10, 4, 25};
    std::vector<CudaFramePool::Handle> held;  // a frame stays in use until its samples are read
    for (int t = 0; t < frames; ++t) {
      const std::vector<double> s = t < frames / 2 ? sigma : std::vector<double>{30, 12, 5};  // a step half way
      HostFrame hf = make_frame(f, w, h, t, s);
      auto d = pool.acquire(stream);
      copy_frame_async(hf.view(), d->view(), stream);
      if (!caller_stream) CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
      dev.observe(d->view(), caller_stream ? stream : nullptr);
      held.push_back(d);
      if (held.size() > 2) held.erase(held.begin());
      host.observe(hf.view());
      expect_same(dev, host, t == 0 ? "first frame (at once)" : "later frame");
      EXPECT_EQ(dev.frames(), host.frames());
      EXPECT_EQ(dev.usable_frames(), host.usable_frames());
    }
    host.flush();
    dev.flush();
    expect_same(dev, host, "after flush");
    EXPECT_EQ(dev.frames(), host.frames());
    EXPECT_EQ(dev.usable_frames(), host.usable_frames());
    held.clear();
  }
  CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  CDN_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GpuNoiseTracker, DeviceFramesGiveTheHostEstimates) {
  CDN_REQUIRE_GPU();
  for (bool background : {false, true}) {
    for (PixelFormat f : all_formats())
      for (auto [w, h] : {std::pair{333, 201}, std::pair{96, 64}, std::pair{35, 18}}) check(f, w, h, background);
    check(PixelFormat::NV12, 1920, 1080, background);
    check(PixelFormat::P010_10LE, 1920, 1080, background);
    check(PixelFormat::NV12, 333, 201, background, false, 6, 1, false);
  }
}

// Without a stream, the tracker copies on a non-blocking stream of its own: its
// copy waits for no other work on the device. Another (blocking) stream is held
// by a host function until the tracker's copy is done, or for 10 s; on the
// legacy default stream the copy would wait the whole 10 s behind it.
TEST(GpuNoiseTracker, WithoutAStreamTheCopyWaitsForNoOtherStream) {
  CDN_REQUIRE_GPU();
  cudaStream_t upload, other;
  CDN_CUDA_CHECK(cudaStreamCreate(&upload));
  CDN_CUDA_CHECK(cudaStreamCreate(&other));
  {
    CudaFramePool pool(PixelFormat::NV12, 640, 360, 2);
    std::vector<CudaFramePool::Handle> frames;
    for (int i = 0; i < 2; ++i) {
      HostFrame hf = make_frame(PixelFormat::NV12, 640, 360, i, {8, 8, 8});
      frames.push_back(pool.acquire(upload));
      copy_frame_async(hf.view(), frames.back()->view(), upload);
    }
    CDN_CUDA_CHECK(cudaStreamSynchronize(upload));
    NoiseTracker t(with_model(false, false));
    t.observe(frames[0]->view());  // the staging memory made before the other stream is held

    std::atomic<bool> release{false}, done{false}, released_late{false};
    CDN_CUDA_CHECK(cudaLaunchHostFunc(
        other,
        [](void* flag) {
          while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        },
        &release));
    std::thread watchdog([&] {
      for (int i = 0; i < 1000 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      released_late = !done;
      release = true;
    });
    t.observe(frames[1]->view());
    t.flush();  // waits for frame 1's copy
    done = true;
    watchdog.join();
    EXPECT_FALSE(released_late) << "the tracker's copy waited for another stream's work";
    EXPECT_EQ(t.frames(), 2);
    CDN_CUDA_CHECK(cudaStreamSynchronize(other));
  }
  CDN_CUDA_CHECK(cudaStreamDestroy(other));
  CDN_CUDA_CHECK(cudaStreamDestroy(upload));
}

// One frame in 4 measured (the product's noise-interval): the frames between
// are neither copied nor estimated, on device frames as on host frames; a step
// half way, taken at the second measured frame after it.
TEST(GpuNoiseTracker, DeviceFramesGiveTheHostEstimatesAtAnInterval) {
  CDN_REQUIRE_GPU();
  for (bool background : {false, true}) {
    for (bool model : {false, true}) {
      check(PixelFormat::NV12, 333, 201, background, model, 40, 4);
      check(PixelFormat::P010_10LE, 1920, 1080, background, model, 40, 4);
    }
  }
}

// The noise model over frames (NoiseTrackerSettings::model): device frames give
// the host frames' model() bit for bit (the level sets are estimated on the
// sigma estimate's candidates, from the staged bands on the device path), long
// enough for every level set to be visited and a step of the noise.
TEST(GpuNoiseTracker, DeviceFramesGiveTheHostModel) {
  CDN_REQUIRE_GPU();
  for (bool background : {false, true}) {
    for (PixelFormat f : all_formats()) check(f, 333, 201, background, true, 20);
    check(PixelFormat::NV12, 96, 64, background, true, 20);
    check(PixelFormat::NV12, 1920, 1080, background, true, 24);
    check(PixelFormat::P010_10LE, 1920, 1080, background, true, 24);
  }
}

// One stream, frames in host and device memory by turns (a stream may mix):
// the same values (sigma and the model) as the same frames all in host memory.
TEST(GpuNoiseTracker, MixedHostAndDeviceFramesFollowOneSchedule) {
  CDN_REQUIRE_GPU();
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreate(&stream));
  for (bool background : {false, true}) {
    SCOPED_TRACE(background ? "background" : "foreground");
    const PixelFormat f = PixelFormat::NV12;
    CudaFramePool pool(f, 320, 240, 3);
    NoiseTracker mixed(with_model(true, background)), host(with_model(true, background));
    std::vector<CudaFramePool::Handle> held;
    for (int t = 0; t < 12; ++t) {
      HostFrame hf = make_frame(f, 320, 240, t, t < 6 ? std::vector<double>{6, 3, 9} : std::vector<double>{18, 9, 4});
      if (t % 3 == 1 || t % 5 == 2) {  // runs of one and two frames of each
        mixed.observe(hf.view());
      } else {
        auto d = pool.acquire(stream);
        copy_frame_async(hf.view(), d->view(), stream);
        mixed.observe(d->view(), stream);
        held.push_back(d);
        if (held.size() > 2) held.erase(held.begin());
      }
      host.observe(hf.view());
      expect_same(mixed, host, "mixed");
    }
    mixed.flush();
    host.flush();
    expect_same(mixed, host, "after flush");
    held.clear();
  }
  CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  CDN_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Background: and frame 1's estimate on the worker.
TEST(GpuNoiseTracker, ResetWithACopyInFlight) {
  CDN_REQUIRE_GPU();
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreate(&stream));
  for (bool background : {false, true}) {
    SCOPED_TRACE(background ? "background" : "foreground");
    CudaFramePool pool(PixelFormat::NV12, 640, 360, 2);
    NoiseTracker t(with_model(false, background));
    for (int i = 0; i < 3; ++i) {
      HostFrame hf = make_frame(PixelFormat::NV12, 640, 360, i, {8, 8, 8});
      auto d = pool.acquire(stream);
      copy_frame_async(hf.view(), d->view(), stream);
      t.observe(d->view(), stream);
    }
    t.reset();  // takes the pending copies, forgets them (and the estimate in flight)
    EXPECT_FALSE(t.known());
    HostFrame hf = make_frame(PixelFormat::NV12, 640, 360, 5, {8, 8, 8});
    auto d = pool.acquire(stream);
    copy_frame_async(hf.view(), d->view(), stream);
    t.observe(d->view(), stream);  // a new stream: its first frame at once
    EXPECT_TRUE(t.known());
    EXPECT_NEAR(t.sigma()[0], 8, 0.8);
  }
  CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  CDN_CUDA_CHECK(cudaStreamDestroy(stream));
}

#else

TEST(GpuNoiseTracker, DeviceFramesGiveTheHostEstimates) { GTEST_SKIP() << "built without CUDA"; }
TEST(GpuNoiseTracker, DeviceFramesGiveTheHostModel) { GTEST_SKIP() << "built without CUDA"; }

#endif

}  // namespace
}  // namespace cdn
