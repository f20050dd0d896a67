// nlm3d_window_cuda.cu: NLM-3D as a temporal mode (temporal_mode.h) on CUDA: a
// chunk's window and output planes go into a device table of pointers, then one
// nlm3d_cuda_chunk launch per pass (nlm3d_guide.h) and per run of output frames
// of equal sigma, all queued on the lane's stream.
#include <cuda_runtime.h>

#include <algorithm>

#include "error.h"
#include "nlm3d_cuda.h"
#include "nlm3d_guide.h"
#include "nlm3d_window.h"

namespace cdn {

namespace {

class Nlm3dCudaWindow final : public WindowFilter {
 public:
  Nlm3dCudaWindow(const NlmParams& p, PixelFormat f, int filtered, int device) : params_(p), format_(f) {
    // Every pass must fit in the device's shared memory: fail now, not at the first chunk.
    std::size_t widest = 1;
    for (const NlmPass& pass : nlm_passes(f, filtered)) widest = std::max(widest, pass.values.size());
    nlm3d_cuda_check_device(p, static_cast<int>(widest), device);
    // Per chunk: the window (chunk + 2 reach) and the outputs, for every component.
    table_size_ = 3 * static_cast<std::size_t>(p.chunk_size * 2 + 2 * p.reach());
    CDN_CUDA_CHECK(cudaMalloc(&pointers_, table_size_ * sizeof(void*)));
    CDN_CUDA_CHECK(cudaMallocHost(&host_pointers_, table_size_ * sizeof(void*)));
  }
  ~Nlm3dCudaWindow() override {
    cudaFree(pointers_);
    cudaFreeHost(host_pointers_);
  }

  void run(const ChunkJob& job, void* stream_ptr) override {
    const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    // One pointer table for all components: no wait between their launches. It is
    // written into the pinned buffer, which the previous job (done: run() is called
    // again only then) no longer reads, and copied without a stream sync.
    const std::size_t nw = job.window.size(), per = nw + job.outputs.size();
    if (per * job.filtered > table_size_) throw Error("nlm3d: pointer table too small");
    std::size_t n = 0;
    for (int c = 0; c < job.filtered; ++c) {
      for (const FrameView* f : job.window) host_pointers_[n++] = components(*f)[c].data;
      for (const FrameView* f : job.outputs) host_pointers_[n++] = components(*f)[c].data;
    }
    CDN_CUDA_CHECK(cudaMemcpyAsync(pointers_, host_pointers_, n * sizeof(void*), cudaMemcpyHostToDevice, stream));
    // Passes: the luma guide is component 0's part of the table.
    const int count = static_cast<int>(job.outputs.size());
    for (const NlmPass& pass : nlm_passes(format_, job.filtered)) {
      NlmChunk k;
      k.guide_proto = components(*job.window[0])[0];
      k.guide_window = pointers_;
      k.fx = pass.fx;
      k.fy = pass.fy;
      k.values = static_cast<int>(pass.values.size());
      k.window_first = job.window_first;
      k.window_count = static_cast<int>(nw);
      k.stream_length = job.stream_length;
      for (int begin = 0, end; begin < count; begin = end) {
        for (end = begin + 1; end < count && job.sigma[end] == job.sigma[begin];) ++end;
        for (int v = 0; v < k.values; ++v) {
          const int c = pass.values[v];
          k.value_proto[v] = components(*job.window[0])[c];
          k.value_window[v] = pointers_ + c * per;
          k.out_proto[v] = components(*job.outputs[0])[c];
          k.outputs[v] = pointers_ + c * per + nw + begin;
        }
        k.out_first = job.out_first + begin;
        k.out_count = end - begin;
        nlm3d_cuda_chunk(k, params_, job.sigma[begin], stream);
      }
    }
  }

 private:
  NlmParams params_;
  PixelFormat format_;
  void** pointers_ = nullptr;       // device array: window and output planes of a chunk
  void** host_pointers_ = nullptr;  // pinned: the table as written before the copy
  std::size_t table_size_ = 0;
};

}  // namespace

std::unique_ptr<WindowFilter> make_nlm3d_cuda_window(const NlmParams& p, PixelFormat f, int filtered, int device) {
  return std::make_unique<Nlm3dCudaWindow>(p, f, filtered, device);
}

}  // namespace cdn
