// device_timing.cpp: timing cudadenoise on frames in GPU memory (device_timing.h),
// as cudadenoise-bench does.
#include "device_timing.h"

#include <algorithm>
#include <chrono>

#include "cudadenoise/error.h"
#include "cudadenoise/stream_pump.h"
#include "timing_stats.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace cdn::eval {

#ifdef CDN_HAVE_CUDA

namespace {

void upload(const FrameView& host, const FrameView& dev) {
  copy_frame_async(host, dev, nullptr);
  CDN_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

}  // namespace

DeviceTiming time_on_device(const std::vector<FrameView>& clip, const DenoiseSettings& settings, int warmup,
                            int repeat) {
  const FrameView& f0 = clip.at(0);
  const int n = static_cast<int>(clip.size());
  repeat = std::max(1, repeat);
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CDN_CUDA_CHECK(cudaEventCreate(&start));
  CDN_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> t;
  {
    CudaFramePool pool(f0.format, f0.width, f0.height, 2 * n);
    std::vector<CudaFramePool::Handle> in, out;
    for (int k = 0; k < n; ++k) {
      in.push_back(pool.acquire(stream));
      out.push_back(pool.acquire(stream));
      upload(clip[k], in.back()->view());
    }
    auto d = StreamDenoiser::create(Backend::Cuda, settings, f0.format, f0.width, f0.height);
    if (!d->per_frame()) {
      for (int r = 0; r < warmup + repeat; ++r) {
        if (r > 0) {  // a new stream for each run (its frames' memory freed first)
          d.reset();
          d = StreamDenoiser::create(Backend::Cuda, settings, f0.format, f0.width, f0.height);
        }
        StreamDenoiser& w = *d;
        int m = 0;
        FunctionSink sink([&] { return out[m]->view(); }, [&] { return ++m > 0; });
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < n; ++k) feed(w, in[k]->view(), sink);
        drain(w, sink);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (m != n) throw Error("device stream gave back fewer frames than it took");
        if (r >= warmup) t.push_back(ms / n);
      }
    } else {
      for (int r = 0; r < warmup; ++r) d->process(in[0]->view(), out[0]->view(), stream);
      for (int i = 0; i < std::max(n, repeat); ++i) {
        const int k = i % n;
        CDN_CUDA_CHECK(cudaEventRecord(start, stream));
        d->enqueue(in[k]->view(), out[k]->view(), stream);
        CDN_CUDA_CHECK(cudaEventRecord(stop, stream));
        CDN_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CDN_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        t.push_back(ms);
      }
    }
    CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  return {median(t), static_cast<int>(t.size())};
}

#else

DeviceTiming time_on_device(const std::vector<FrameView>&, const DenoiseSettings&, int, int) {
  throw Error("device timing needs a build with CUDA");
}

#endif

}  // namespace cdn::eval
