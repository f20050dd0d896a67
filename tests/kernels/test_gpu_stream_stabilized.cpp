// test_gpu_stream_stabilized.cpp (GPU host): the variance-stabilising stage on
// the CUDA backend (issue 37 item 2; stream/noise_stage.h): the tables' lookup
// kernel gives the host lookup's bytes (every format, odd sizes, in place); a
// stream behind a signal model on device frames gives the bytes of the same
// CUDA stream on host frames (both directions on the device, no host round
// trip), with the caller's CUDA stream and without one, per-frame (bm3d) and
// through a temporal window (vbm3d); and is within BM3D's float rounding of the
// CPU backend. Skips without CUDA or a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_denoiser.h"
#include "noise/stabilizing_tables.h"
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

// A moving photo crop with noise of variance a x + b in every sample (the
// library's add_signal_dependent_noise, issue 37's protocol).
HostFrame noisy_frame(PixelFormat f, int w, int h, int t, double a, double b) {
  static const test::LumaSource src = test::photo_luma("astronaut.png");
  HostFrame frame(f, w, h);
  const auto comps = components(frame.view());
  for (std::size_t c = 0; c < comps.size(); ++c) {
    const PlaneView& p = comps[c];
    test::render(test::crop(src, 40 + 2 * t + 7 * static_cast<int>(c), 50 + t, p.width, p.height), 0.0, 0, p);
  }
  add_signal_dependent_noise(frame.view(), a, b, 100 + t);
  return frame;
}

NoiseModel affine(double a, double b) {
  NoiseModel m;
  m.a = a;
  m.b = b;
  m.usable = true;
  return m;
}

HostFrame download(const FrameView& d, cudaStream_t stream) {
  HostFrame h(d.format, d.width, d.height);
  copy_frame_async(d, h.view(), stream);
  CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  return h;
}

DenoiseSettings signal_model(Mode mode, double a, double b) {
  DenoiseSettings s;
  s.mode = mode;
  s.noise_model = NoiseModelKind::Signal;
  s.noise_a = a;
  s.noise_b = b;
  return s;
}

