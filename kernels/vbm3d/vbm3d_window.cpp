// vbm3d_window.cpp: V-BM3D as a temporal mode (window_filter.h) on the CPU: a
// chunk of output frames filtered by vbm3d_reference over the chunk's window
// (Dabov et al. 2007; docs/VBM3D.md). The window holds every stream frame
// within reach of the chunk's frames, so each output frame depends on its own
// frames only, not on the chunk's borders.
#include "vbm3d/vbm3d_window.h"

#include "vbm3d/vbm3d_reference.h"

namespace cdn {

WindowShape vbm3d_window_shape(const Vbm3dParams& p, int chunk) {
  return {p.reach_before(), p.reach_after(), p.causal ? 1 : chunk};
}

namespace {

// Calls run(begin, end, sigma) for each run of output frames of equal sigma.
template <typename F>
void for_sigma_runs(const ChunkJob& job, F run) {
  const int count = static_cast<int>(job.outputs.size());
  for (int begin = 0, end; begin < count; begin = end) {
    for (end = begin + 1; end < count && job.sigma[end][0] == job.sigma[begin][0];) ++end;
    run(begin, end, std::vector<double>(job.filtered, job.sigma[begin][0]));
  }
}

class Vbm3dCpuWindow final : public WindowFilter {
 public:
  explicit Vbm3dCpuWindow(const Vbm3dParams& p) : params_(p) {}

  void run(const ChunkJob& job, void*) override {
    std::vector<FrameView> window;
    for (const FrameView* f : job.window) window.push_back(*f);
    const int first = job.out_first - job.window_first;
    for_sigma_runs(job, [&](int begin, int end, const std::vector<double>& sigma) {
      std::vector<FrameView> outs;
      for (int i = begin; i < end; ++i) outs.push_back(*job.outputs[i]);
      vbm3d_reference(window, first + begin, first + end, outs, job.filtered, params_, sigma, 0, job.cancel);
    });
  }

 private:
  Vbm3dParams params_;
};

}  // namespace

std::unique_ptr<WindowFilter> make_vbm3d_cpu_window(const Vbm3dParams& p, PixelFormat) {
  validate(p);
  return std::make_unique<Vbm3dCpuWindow>(p);
}

}  // namespace cdn
