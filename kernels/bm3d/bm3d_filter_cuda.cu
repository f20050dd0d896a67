// bm3d_filter_cuda.cu: BM3D's CUDA window filter (bm3d_filter.h) over the
// kernels of bm3d_cuda.h, queued on the stream it is given.
#include "bm3d/bm3d_cuda.h"
#include "bm3d/bm3d_filter.h"

namespace cdn {

namespace {

class Bm3dCudaFilter final : public WindowFilter {
 public:
  explicit Bm3dCudaFilter(const DenoiseSettings& s) : params_(s.bm3d) {}
  void run(const ChunkJob& job, void* stream) override {
    bm3d_.run(components(*job.window[0]), components(*job.outputs[0]), job.filtered, params_, job.sigma.at(0), stream,
              job.cancel);
  }

 private:
  Bm3dSettings params_;
  Bm3dCuda bm3d_;
};

}  // namespace

std::unique_ptr<WindowFilter> make_bm3d_cuda_filter(const DenoiseSettings& s, bool, PixelFormat, int) {
  return std::make_unique<Bm3dCudaFilter>(s);
}

}  // namespace cdn
