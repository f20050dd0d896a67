// bm3d_filter.cpp: BM3D's CPU window filter (bm3d_filter.h) over the reference.
#include "bm3d/bm3d_filter.h"

#include "bm3d/bm3d_reference.h"

namespace cdn {

namespace {

class Bm3dCpuFilter final : public WindowFilter {
 public:
  explicit Bm3dCpuFilter(const DenoiseSettings& s) : params_(s.bm3d) {}
  void run(const ChunkJob& job, void*) override {
    bm3d::bm3d_reference(components(*job.window[0]), components(*job.outputs[0]), job.filtered, params_,
                         job.sigma.at(0), 0, job.cancel);
  }

 private:
  Bm3dSettings params_;
};

}  // namespace

std::unique_ptr<WindowFilter> make_bm3d_cpu_filter(const DenoiseSettings& s, bool, PixelFormat) {
  return std::make_unique<Bm3dCpuFilter>(s);
}

}  // namespace cdn
