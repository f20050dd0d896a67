// cuda_temporal_stream.cu: the CUDA backend of the temporal mode (temporal_stream.h).
// The window lives in device frames of a bounded CudaFramePool in the stream's
// own format (no float copies); host frames are uploaded on push and downloaded
// on pop, device frames stay on the device.
#include <cuda_runtime.h>

#include "cuda_copy.h"
#include "error.h"
#include "frame_pool.h"
#include "host_frame.h"
#include "nlm3d_cuda.h"
#include "noise_estimate.h"
#include "temporal_stream.h"

namespace cdn {

namespace {

class CudaTemporalStream final : public TemporalStream {
 public:
  CudaTemporalStream(const DenoiseSettings& s, PixelFormat f, int w, int h)
      : TemporalStream(s, f, w, h),
        // Inputs: the chunk, the reach either side and the frame being pushed; outputs: one chunk.
        pool_(f, w, h, s.nlm.chunk_size * 2 + 2 * s.nlm.reach() + 1) {
    CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking));
    const std::size_t n = 2 * static_cast<std::size_t>(pool_.capacity());
    CDN_CUDA_CHECK(cudaMalloc(&pointers_, n * sizeof(void*)));
  }
  ~CudaTemporalStream() override {
    reset();  // frames go back to the pool before it goes
    cudaFree(pointers_);
    cudaStreamDestroy(own_stream_);
  }
  Backend backend() const override { return Backend::Cuda; }

 protected:
  cudaStream_t s(void* stream) const { return stream ? static_cast<cudaStream_t>(stream) : own_stream_; }

  Frame new_frame(void* stream) override {
    auto h = pool_.try_acquire(s(stream));
    if (!h) throw Error("temporal denoiser: window full; pop() every ready frame after each push()");
    return Frame(h, &h->view());
  }
  void copy_frame(const FrameView& from, const FrameView& to, void* stream) override {
    copy_frame_async(from, to, s(stream));
  }
  void copy_plane(const FrameView& from, const FrameView& to, int p, void* stream) override {
    copy_plane_async(from, to, p, s(stream));
  }
  std::vector<double> estimate_sigma(const FrameView& first, void* stream) override {
    // Once per stream: the first frame comes to the host for the estimator.
    HostFrame host(first.format, first.width, first.height);
    copy_frame(first, host.view(), stream);
    synchronize(stream);
    std::vector<double> sigma;
    for (const auto& c : components(host.view())) sigma.push_back(estimate_noise_sigma(c) * (1 << (c.bit_depth - 8)));
    return sigma;
  }
  void filter(const Chunk& chunk, int c, void* stream) override {
    std::vector<const void*> ptrs;
    for (const auto& f : chunk.window) ptrs.push_back(components(*f)[c].data);
    for (const auto& f : chunk.outputs) ptrs.push_back(components(*f)[c].data);
    // The copy from pageable memory is staged before cudaMemcpyAsync returns, so
    // `ptrs` may go; the kernel queued behind it on the same stream sees the values.
    CDN_CUDA_CHECK(cudaMemcpyAsync(pointers_, ptrs.data(), ptrs.size() * sizeof(void*), cudaMemcpyHostToDevice, s(stream)));
    NlmChunk k;
    k.proto = components(*chunk.window[0])[c];
    k.window = pointers_;
    k.window_first = chunk.window_begin;
    k.window_count = static_cast<int>(chunk.window.size());
    k.stream_length = chunk.stream_length;
    k.out_proto = components(*chunk.outputs[0])[c];
    k.outputs = pointers_ + chunk.window.size();
    k.out_first = chunk.begin;
    k.out_count = chunk.end - chunk.begin;
    nlm3d_cuda_chunk(k, settings_.nlm, chunk.sigma[c], s(stream));
    // The pointer table is reused by the next component: wait until this launch has read it.
    synchronize(stream);
  }
  void synchronize(void* stream) override { CDN_CUDA_CHECK(cudaStreamSynchronize(s(stream))); }

 private:
  CudaFramePool pool_;
  cudaStream_t own_stream_ = nullptr;
  void** pointers_ = nullptr;
};

}  // namespace

std::unique_ptr<StreamDenoiser> make_cuda_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h) {
  return std::make_unique<CudaTemporalStream>(s, f, w, h);
}

}  // namespace cdn
