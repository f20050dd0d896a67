// bm3d_table.cpp: the BM3D timings of cudadenoise-bench (bm3d_table.h).
#include "bm3d_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "content.h"
#include "cudadenoise/stream_denoiser.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "bm3d/bm3d_cuda.h"
#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace cdn::bench {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Profile {
  std::string name;
  Bm3dSettings params;
  int match_split = 0;  // Bm3dCuda::set_match_split: 0 chooses by the grid
};

Profile named_profile(Bm3dProfile profile, int match_split = 0) {
  Profile p{bm3d_profile_name(profile), Bm3dSettings{}, match_split};
  if (match_split) p.name += " t" + std::to_string(match_split);
  p.params.profile = profile;
  return p;
}

#ifdef CDN_HAVE_CUDA
void gpu_row(const FrameView& host, const Profile& profile, int iterations) {
  const int filtered = format_info(host.format).components;
  CudaFramePool pool(host.format, host.width, host.height, 2);
  auto din = pool.acquire(nullptr), dout = pool.acquire(nullptr);
  copy_frame_async(host, din->view(), nullptr);
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  Bm3dCuda bm3d;
  bm3d.enable_timing(true);
  bm3d.set_match_split(profile.match_split);
  const std::vector<double> sigma(filtered, 25.0 * (1 << (format_info(host.format).bit_depth - 8)));
  std::vector<double> total, match, filter, other;
  for (int i = 0; i <= iterations; ++i) {
    const auto a = std::chrono::steady_clock::now();
    bm3d.run(components(din->view()), components(dout->view()), filtered, profile.params, sigma, nullptr);
    CDN_CUDA_CHECK(cudaDeviceSynchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
    if (i == 0) continue;  // warm-up: allocations, module load
    const Bm3dCuda::Timing t = bm3d.last_timing();
    total.push_back(ms);
    match.push_back(t.block_matching);
    filter.push_back(t.filtering);
    other.push_back(t.other);
  }
  const double ms = median(total);
  std::printf("%-11s %4dx%-5d %-7s %-4s %10.2f %10.2f %12.2f %8.2f %8.1f %9.0f\n", profile.name.c_str(), host.width,
              host.height, format_name(host.format), "gpu", ms, median(match), median(filter), median(other),
              1000.0 / ms, bm3d.device_bytes() / 1048576.0);
  std::fflush(stdout);
}
#endif

void cpu_row(const FrameView& host, const Profile& profile) {
  DenoiseSettings s;
  s.mode = Mode::Bm3d;
  s.bm3d = profile.params;
  s.sigma = 25;
  auto d = StreamDenoiser::create(Backend::Cpu, s, host.format, host.width, host.height);
  HostFrame out(host.format, host.width, host.height);
  const auto a = std::chrono::steady_clock::now();
  d->process(host, out.view());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
  std::printf("%-11s %4dx%-5d %-7s %-4s %10.2f %10s %12s %8s %8.2f %9s\n", profile.name.c_str(), host.width, host.height,
              format_name(host.format), "cpu", ms, "-", "-", "-", 1000.0 / ms, "-");
  std::fflush(stdout);
}

}  // namespace

void bm3d_table(const FrameView& source, const std::vector<std::pair<int, int>>& sizes, int iterations, bool gpu,
                bool cpu) {
  std::printf("\nbm3d, sigma 25: ms per frame (GPU: median of %d runs after a warm-up; block matching, filtering\n"
              "with aggregation and the rest split by CUDA events); device memory held by the filter\n",
              iterations);
  std::printf("%-11s %-10s %-7s %-4s %10s %10s %12s %8s %8s %9s\n", "profile", "size", "format", "dev", "total ms",
              "match ms", "filter+agg ms", "other ms", "fps", "GPU MiB");
#ifdef CDN_HAVE_CUDA
  if (gpu) {
    for (const auto& [w, h] : sizes) {
      for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12})
        for (Bm3dProfile profile : {Bm3dProfile::Paper, Bm3dProfile::Reference}) {
          const HostFrame in = make_frame(source, f, w, h);
          gpu_row(in.view(), named_profile(profile), iterations);
        }
      const HostFrame in = make_frame(source, PixelFormat::GRAY8, w, h);
      for (Bm3dProfile profile : {Bm3dProfile::Fast, Bm3dProfile::Balanced, Bm3dProfile::Quick, Bm3dProfile::Rapid,
                                  Bm3dProfile::Draft})
        gpu_row(in.view(), named_profile(profile), iterations);
      // The 8-bit block matching with 1, 2 and 4 threads per reference ("t1".. "t4";
      // the rows above choose by the grid's size): the same output, other times.
      for (Bm3dProfile profile : {Bm3dProfile::Balanced, Bm3dProfile::Quick, Bm3dProfile::Rapid, Bm3dProfile::Draft})
        for (int split : {1, 2, 4}) gpu_row(in.view(), named_profile(profile, split), iterations);
      const HostFrame nv12 = make_frame(source, PixelFormat::NV12, w, h);
      gpu_row(nv12.view(), named_profile(Bm3dProfile::Balanced), iterations);
    }
    // Device memory at 4K and 8K (the filter grows to the largest frame it sees).
    for (const auto& [w, h] : {std::pair{3840, 2160}, std::pair{7680, 4320}}) {
      const HostFrame big = make_frame(source, PixelFormat::GRAY8, w, h);
      for (Bm3dProfile profile : {Bm3dProfile::Reference, Bm3dProfile::Balanced, Bm3dProfile::Rapid})
        gpu_row(big.view(), named_profile(profile), 1);
    }
  }
#else
  (void)gpu;
  (void)iterations;
#endif
  if (cpu && !sizes.empty()) {
    const HostFrame in = make_frame(source, PixelFormat::GRAY8, sizes[0].first, sizes[0].second);
    cpu_row(in.view(), named_profile(Bm3dProfile::Paper));
    cpu_row(in.view(), named_profile(Bm3dProfile::Reference));
    cpu_row(in.view(), named_profile(Bm3dProfile::Fast));
  }
}

}  // namespace cdn::bench