TEST(GpuStabilizingTables, DeviceLookupGivesTheHostBytes) {
  CDN_REQUIRE_GPU();
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreate(&stream));
  for (const PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::I420, PixelFormat::P010_10LE,
                              PixelFormat::P016_LE, PixelFormat::Y444}) {
    SCOPED_TRACE(format_name(f));
    const int w = 333, h = 201, n = format_info(f).components;
    std::vector<NoiseModel> models = {affine(0.5, 4), affine(2, 2), affine(0.1, 9)};
    models.resize(n);
    const StabilizingTables t(f, NoiseModelKind::Signal, models, std::vector<bool>(n, true));
    const HostFrame in = noisy_frame(f, w, h, 0, 0.5, 4);
    HostFrame fwd(f, w, h), back(f, w, h);
    t.forward_host(in.view(), fwd.view());
    t.inverse_host(fwd.view(), back.view());
    CudaFramePool pool(f, w, h, 2);
    auto d_in = pool.acquire(stream), d_out = pool.acquire(stream);
    copy_frame_async(in.view(), d_in->view(), stream);
    t.forward_device(d_in->view(), d_out->view(), stream);
    EXPECT_TRUE(test::same_samples(download(d_out->view(), stream).view(), fwd.view())) << "forward";
    t.inverse_device(d_out->view(), d_out->view(), stream);  // in place
    EXPECT_TRUE(test::same_samples(download(d_out->view(), stream).view(), back.view())) << "inverse, in place";
  }
  CDN_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GpuStreamStabilized, Bm3dOnDeviceFramesGivesTheHostFramesBytes) {
  CDN_REQUIRE_GPU();
  const PixelFormat f = PixelFormat::NV12;
  const int w = 320, h = 240;
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    const DenoiseSettings s = signal_model(Mode::Bm3d, 0.5, 4);
    auto on_device = StreamDenoiser::create(Backend::Cuda, s, f, w, h);
    auto on_host = StreamDenoiser::create(Backend::Cuda, s, f, w, h);
    auto no_stream = StreamDenoiser::create(Backend::Cuda, s, f, w, h);
    auto cpu = StreamDenoiser::create(Backend::Cpu, s, f, w, h);
    CudaFramePool pool(f, w, h, 4);
    for (int t = 0; t < 3; ++t) {
      SCOPED_TRACE(t);
      const HostFrame in = noisy_frame(f, w, h, t, 0.5, 4);
      auto d_in = pool.acquire(stream), d_out = pool.acquire(stream);
      copy_frame_async(in.view(), d_in->view(), stream);
      on_device->enqueue(d_in->view(), d_out->view(), stream);
      const HostFrame device_out = download(d_out->view(), stream);
      HostFrame host_out(f, w, h), cpu_out(f, w, h);
      on_host->process(in.view(), host_out.view());
      EXPECT_TRUE(test::same_samples(device_out.view(), host_out.view()));
      no_stream->process(d_in->view(), d_out->view(), nullptr);  // the stage's own stream
      EXPECT_TRUE(test::same_samples(download(d_out->view(), stream).view(), host_out.view())) << "no CUDA stream given";
      cpu->process(in.view(), cpu_out.view());
      long long n = 0, sum = 0;
      int worst = 0;
      const auto g = components(host_out.view()), c = components(cpu_out.view());
      for (std::size_t k = 0; k < g.size(); ++k)
        for (int y = 0; y < g[k].height; ++y)
          for (int x = 0; x < g[k].width; ++x) {
            const int d = std::abs(g[k].get(x, y) - c[k].get(x, y));
            worst = std::max(worst, d);
            sum += d;
            ++n;
          }
      // BM3D's float rounding (test_gpu_stream_noise.cpp), behind the transform's tables.
      EXPECT_LE(worst, 2);
      EXPECT_LT(static_cast<double>(sum) / n, 0.05);
    }
  }
  CDN_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GpuStreamStabilized, Vbm3dWindowOnDeviceFramesGivesTheHostFramesBytes) {
  CDN_REQUIRE_GPU();
  const PixelFormat f = PixelFormat::NV12;
  const int w = 256, h = 192, frames = 6;
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    DenoiseSettings s = signal_model(Mode::Vbm3d, 2, 2);
    auto on_device = StreamDenoiser::create(Backend::Cuda, s, f, w, h);
    auto on_host = StreamDenoiser::create(Backend::Cuda, s, f, w, h);
    CudaFramePool pool(f, w, h, 3);
    std::vector<HostFrame> device_outs, host_outs;
    auto d_out = pool.acquire(stream);
    auto drain = [&] {
      while (on_device->pop(d_out->view(), stream)) device_outs.push_back(download(d_out->view(), stream));
      HostFrame o(f, w, h);
      while (on_host->pop(o.view())) {
        host_outs.push_back(std::move(o));
        o = HostFrame(f, w, h);
      }
    };
    for (int t = 0; t < frames; ++t) {
      const HostFrame in = noisy_frame(f, w, h, t, 2, 2);
      auto d_in = pool.acquire(stream);
      copy_frame_async(in.view(), d_in->view(), stream);
      on_device->push(d_in->view(), stream);
      on_host->push(in.view());
      drain();
    }
    on_device->finish();
    on_host->finish();
    drain();
    ASSERT_EQ(device_outs.size(), static_cast<std::size_t>(frames));
    ASSERT_EQ(host_outs.size(), static_cast<std::size_t>(frames));
    for (int t = 0; t < frames; ++t) EXPECT_TRUE(test::same_samples(device_outs[t].view(), host_outs[t].view())) << "frame " << t;
  }
  CDN_CUDA_CHECK(cudaStreamDestroy(stream));
}

#else

TEST(GpuStreamStabilized, Skipped) { GTEST_SKIP() << "built without CUDA"; }

#endif

}  // namespace
}  // namespace cdn
