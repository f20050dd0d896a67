// vbm3d_table.cpp: the V-BM3D timings of cudadenoise-bench (vbm3d_table.h).
#include "vbm3d_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "content.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_pump.h"
#include "cudadenoise/vbm3d_params.h"
#include "vbm3d/vbm3d_reference.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "vbm3d/vbm3d_cuda.h"
#endif

namespace cdn::bench {

namespace {

struct Profile {
  const char* name;
  Vbm3dParams params;
};

// `frames` frames of w x h: a window panning (3, 2) pixels a frame over the
// source tiled into a larger frame, each frame with its own AWGN (sigma 10 on
// top of make_frame's 25).
std::vector<HostFrame> panning_clip(const FrameView& source, PixelFormat f, int w, int h, int frames) {
  const HostFrame big = make_frame(source, f, w + 3 * frames + 2, h + 2 * frames + 2);
  std::vector<HostFrame> clip;
  const auto b = components(big.view());
  for (int i = 0; i < frames; ++i) {
    clip.emplace_back(f, w, h);
    const auto d = components(clip.back().view());
    for (std::size_t c = 0; c < d.size(); ++c) {
      const int sx = d[c].width < w ? 2 : 1, sy = d[c].height < h ? 2 : 1;
      for (int y = 0; y < d[c].height; ++y)
        for (int x = 0; x < d[c].width; ++x) d[c].set(x, y, b[c].get(x + 3 * i / sx, y + 2 * i / sy));
    }
    add_gaussian_noise(clip.back().view(), 10.0, 100 + i);
  }
  return clip;
}

std::vector<double> sigmas(PixelFormat f) {
  return std::vector<double>(format_info(f).components, 25.0 * (1 << (format_info(f).bit_depth - 8)));
}

#ifdef CDN_HAVE_CUDA
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void gpu_row(const FrameView& source, PixelFormat f, int w, int h, const Profile& p, int iterations, int chunk) {
  const int reach = p.params.reach(), n = chunk + 2 * reach;
  const std::vector<HostFrame> clip = panning_clip(source, f, w, h, n);
  CudaFramePool pool(f, w, h, n + chunk);
  std::vector<CudaFramePool::Handle> din, dout;
  std::vector<FrameView> window, outs;
  for (const HostFrame& frame : clip) {
    din.push_back(pool.acquire(nullptr));
    copy_frame_async(frame.view(), din.back()->view(), nullptr);
    window.push_back(din.back()->view());
  }
  for (int i = 0; i < chunk; ++i) {
    dout.push_back(pool.acquire(nullptr));
    outs.push_back(dout.back()->view());
  }
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  Vbm3dCuda v;
  v.enable_timing(true);
  std::vector<double> total, motion, match, filter, other;
  const int filtered = format_info(f).components;
  for (int i = 0; i <= iterations; ++i) {
    // The chunk's outputs are frames reach .. reach + chunk - 1 of the window:
    // every one has its full window, as in the middle of a stream.
    const auto a = std::chrono::steady_clock::now();
    v.run(window, reach, reach + chunk, outs, filtered, p.params, sigmas(f), nullptr);
    CDN_CUDA_CHECK(cudaDeviceSynchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
    if (i == 0) continue;  // warm-up: allocations, module load
    const Vbm3dCuda::Timing t = v.last_timing();
    total.push_back(ms / chunk);
    motion.push_back(t.motion / chunk);
    match.push_back(t.matching / chunk);
    filter.push_back(t.filtering / chunk);
    other.push_back(t.other / chunk);
  }
  const double ms = median(total);
  std::printf("%-8s %4dx%-5d %-7s %-4s %9.2f %9.2f %9.2f %12.2f %8.2f %8.1f %9.0f\n", p.name, w, h, format_name(f),
              "gpu", ms, median(motion), median(match), median(filter), median(other), 1000.0 / ms,
              v.device_bytes() / 1048576.0);
  std::fflush(stdout);
}
// The whole mode as the element and the tools run it: device frames pushed
// into and popped from a CUDA StreamDenoiser (windows, chunks and their extra
// basic estimates, motion, every plane), `frames` frames of a panning clip
// played back and forth; wall-clock ms per frame from the first push to the
// last pop, and the device memory the stream holds (cudaMemGetInfo before it
// is made and after the last frame).
void stream_row(const FrameView& source, PixelFormat f, int w, int h, const char* name, const DenoiseSettings& s,
                int frames) {
  const int distinct = 16;
  const std::vector<HostFrame> clip = panning_clip(source, f, w, h, distinct);
  CudaFramePool pool(f, w, h, distinct + 1);
  std::vector<CudaFramePool::Handle> din;
  for (const HostFrame& frame : clip) {
    din.push_back(pool.acquire(nullptr));
    copy_frame_async(frame.view(), din.back()->view(), nullptr);
  }
  auto dout = pool.acquire(nullptr);
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  auto frame_at = [&](int i) {  // 0 1 .. 15 14 .. 1 0 1 ..
    const int period = 2 * (distinct - 1), k = i % period;
    return din[k < distinct ? k : period - k]->view();
  };
  using clock = std::chrono::steady_clock;
  std::size_t free0 = 0, free1 = 0, total = 0;
  double ms = 0;
  for (int pass = 0; pass < 2; ++pass) {  // pass 0: warm-up (module load, first allocations)
    const int n = pass == 0 ? std::min(frames, 8) : frames;
    CDN_CUDA_CHECK(cudaMemGetInfo(&free0, &total));
    auto d = StreamDenoiser::create(Backend::Cuda, s, f, w, h);
    int out = 0;
    FunctionSink sink([&] { return dout->view(); }, [&] { return ++out > 0; });
    const auto a = clock::now();
    for (int i = 0; i < n; ++i) {
      d->push(frame_at(i));
      pop_ready(*d, sink);
    }
    drain(*d, sink);
    CDN_CUDA_CHECK(cudaDeviceSynchronize());
    ms = std::chrono::duration<double, std::milli>(clock::now() - a).count() / n;
    CDN_CUDA_CHECK(cudaMemGetInfo(&free1, &total));
    if (out != n) throw Error("bench: vbm3d frames out differ from frames in");
  }
  std::printf("%-16s %4dx%-5d %-9s %8d %10.2f %8.1f %10.0f %8d\n", name, w, h, format_name(f), frames, ms, 1000.0 / ms,
              (static_cast<double>(free0) - static_cast<double>(free1)) / 1048576.0,
              StreamDenoiser::latency_frames_for(s));
  std::fflush(stdout);
}
#endif

void cpu_row(const FrameView& source, const Profile& p) {
  const int w = 320, h = 240, n = 1 + 2 * p.params.reach();
  const std::vector<HostFrame> clip = panning_clip(source, PixelFormat::GRAY8, w, h, n);
  std::vector<FrameView> window;
  for (const HostFrame& f : clip) window.push_back(f.view());
  HostFrame out(PixelFormat::GRAY8, w, h);
  const auto a = std::chrono::steady_clock::now();
  vbm3d_frame_reference(window, p.params.reach(), out.view(), 1, p.params, sigmas(PixelFormat::GRAY8));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
  std::printf("%-8s %4dx%-5d %-7s %-4s %9.2f %9s %9s %12s %8s %8.2f %9s  (one frame from its window: "
              "every basic estimate it reads)\n",
              p.name, w, h, "GRAY8", "cpu", ms, "-", "-", "-", "-", 1000.0 / ms, "-");
  std::fflush(stdout);
}

}  // namespace

void vbm3d_table(const FrameView& source, int iterations, int chunk, bool gpu, bool cpu, bool stream_only) {
  const Profile profiles[] = {{"quality", vbm3d_quality_profile()}, {"fast", vbm3d_fast_profile()}};
  std::printf("\nvbm3d, sigma 25, a clip panning (3, 2) pixels a frame, chunks of %d frames: ms per output frame\n"
              "(GPU: median of %d chunks after a warm-up; motion estimation, block matching, filtering with\n"
              "aggregation and the rest split by CUDA events); device memory held by the filter\n",
              chunk, iterations);
  std::printf("%-8s %-10s %-7s %-4s %9s %9s %9s %12s %8s %8s %9s\n", "profile", "size", "format", "dev", "total ms",
              "motion", "match", "filter+agg", "other", "fps", "GPU MiB");
#ifdef CDN_HAVE_CUDA
  if (gpu && !stream_only) {
    for (const Profile& p : profiles) {
      gpu_row(source, PixelFormat::GRAY8, 1920, 1080, p, iterations, chunk);
      gpu_row(source, PixelFormat::NV12, 1920, 1080, p, iterations, chunk);
      gpu_row(source, PixelFormat::P010_10LE, 1920, 1080, p, iterations, chunk);
    }
    gpu_row(source, PixelFormat::NV12, 3840, 2160, profiles[0], 1, std::min(chunk, 10));
    // Variants that docs/VBM3D.md's whole-clip table measures too: the quality profile before 2026-11-25
    // (frame aggregation, steps 5 / 3, groups of 16 / 32 with up to 32 members of frame t), the same with the
    // group aggregation, and the quality profile at radius 6.
    Profile qf{"q-before", vbm3d_quality_profile()};
    qf.params.aggregation = Vbm3dAggregation::Frame;
    qf.params.hard = Vbm3dPhaseParams{4, 5, 39, 3, 2, 2, 16, 2500.f, 32};
    qf.params.wiener = Vbm3dPhaseParams{4, 3, 25, 3, 2, 2, 32, 400.f, 32};
    gpu_row(source, PixelFormat::NV12, 1920, 1080, qf, iterations, chunk);
    Profile qg = qf;
    qg.name = "q-before-group";
    qg.params.aggregation = Vbm3dAggregation::Group;
    gpu_row(source, PixelFormat::NV12, 1920, 1080, qg, iterations, chunk);
    Profile r6{"q-radius6", vbm3d_quality_profile()};
    r6.params.hard.radius = r6.params.wiener.radius = 6;
    gpu_row(source, PixelFormat::NV12, 1920, 1080, r6, iterations, chunk);
    gpu_row(source, PixelFormat::NV12, 1920, 1080, Profile{"wide", vbm3d_wide_profile()}, iterations, chunk);
    Profile ff{"f-frame", vbm3d_fast_profile()};
    ff.params.aggregation = Vbm3dAggregation::Frame;
    gpu_row(source, PixelFormat::NV12, 1920, 1080, ff, iterations, chunk);
  }
  if (gpu) {

    std::printf("\nvbm3d through StreamDenoiser (CUDA, device frames in and out; sigma 20): wall-clock ms per frame\n"
                "from the first push to the last pop, device memory held by the stream, latency in frames\n");
    std::printf("%-16s %-10s %-9s %8s %10s %8s %10s %8s\n", "settings", "size", "format", "frames", "ms/frame", "fps",
                "GPU MiB", "latency");
    struct Named {
      const char* name;
      int profile;
      bool causal;
    };
    const Named named[] = {{"quality", 0, false}, {"fast", 1, false}, {"quality causal", 0, true},
                           {"fast causal", 1, true}, {"wide", 3, false}};
    for (const Named& m : named) {
      DenoiseSettings s;
      s.mode = Mode::Vbm3d;
      s.sigma = 20;
      s.vbm3d.profile = m.profile;
      if (m.causal) s.window = TemporalWindow::Causal;
      s.vbm3d.chunk = chunk;
      stream_row(source, PixelFormat::NV12, 1920, 1080, m.name, s, m.causal ? 40 : 3 * chunk);
    }
    for (const Named& m : {named[0]}) {
      if (stream_only) break;
      DenoiseSettings s;
      s.mode = Mode::Vbm3d;
      s.sigma = 20;
      s.vbm3d.profile = m.profile;
      s.vbm3d.chunk = chunk;
      stream_row(source, PixelFormat::NV12, 3840, 2160, m.name, s, chunk + 10);
    }
  }
#else
  (void)gpu;
  (void)iterations;
  (void)chunk;
#endif
  if (cpu)
    for (const Profile& p : profiles) cpu_row(source, p);
}

}  // namespace cdn::bench
