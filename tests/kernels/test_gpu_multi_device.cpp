// test_gpu_multi_device.cpp: a temporal stream that spreads its chunks over
// several workers (StreamDenoiser's cuda_devices; issue 36 item 3) gives the
// frames of one device, bit for bit, for every temporal mode of the registry
// at each preset that runs it, every pixel format, and the device lists {0},
// {0, 0}, {0, 0, 0} (several workers on one GPU: the same code path) and, on a
// machine with two GPUs, {1}, {0, 1} and {1, 0, 1} (frames pushed and popped on
// GPU 0, filtered on the others). Short chunks, so each worker gets several.
// Skips without a GPU; says so when there is one GPU and the two-GPU lists
// were left out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/stream_denoiser.h"
#include "test_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/error.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

// The preset's settings with sigma 20 (the automatic level is the stream's, not
// the workers') and, in the centred window, chunks of `chunk` frames.
DenoiseSettings spread_settings(const Preset& p, int chunk) {
  DenoiseSettings s = preset_settings(p);
  s.sigma = 20;
  if (s.window != TemporalWindow::Causal)
    for (const ParamSpec& spec : param_specs()) {
      const std::string name = spec.name;
      if (param_group_applies(spec.group, s.mode) && (name == "chunk-size" || name.find("-chunk") != std::string::npos))
        spec.set(s, chunk);
    }
  return s;
}

std::string list_name(const std::vector<int>& devices) {
  std::string name = "{";
  for (int d : devices) name += (name.size() > 1 ? ", " : "") + std::to_string(d);
  return name + "}";
}

TEST(GpuMultiDevice, EveryTemporalModeGivesOneDevicesFramesOnAnyWorkerList) {
  CDN_REQUIRE_GPU();
  int count = 0;
  CDN_CUDA_CHECK(cudaGetDeviceCount(&count));
  std::vector<std::vector<int>> lists = {{0}, {0, 0}, {0, 0, 0}};
  if (count >= 2) lists.insert(lists.end(), {{1}, {0, 1}, {1, 0, 1}});
  // 6 chunks, the last a short one; CDN_TEST_SMALL (under compute-sanitizer): 3.
  const int frames = std::getenv("CDN_TEST_SMALL") ? 11 : 23, chunk = 4;
  int temporal_presets = 0;
  for (const Preset* p : available_presets()) {
    Mode mode = Mode::Pipd;
    ASSERT_TRUE(parse_mode(p->mode, &mode)) << p->name;
    if (!is_temporal(mode)) continue;
    ++temporal_presets;
    const DenoiseSettings s = spread_settings(*p, chunk);
    for (PixelFormat f : all_formats()) {
      const auto in = test::moving_noisy_clip(f, frames, 64, 48, 500);
      auto one = StreamDenoiser::create(Backend::Cuda, s, f, 64, 48);
      const auto reference = test::run_clip(*one, in);
      ASSERT_EQ(reference.size(), in.size()) << p->name << " " << format_name(f);
      for (const auto& devices : lists) {
        auto many = StreamDenoiser::create(Backend::Cuda, s, f, 64, 48, devices);
        const auto out = test::run_clip(*many, in);
        ASSERT_EQ(out.size(), reference.size()) << p->name << " " << format_name(f) << " " << list_name(devices);
        for (std::size_t i = 0; i < out.size(); ++i)
          ASSERT_TRUE(test::same_samples(reference[i].view(), out[i].view()))
              << p->name << " (" << p->mode << ") " << format_name(f) << " workers " << list_name(devices)
              << ": frame " << i << " differs from one device's";
      }
    }
    std::printf("%s (%s): %zu formats x %zu worker lists identical to one device\n", p->name, p->mode,
                all_formats().size(), lists.size());
  }
  EXPECT_GE(temporal_presets, 2) << "the presets name no temporal mode to spread";
  if (count < 2) std::printf("only %d CUDA device: the two-GPU lists were left out\n", count);
}

#else
TEST(GpuMultiDevice, RequiresCudaBuild) { GTEST_SKIP() << "built without CUDA: no GPU tests"; }
#endif  // CDN_HAVE_CUDA

}  // namespace
}  // namespace cdn
