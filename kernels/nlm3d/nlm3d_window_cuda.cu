// nlm3d_window_cuda.cu: NLM-3D as a temporal mode (window_filter.h) on CUDA: a
// chunk's window and output planes go into a device table of pointers, then one
// nlm3d_cuda_chunk launch per pass (nlm3d_guide.h) and per run of output frames
// of equal sigma, all queued on the lane's stream. With motion-search, first the
// fields: the luma pyramid of every window frame, then one field per output
// frame t and other frame t + dt, all of a chunk in one batch (motion_cuda.h), into a device buffer that the
// kernel reads through a fixed table of NlmMotionField. With frame-confidence, then the
// factors of every output frame on the luma (nlm3d_confidence_cuda.cu), read by every pass.
// The cancel flag is checked before each launch (ChunkJob::cancel).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cudadenoise/error.h"
#include "motion/motion_cuda.h"
#include "nlm3d/nlm3d_cuda.h"
#include "nlm3d/nlm3d_guide.h"
#include "nlm3d/nlm3d_window.h"

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
    cudaFree(fields_);
    cudaFree(field_table_);
    cudaFree(factors_);
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
    const int count = static_cast<int>(job.outputs.size());
    // Cancelled: no further launch is queued (those queued still run).
    auto check_cancel = [&] {
      if (job.cancel && job.cancel->load()) throw Cancelled();
    };
    check_cancel();
    if (params_.motion_search) estimate_fields(job, stream);
    const int nf = 2 * params_.temporal_radius + 1;
    const PlaneView luma = components(*job.window[0])[0];
    const std::size_t per_frame = nlm_confidence_floats(params_, luma.width, luma.height);
    if (params_.frame_confidence > 0 && per_frame != factors_per_frame_) {  // the first chunk, or a new frame size
      cudaFree(factors_);
      factors_ = nullptr;
      factors_per_frame_ = 0;
      CDN_CUDA_CHECK(cudaMalloc(&factors_, static_cast<std::size_t>(params_.chunk_size) * per_frame * sizeof(float)));
      factors_per_frame_ = per_frame;
    }
    // Passes: the luma guide is component 0's part of the table.
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
        for (end = begin + 1; end < count && job.sigma[end][0] == job.sigma[begin][0];) ++end;
        for (int v = 0; v < k.values; ++v) {
          const int c = pass.values[v];
          k.value_proto[v] = components(*job.window[0])[c];
          k.value_window[v] = pointers_ + c * per;
          k.out_proto[v] = components(*job.outputs[0])[c];
          k.outputs[v] = pointers_ + c * per + nw + begin;
        }
        check_cancel();
        k.out_first = job.out_first + begin;
        k.out_count = end - begin;
        if (params_.motion_search) {
          k.motion = field_table_ + static_cast<std::size_t>(begin) * nf;
          k.motion_cell = motion_params_.cell;
        }
        if (params_.frame_confidence > 0) {
          float* factors = factors_ + static_cast<std::size_t>(begin) * per_frame;
          // The luma pass comes first: it computes the factors of its frames for every pass.
          if (pass.fx == 1 && pass.fy == 1) nlm3d_cuda_confidence(k, params_, job.sigma[begin][0], factors, stream);
          k.confidence = nlm_confidence_view(factors, params_, luma.width, luma.height, pass.fx, pass.fy);
        }
        nlm3d_cuda_chunk(k, params_, job.sigma[begin][0], stream);
      }
    }
  }

 private:
  // The fields of every output frame of the chunk: [z * (2 Rt + 1) + dt + Rt],
  // those of frames beyond the stream or after t in the causal window not
  // estimated (the kernel does not read them).
  void estimate_fields(const ChunkJob& job, cudaStream_t stream) {
    const PlaneView luma = components(*job.window[0])[0];
    const int nf = 2 * params_.temporal_radius + 1;
    const std::size_t cells = static_cast<std::size_t>(MotionCuda::cols(luma.width, motion_params_)) *
                              MotionCuda::rows(luma.height, motion_params_);
    const std::size_t nfields = static_cast<std::size_t>(params_.chunk_size) * nf;
    if (cells != field_cells_) {  // the first chunk, or a new frame size: the buffer and its table
      cudaFree(fields_);
      cudaFree(field_table_);
      fields_ = nullptr;
      field_table_ = nullptr;
      field_cells_ = 0;
      CDN_CUDA_CHECK(cudaMalloc(&fields_, nfields * cells * sizeof(MotionVector)));
      CDN_CUDA_CHECK(cudaMalloc(&field_table_, nfields * sizeof(NlmMotionField)));
      static_assert(sizeof(MotionVector) == 2 * sizeof(std::int16_t), "NlmMotionField reads (dx, dy) int16 pairs");
      std::vector<NlmMotionField> table(nfields);
      for (std::size_t k = 0; k < nfields; ++k)
        table[k] = {reinterpret_cast<const std::int16_t*>(fields_ + k * cells), MotionCuda::cols(luma.width, motion_params_),
                    MotionCuda::rows(luma.height, motion_params_), motion_params_.cell};
      // Synchronous (pageable memory): once per stream size, before the table's first use.
      CDN_CUDA_CHECK(cudaMemcpy(field_table_, table.data(), nfields * sizeof(NlmMotionField), cudaMemcpyHostToDevice));
      field_cells_ = cells;
    }
    for (std::size_t j = 0; j < job.window.size(); ++j)
      motion_.build_pyramid(components(*job.window[j])[0], static_cast<int>(j), motion_params_, stream);
    std::vector<MotionCuda::FieldPair> pairs;  // every field of the chunk, estimated in one batch
    for (std::size_t z = 0; z < job.outputs.size(); ++z) {
      const int t = job.out_first + static_cast<int>(z);
      for (int dt = -params_.temporal_radius; dt <= params_.last_dt(); ++dt) {
        if (dt == 0 || t + dt < 0 || t + dt >= job.stream_length) continue;
        pairs.push_back({t - job.window_first, t + dt - job.window_first,
                         fields_ + (z * nf + dt + params_.temporal_radius) * cells});
      }
    }
    motion_.estimate_many(pairs, motion_params_, stream);
  }

  NlmParams params_;
  PixelFormat format_;
  MotionParams motion_params_ = nlm3d_motion_params();
  MotionCuda motion_;
  MotionVector* fields_ = nullptr;         // device: chunk-size x (2 Rt + 1) fields of field_cells_ vectors
  NlmMotionField* field_table_ = nullptr;  // device: their NlmMotionField, in the same order
  std::size_t field_cells_ = 0;
  float* factors_ = nullptr;  // device: frame-confidence's factors, chunk-size x factors_per_frame_
  std::size_t factors_per_frame_ = 0;
  void** pointers_ = nullptr;       // device array: window and output planes of a chunk
  void** host_pointers_ = nullptr;  // pinned: the table as written before the copy
  std::size_t table_size_ = 0;
};

}  // namespace

std::unique_ptr<WindowFilter> make_nlm3d_cuda_window(const NlmParams& p, PixelFormat f, int filtered, int device) {
  return std::make_unique<Nlm3dCudaWindow>(p, f, filtered, device);
}

}  // namespace cdn
