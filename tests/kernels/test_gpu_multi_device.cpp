// test_gpu_multi_device.cpp: a temporal stream that spreads its chunks over
// several workers (StreamDenoiser's cuda_devices; issue 36 item 3) gives the
// frames of one device, bit for bit, for every temporal mode of the registry
// at each preset that runs it, every pixel format, and the device lists {0},
// {0, 0}, {0, 0, 0} (several workers on one GPU: the same code path) and, on a
// machine with two GPUs, {1}, {0, 1} and {1, 0, 1} (frames pushed and popped on
// GPU 0, filtered on the others). Short chunks, so each worker gets several.
// Skips without a GPU; says so when there is one GPU and the two-GPU lists
// were left out. And {0, 1} from a thread whose current context is an
// application's own (not primary) context on GPU 0, as a GstCudaContext is: the
// element's case, which the runtime's device-wide peer-access call refused.
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
#include <cuda.h>
#include <cudaTypedefs.h>
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

// The presets that run a temporal mode (the tests ask for at least two).
std::vector<const Preset*> temporal_presets() {
  std::vector<const Preset*> found;
  for (const Preset* p : available_presets()) {
    Mode mode = Mode::Pipd;
    if (!parse_mode(p->mode, &mode))
      ADD_FAILURE() << p->name << ": unknown mode " << p->mode;
    else if (is_temporal(mode))
      found.push_back(p);
  }
  return found;
}

// 6 chunks of kChunk, the last a short one; CDN_TEST_SMALL (under compute-sanitizer): 3.
constexpr int kChunk = 4;
int clip_frames() { return std::getenv("CDN_TEST_SMALL") ? 11 : 23; }

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
  const int frames = clip_frames();
  const auto presets = temporal_presets();
  ASSERT_GE(presets.size(), 2u) << "the presets name no temporal mode to spread";
  for (const Preset* p : presets) {
    const DenoiseSettings s = spread_settings(*p, kChunk);
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
  if (count < 2) std::printf("only %d CUDA device: the two-GPU lists were left out\n", count);
}

// A context of the application's own on `device`, current on this thread for the
// object's life (driver API through the runtime's entry points: no link against
// libcuda). The entry points are asked for by the version of the signature used:
// asked for at 12.0, "cuCtxCreate" is 11.4's, which takes affinity parameters.
class ApplicationContext {
 public:
  explicit ApplicationContext(int device) {
    CDN_CUDA_CHECK(cudaFree(nullptr));  // the runtime's state first
    const CUresult rc = entry<PFN_cuCtxCreate_v3020>("cuCtxCreate", 3020)(&context_, 0, device);
    if (rc != CUDA_SUCCESS) throw Error("cuCtxCreate failed: CUDA driver error " + std::to_string(static_cast<int>(rc)));
  }
  ~ApplicationContext() {
    CUcontext popped = nullptr;
    entry<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent", 4000)(&popped);
    entry<PFN_cuCtxDestroy_v4000>("cuCtxDestroy", 4000)(context_);
  }
  bool is_current() const {
    CUcontext now = nullptr;
    entry<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000)(&now);
    return now == context_;
  }

 private:
  template <typename F>
  static F entry(const char* name, unsigned int version) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    CDN_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !fn) throw Error(std::string("CUDA driver lacks ") + name);
    return reinterpret_cast<F>(fn);
  }
  CUcontext context_ = nullptr;
};

TEST(GpuMultiDevice, WorkersOnTwoGpusFromAnApplicationsOwnContext) {
  CDN_REQUIRE_GPU();
  int count = 0;
  CDN_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "needs two CUDA devices (" << count << " here)";
  const ApplicationContext app(0);
  ASSERT_TRUE(app.is_current());
  const auto presets = temporal_presets();
  ASSERT_GE(presets.size(), 2u) << "the presets name no temporal mode to spread";
  for (const Preset* p : presets) {
    const DenoiseSettings s = spread_settings(*p, kChunk);
    const auto in = test::moving_noisy_clip(PixelFormat::NV12, clip_frames(), 64, 48, 700);
    auto one = StreamDenoiser::create(Backend::Cuda, s, PixelFormat::NV12, 64, 48);
    const auto reference = test::run_clip(*one, in);
    auto many = StreamDenoiser::create(Backend::Cuda, s, PixelFormat::NV12, 64, 48, {0, 1});
    const auto out = test::run_clip(*many, in);
    ASSERT_EQ(out.size(), reference.size()) << p->name;
    for (std::size_t i = 0; i < out.size(); ++i)
      ASSERT_TRUE(test::same_samples(reference[i].view(), out[i].view()))
          << p->name << " (" << p->mode << ") workers {0, 1}: frame " << i << " differs from one device's";
    EXPECT_TRUE(app.is_current()) << p->name << ": the application's context is no longer current";
  }
}

#else
TEST(GpuMultiDevice, RequiresCudaBuild) { GTEST_SKIP() << "built without CUDA: no GPU tests"; }
#endif  // CDN_HAVE_CUDA

}  // namespace
}  // namespace cdn
