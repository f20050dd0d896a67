// preset_table.cpp: the presets' speed table of cudadenoise-bench (preset_table.h).
#include "preset_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "content.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/stream_denoiser.h"
#include "cudadenoise/stream_pump.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace cdn::bench {

namespace {

double ms_since(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}

// Ms per frame of a stream through the front door (feed(), stream_pump.h), so
// that temporal presets run their window: a warm-up stream of `warmup` frames,
// then `frames` frames fed and drained, timed up to `settle` after the drain
// (the device stream's synchronisation; nothing for host frames): a temporal
// mode filters most of its frames when a chunk fills or at the drain, so both
// are in the time. The time is divided by the frames fed (the throughput of a
// stream of that length; the same frame each time, so motion is zero). Sigma
// auto: the tracker's work is in it.
double time_stream(StreamDenoiser& den, const FrameView& in, const FrameView& out, int warmup, int frames,
                   void* stream, const std::function<void()>& settle) {
  FunctionSink sink([&] { return out; }, [] { return true; });
  for (int i = 0; i < warmup; ++i) feed(den, in, sink, stream);
  drain(den, sink, stream);
  settle();
  const auto a = std::chrono::steady_clock::now();
  for (int i = 0; i < frames; ++i) feed(den, in, sink, stream);
  drain(den, sink, stream);
  settle();
  return ms_since(a) / frames;
}

// Frames a timed stream holds: a temporal mode's at least two of its default
// chunks (50 frames) so that the drain's partial chunk weighs little; a
// per-frame mode's at least `per_frame_min`.
int stream_frames(const DenoiseSettings& s, int iterations, int per_frame_min) {
  return std::max(iterations, is_temporal(s.mode) ? 100 : per_frame_min);
}

// The time a frame may take for 25 fps.
constexpr double kRealTimeMs = 40.0;

#ifdef CDN_HAVE_CUDA
// On device frames (the zero-copy path).
double time_gpu(const DenoiseSettings& s, const HostFrame& host, int iterations) {
  const FrameView& in = host.view();
  cudaStream_t stream;
  CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  double ms = 0;
  {
    auto den = StreamDenoiser::create(Backend::Cuda, s, in.format, in.width, in.height);
    CudaFramePool pool(in.format, in.width, in.height, 2);
    auto din = pool.acquire(stream), dout = pool.acquire(stream);
    copy_frame_async(in, din->view(), stream);
    ms = time_stream(*den, din->view(), dout->view(), 8, stream_frames(s, iterations, 8), stream,
                     [&] { CDN_CUDA_CHECK(cudaStreamSynchronize(stream)); });
  }
  cudaStreamDestroy(stream);
  return ms;
}
#endif

// On host frames, the CPU backend.
double time_cpu(const DenoiseSettings& s, const HostFrame& host, int iterations) {
  const FrameView& in = host.view();
  auto den = StreamDenoiser::create(Backend::Cpu, s, in.format, in.width, in.height);
  HostFrame out(in.format, in.width, in.height);
  return time_stream(*den, in, out.view(), 1, stream_frames(s, iterations, 1), nullptr, [] {});
}

}  // namespace

void preset_table(const FrameView& source, int iterations, bool gpu, bool cpu) {
  std::printf("\npresets (docs/PRESETS.md): NV12, sigma auto (the noise tracker included), ms per frame\n");
#ifdef CDN_HAVE_CUDA
  if (gpu) {
    std::printf("%-10s %-6s %-20s %-10s %12s %8s %s\n", "preset", "mode", "settings", "size", "GPU ms/frame", "fps",
                "25 fps at 3840x2160");
    for (const Preset* p : available_presets()) {
      const DenoiseSettings s = preset_settings(*p);
      std::string what;
      for (const PresetValue& v : p->values) what += (what.empty() ? "" : ",") + std::string(v.value);
      for (auto [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}}) {
        const HostFrame in = make_frame(source, PixelFormat::NV12, w, h);
        const double ms = time_gpu(s, in, iterations);
        const bool uhd = w == 3840;
        std::printf("%-10s %-6s %-20.20s %4dx%-5d %12.2f %8.1f %s\n", p->name, mode_name(s.mode), what.c_str(), w, h,
                    ms, 1000.0 / ms, uhd ? (ms <= kRealTimeMs ? "yes" : "NO") : "");
        std::fflush(stdout);
      }
    }
  }
#else
  (void)gpu;
#endif
  if (!cpu) return;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const DenoiseSettings s = preset_settings(*find_preset(default_preset_name()));
  std::printf("\n%s on the CPU, %u hardware threads (NV12, sigma auto)\n", default_preset_name(), threads);
  std::printf("%-10s %12s %8s\n", "size", "CPU ms/frame", "fps");
  // The time is not linear in the area at small frames (docs/PRESETS.md, "The
  // CPU path", has the runs), so no size is extrapolated: the answer is the
  // largest size measured at 25 fps or more.
  std::pair<int, int> largest{0, 0};
  double smallest_fps = 0;
  for (auto [w, h] : {std::pair{160, 90}, std::pair{320, 180}, std::pair{640, 360}, std::pair{1280, 720}}) {
    const HostFrame in = make_frame(source, PixelFormat::NV12, w, h);
    const double ms = time_cpu(s, in, std::max(1, iterations / 4));
    std::printf("%4dx%-5d %12.1f %8.1f\n", w, h, ms, 1000.0 / ms);
    std::fflush(stdout);
    if (smallest_fps == 0) smallest_fps = 1000.0 / ms;
    if (ms <= kRealTimeMs) largest = {w, h};
  }
  if (largest.first > 0)
    std::printf("largest 16:9 NV12 frame measured at 25 fps or more on %u threads: %dx%d\n", threads, largest.first,
                largest.second);
  else
    std::printf("no size measured keeps 25 fps on %u threads (160x90: %.1f fps)\n", threads, smallest_fps);
}

}  // namespace cdn::bench
