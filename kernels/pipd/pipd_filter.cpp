// pipd_filter.cpp: PI-PD's CPU window filter (pipd_filter.h) over the reference.
#include "pipd/pipd_filter.h"

#include "pipd/pipd_reference.h"

namespace cdn {

namespace {

class PipdCpuFilter final : public WindowFilter {
 public:
  explicit PipdCpuFilter(const DenoiseSettings& s) : mode_(s.mode), params_(s.pipd) {}
  void run(const ChunkJob& job, void*) override {
    const auto in = components(*job.window[0]), out = components(*job.outputs[0]);
    for (int c = 0; c < job.filtered; ++c) pipd_reference(in[c], out[c], mode_, params_);
  }

 private:
  Mode mode_;
  PipdParams params_;
};

}  // namespace

std::unique_ptr<WindowFilter> make_pipd_cpu_filter(const DenoiseSettings& s, bool, PixelFormat) {
  return std::make_unique<PipdCpuFilter>(s);
}

}  // namespace cdn
