// vbm3d_window_cuda.cu: V-BM3D as a temporal mode (window_filter.h) on CUDA:
// each chunk's window of device frames goes to Vbm3dCuda::run (vbm3d_cuda.h),
// one call per run of output frames of equal sigma, queued on the lane's
// stream. One Vbm3dCuda per lane: its buffers and rings are reused from chunk
// to chunk. The cancel flag stops the queueing between batches of references
// (Vbm3dCuda::run); what is queued then still runs.
#include "vbm3d/vbm3d_cuda.h"
#include "vbm3d/vbm3d_window.h"

namespace cdn {

namespace {

class Vbm3dCudaWindow final : public WindowFilter {
 public:
  explicit Vbm3dCudaWindow(const Vbm3dParams& p) : params_(p) {}

  void run(const ChunkJob& job, void* stream) override {
    std::vector<FrameView> window;
    for (const FrameView* f : job.window) window.push_back(*f);
    const int first = job.out_first - job.window_first, count = static_cast<int>(job.outputs.size());
    for (int begin = 0, end; begin < count; begin = end) {
      for (end = begin + 1; end < count && job.sigma[end][0] == job.sigma[begin][0];) ++end;
      std::vector<FrameView> outs;
      for (int i = begin; i < end; ++i) outs.push_back(*job.outputs[i]);
      filter_.run(window, first + begin, first + end, outs, job.filtered, params_,
                  std::vector<double>(job.filtered, job.sigma[begin][0]), stream, job.cancel);
    }
  }

 private:
  Vbm3dParams params_;
  Vbm3dCuda filter_;
};

}  // namespace

std::unique_ptr<WindowFilter> make_vbm3d_cuda_window(const Vbm3dParams& p, PixelFormat, int) {
  validate(p);
  return std::make_unique<Vbm3dCudaWindow>(p);
}

}  // namespace cdn
