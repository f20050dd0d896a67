// clip_table.cpp: the real-footage timings of cudadenoise-bench (clip_table.h),
// timed by the evaluation's runner (tools/common/mode_runner.h), as the report is.
#include "clip_table.h"

#include <cstdio>
#include <string>

#include "cudadenoise/error.h"
#include "cudadenoise/named_sets.h"
#include "cudadenoise/noise.h"
#include "mode_runner.h"
#include "y4m.h"

namespace cdn::bench {

namespace {

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
  auto vbm = [](int profile) {
    DenoiseSettings s;
    s.mode = Mode::Vbm3d;
    s.vbm3d.profile = profile;
    s.sigma = 20;
    return s;
  };
  for (const NamedSet* set : named_sets_of("nlm3d")) {  // named_sets.h
    Named n{std::string("nlm3d ") + set->name, named_set_settings(*set)};
    n.settings.sigma = 20;
    v.push_back(n);
  }
  v.push_back({"vbm3d quality", vbm(0)});
  v.push_back({"vbm3d fast", vbm(1)});
  return v;
}

}  // namespace

void clip_table(const std::vector<std::string>& clips, int frames, int length, bool gpu) {
  if (clips.empty()) return;
  std::printf("\nreal footage through StreamDenoiser (CUDA, device frames in and out, then host frames): each clip's first %d frames,\n"
              "AWGN sigma 20 (seed 2024 + frame) on every plane, played forwards and backwards for %d frames;\n"
              "wall-clock ms per frame from the first push to the last pop (motion estimation included), after a\n"
              "warm-up stream (tools/common/mode_runner.h); end to end: the same with the frames in host memory\n"
              "(pageable), the stream's copies included\n",
              frames, length);
  std::printf("%-24s %-10s %-7s %-26s %10s %8s %12s\n", "clip", "size", "format", "settings", "ms/frame", "fps",
              "end-to-end");
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
    char size[32];
    std::snprintf(size, sizeof size, "%dx%d", info.width, info.height);
    for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12}) {
      std::vector<HostFrame> noisy;
      for (std::size_t i = 0; i < source.size(); ++i) noisy.push_back(noisy_frame(source[i].view(), f, 2024 + i));
      for (const Named& m : settings()) {
        const eval::ModeRun r = eval::run_mode(noisy, Backend::Cuda, m.settings, 1, 1, length);
        std::printf("%-24s %-10s %-7s %-26s %10.2f %8.1f %12.2f\n", name.c_str(), size, format_name(f),
                    m.name.c_str(), r.device_ms, 1000.0 / r.device_ms, r.e2e_ms);
        std::fflush(stdout);
      }
    }
  }
}

}  // namespace cdn::bench
