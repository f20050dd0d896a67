// addnoise_table.cpp: the noise table of cudadenoise-bench (addnoise_table.h).
#include "addnoise_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include "content.h"
#include "cudadenoise/counter_noise.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace cdn::bench {

namespace {

// Median wall-clock ms of `run` over `iterations` calls, after one call.
double median_ms(int iterations, const std::function<void(int)>& run) {
  run(0);  // warm-up: page faults, thread start, module load
  std::vector<double> t;
  for (int i = 1; i <= iterations; ++i) {
    const auto a = std::chrono::steady_clock::now();
    run(i);
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

void addnoise_table(const FrameView& source, int iterations, int cpu_iterations, bool gpu, bool cpu) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::printf("\ncudaaddnoise's noise (sigma 20), ms per frame: xoshiro = add_gaussian_noise (the element's noise\n"
              "before, one sequential stream); counter = Philox4x32-10 + Box-Muller (kernels/include/cudadenoise/counter_noise.h), the\n"
              "element's noise now, on the CPU (1 thread; %u threads) and on the GPU (device frames, launch and\n"
              "synchronize)\n",
              threads);
  std::printf("%-10s %-10s %-24s %12s %10s %8s\n", "size", "format", "generator", "ms/frame", "fps", "60 fps");
  for (const std::pair<int, int> size : {std::pair{1920, 1080}, std::pair{3840, 2160}})
    for (PixelFormat f : {PixelFormat::NV12, PixelFormat::P010_10LE}) {
      const int w = size.first, h = size.second;  // not a structured binding: the lambdas capture them
      const HostFrame in = make_frame(source, f, w, h);
      HostFrame out(f, w, h);
      auto row = [&](const char* what, double ms) {
        std::printf("%4dx%-5d %-10s %-24s %12.3f %10.1f %8s\n", w, h, format_name(f), what, ms, 1000.0 / ms,
                    ms <= 1000.0 / 60 ? "yes" : "NO");
        std::fflush(stdout);
      };
      if (cpu) {
        row("xoshiro, CPU 1 thread", median_ms(cpu_iterations, [&](int i) {
              copy_host_frame(in.view(), out.view());
              add_gaussian_noise(out.view(), 20, i);
            }));
        row("counter, CPU 1 thread",
            median_ms(cpu_iterations, [&](int i) { add_counter_noise(in.view(), out.view(), 20, i, 1); }));
        char name[40];
        std::snprintf(name, sizeof name, "counter, CPU %u threads", threads);
        row(name, median_ms(cpu_iterations, [&](int i) { add_counter_noise(in.view(), out.view(), 20, i, 0); }));
      }
#ifdef CDN_HAVE_CUDA
      if (gpu) {
        auto noise = CounterNoiseCuda::create();
        CudaFramePool pool(f, w, h, 2);
        auto din = pool.acquire(nullptr), dout = pool.acquire(nullptr);
        copy_frame_async(in.view(), din->view(), nullptr);
        CDN_CUDA_CHECK(cudaDeviceSynchronize());
        row("counter, GPU", median_ms(iterations, [&](int i) { noise->add(din->view(), dout->view(), 20, i); }));
      }
#else
      (void)gpu;
      (void)iterations;
#endif
    }
}

}  // namespace cdn::bench
