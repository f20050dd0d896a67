// clip_table.cpp: the real-footage timings of cudadenoise-bench (clip_table.h).
#include "clip_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "cudadenoise/error.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/named_sets.h"
#include "cudadenoise/stream_denoiser.h"
#include "cudadenoise/stream_pump.h"
#include "y4m.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace cdn::bench {

namespace {

#ifdef CDN_HAVE_CUDA
// The clip's frame in `f` (GRAY8: its luma; NV12: its three components, the
// chroma planes of a 4:2:0 clip interleaved), with AWGN sigma 20 on every plane.
HostFrame noisy_frame(const FrameView& src, PixelFormat f, std::uint64_t seed) {
  HostFrame out(f, src.width, src.height);
  const auto s = components(src), d = components(out.view());
  if (d.size() > s.size()) throw Error("bench: --clip needs a 4:2:0 clip for NV12");
  for (std::size_t c = 0; c < d.size(); ++c) {
    if (d[c].width != s[c].width || d[c].height != s[c].height) throw Error("bench: --clip needs a 4:2:0 clip for NV12");
    for (int y = 0; y < d[c].height; ++y)
      for (int x = 0; x < d[c].width; ++x) d[c].set(x, y, s[c].get(x, y));
  }
  add_gaussian_noise(out.view(), 20.0, seed);
  return out;
}

struct Named {
  std::string name;
  DenoiseSettings settings;
};

std::vector<Named> settings() {
  std::vector<Named> v;
  auto vbm = [](int profile, bool causal) {
    DenoiseSettings s;
    s.mode = Mode::Vbm3d;
    s.vbm3d.profile = profile;
    s.vbm3d.causal = causal;
    s.sigma = 20;
    return s;
  };
  for (const NamedSet* set : named_sets_of("nlm3d")) {  // named_sets.h
    Named n{std::string("nlm3d ") + set->name, named_set_settings(*set)};
    n.settings.sigma = 20;
    v.push_back(n);
  }
  v.push_back({"vbm3d quality", vbm(0, false)});
  v.push_back({"vbm3d fast", vbm(1, false)});
  return v;
}

// Wall-clock ms per frame of `length` frames through the stream: frame_at(i)
// gives the i-th input (played forwards and backwards), out_view takes every
// output. Device or host frames alike (host frames: the stream's copies are timed).
template <typename FrameAt>
double stream_ms(const DenoiseSettings& s, FrameAt frame_at, const FrameView& out_view, int length) {
  const FrameView first = frame_at(0);
  double ms = 0;
  for (int pass = 0; pass < 2; ++pass) {  // pass 0: warm-up (module load, first allocations)
    const int count = pass == 0 ? std::min(length, 8) : length;
    auto d = StreamDenoiser::create(Backend::Cuda, s, first.format, first.width, first.height);
    int out = 0;
    FunctionSink sink([&] { return out_view; }, [&] { return ++out > 0; });
    const auto a = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
      d->push(frame_at(i));
      pop_ready(*d, sink);
    }
    drain(*d, sink);
    CDN_CUDA_CHECK(cudaDeviceSynchronize());
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count() / count;
    if (out != count) throw Error("bench: frames out differ from frames in");
  }
  return ms;
}

// Frame i of 0 1 .. n-1 n-2 .. 1 0 1 .. (n frames).
int ping_pong(int i, int n) {
  if (n == 1) return 0;
  const int period = 2 * (n - 1), k = i % period;
  return k < n ? k : period - k;
}
#endif

}  // namespace

void clip_table(const std::vector<std::string>& clips, int frames, int length, bool gpu) {
  if (clips.empty()) return;
  std::printf("\nreal footage through StreamDenoiser (CUDA, device frames in and out, then host frames): each clip's first %d frames,\n"
              "AWGN sigma 20 (seed 2024 + frame) on every plane, played forwards and backwards for %d frames;\n"
              "wall-clock ms per frame from the first push to the last pop (motion estimation included);\n"
              "end to end: the same with the frames in host memory (pageable), the stream's copies included\n",
              frames, length);
  std::printf("%-24s %-10s %-7s %-26s %10s %8s %12s\n", "clip", "size", "format", "settings", "ms/frame", "fps",
              "end-to-end");
#ifdef CDN_HAVE_CUDA
  if (!gpu) return;
  for (const std::string& path : clips) {
    eval::Y4mReader reader(path);
    const eval::Y4mInfo info = reader.info();
    std::vector<HostFrame> source;
    while (static_cast<int>(source.size()) < frames) {
      HostFrame f(info.format, info.width, info.height);
      if (!reader.read(f.view())) break;
      source.push_back(std::move(f));
    }
    if (source.empty()) throw Error("bench: " + path + " holds no frame");
    const std::string name = path.substr(path.find_last_of('/') + 1);
    for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12}) {
      CudaFramePool pool(f, info.width, info.height, static_cast<int>(source.size()) + 1);
      std::vector<CudaFramePool::Handle> dev;
      std::vector<HostFrame> host;
      for (std::size_t i = 0; i < source.size(); ++i) {
        host.push_back(noisy_frame(source[i].view(), f, 2024 + i));
        dev.push_back(pool.acquire(nullptr));
        copy_frame_async(host.back().view(), dev.back()->view(), nullptr);
        CDN_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      }
      auto out = pool.acquire(nullptr);
      HostFrame host_out(f, info.width, info.height);
      const int n = static_cast<int>(source.size());
      for (const Named& m : settings()) {
        const double ms = stream_ms(m.settings, [&](int i) { return dev[ping_pong(i, n)]->view(); }, out->view(), length);
        const double e2e =
            stream_ms(m.settings, [&](int i) { return host[ping_pong(i, n)].view(); }, host_out.view(), length);
        char size[32];
        std::snprintf(size, sizeof size, "%dx%d", info.width, info.height);
        std::printf("%-24s %-10s %-7s %-26s %10.2f %8.1f %12.2f\n", name.c_str(), size, format_name(f), m.name.c_str(), ms,
                    1000.0 / ms, e2e);
        std::fflush(stdout);
      }
    }
  }
#else
  (void)gpu;
#endif
}

}  // namespace cdn::bench
