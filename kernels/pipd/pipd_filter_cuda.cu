// pipd_filter_cuda.cu: PI-PD's CUDA window filter (pipd_filter.h) over the
// kernels of pipd_cuda.h, queued on the stream it is given.
#include "pipd/pipd_cuda.h"
#include "pipd/pipd_filter.h"

namespace cdn {

namespace {

class PipdCudaFilter final : public WindowFilter {
 public:
  explicit PipdCudaFilter(const DenoiseSettings& s) : mode_(s.mode), params_(s.pipd) {}
  void run(const ChunkJob& job, void* stream) override {
    const auto in = components(*job.window[0]), out = components(*job.outputs[0]);
    for (int c = 0; c < job.filtered; ++c) pipd_.run(in[c], out[c], mode_, params_, stream);
  }

 private:
  Mode mode_;
  PipdParams params_;
  PipdCuda pipd_;
};

}  // namespace

std::unique_ptr<WindowFilter> make_pipd_cuda_filter(const DenoiseSettings& s, bool, PixelFormat, int) {
  return std::make_unique<PipdCudaFilter>(s);
}

}  // namespace cdn
