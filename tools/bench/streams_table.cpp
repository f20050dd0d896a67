// streams_table.cpp: the streams-per-host table of cudadenoise-bench (streams_table.h).
#include "streams_table.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "content.h"
#include "cudadenoise/backend.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/stream_denoiser.h"
#include "cudadenoise/stream_pump.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace cdn::bench {

#ifdef CDN_HAVE_CUDA
namespace {

using Clock = std::chrono::steady_clock;

// Holds every thread until all have warmed up, then lets them go at once.
class StartGate {
 public:
  explicit StartGate(int threads) : waiting_(threads) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m_);
    if (--waiting_ == 0) {
      start_ = Clock::now();
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return waiting_ == 0; });
    }
  }
  Clock::time_point start() const { return start_; }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int waiting_;
  Clock::time_point start_;
};

struct Row {
  double fps_in_all = 0, slowest_fps = 0;
};

// N streams of `frames` frames each, stream i on GPU i % gpus.
Row run_streams(const DenoiseSettings& s, const HostFrame& host, int n, int gpus, int frames) {
  StartGate gate(n);
  std::vector<double> seconds(n, 0);
  std::vector<std::exception_ptr> failures(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      bool waited = false;
      try {
        CDN_CUDA_CHECK(cudaSetDevice(i % gpus));
        cudaStream_t stream;
        CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        {
          const FrameView& in = host.view();
          auto den = StreamDenoiser::create(Backend::Cuda, s, in.format, in.width, in.height);
          CudaFramePool pool(in.format, in.width, in.height, 2);
          auto din = pool.acquire(stream), dout = pool.acquire(stream);
          copy_frame_async(in, din->view(), stream);
          FunctionSink sink([&] { return dout->view(); }, [] { return true; });
          for (int f = 0; f < 8; ++f) feed(*den, din->view(), sink, stream);  // warm-up: modules, pools
          drain(*den, sink, stream);
          CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
          waited = true;
          gate.arrive_and_wait();
          for (int f = 0; f < frames; ++f) feed(*den, din->view(), sink, stream);
          drain(*den, sink, stream);
          CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
          seconds[i] = std::chrono::duration<double>(Clock::now() - gate.start()).count();
        }
        CDN_CUDA_CHECK(cudaStreamDestroy(stream));
      } catch (...) {
        failures[i] = std::current_exception();
        if (!waited) gate.arrive_and_wait();  // the others must not wait for this one
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
  const double wall = *std::max_element(seconds.begin(), seconds.end());  // the slowest stream's
  return {n * frames / wall, frames / wall};
}

}  // namespace
#endif

void streams_table(const FrameView& source, const std::vector<std::string>& presets, const std::vector<int>& counts,
                   int frames) {
#ifdef CDN_HAVE_CUDA
  const int devices = cuda_device_count();
  std::vector<int> gpu_counts = {1};
  if (devices > 1) gpu_counts.push_back(devices);
  const HostFrame host = make_frame(source, PixelFormat::NV12, 1920, 1080);
  std::printf("\nstreams at once in one process (streams_table.h): 1920x1080 NV12 on the device, sigma auto, %d frames\n"
              "a stream after a warm-up, stream i on GPU i mod G, all flat out; fps in all / 30: the 1080p30 streams\n"
              "that throughput would carry\n",
              frames);
  std::printf("%-14s %-7s %4s %8s %12s %14s %18s\n", "preset", "mode", "GPUs", "streams", "fps in all",
              "slowest stream", "fps in all / 30");
  for (const std::string& name : presets) {
    const Preset* p = find_preset(name);
    if (!p || !preset_available(*p)) {
      std::printf("%-14s (not in this build)\n", name.c_str());
      continue;
    }
    const DenoiseSettings s = preset_settings(*p);
    for (int g : gpu_counts)
      for (int n : counts) {
        const Row r = run_streams(s, host, n, g, frames);
        std::printf("%-14s %-7s %4d %8d %12.1f %14.1f %18.1f\n", p->name, p->mode, g, n, r.fps_in_all, r.slowest_fps,
                    r.fps_in_all / 30);
        std::fflush(stdout);
      }
  }
#else
  (void)source;
  (void)presets;
  (void)counts;
  (void)frames;
  std::printf("\nstreams table: built without CUDA\n");
#endif
}

}  // namespace cdn::bench
