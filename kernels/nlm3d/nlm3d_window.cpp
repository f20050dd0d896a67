// nlm3d_window.cpp: NLM-3D as a temporal mode (window_filter.h) on the CPU: a
// chunk of output frames filtered by nlm3d_guided_reference, in the passes of
// nlm3d_guide.h (nlm3d-gpu-cuomo-2014 eq. 8-9; docs/NLM3D.md), with the motion
// fields of motion-search estimated by motion_reference.h and frame-confidence's
// factors computed once per frame on the luma (nlm3d_confidence.h).
#include "nlm3d/nlm3d_window.h"

#include <cstdint>

#include "core/parallel.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "motion/motion_field.h"
#include "nlm3d/nlm3d_guide.h"
#include "nlm3d/nlm3d_reference.h"

namespace cdn {

namespace {

class Nlm3dCpuWindow final : public WindowFilter {
 public:
  Nlm3dCpuWindow(const NlmParams& p, PixelFormat f) : params_(p), format_(f) {}

  void run(const ChunkJob& job, void*) override {
    const int n = static_cast<int>(job.outputs.size());
    const int nf = 2 * params_.temporal_radius + 1;  // fields per output frame, [dt + Rt]
    std::vector<MotionField> fields;
    std::vector<NlmMotionField> views;
    if (params_.motion_search) {
      const MotionParams mp = nlm3d_motion_params();
      std::vector<LumaPyramid> pyramids(job.window.size());
      parallel_rows(static_cast<int>(job.window.size()), 0, [&](int j) {
        if (job.cancel && job.cancel->load()) return;  // thrown below, off the worker threads
        pyramids[j] = build_pyramid(components(*job.window[j])[0], mp);
      });
      if (job.cancel && job.cancel->load()) throw Cancelled();
      fields.resize(static_cast<std::size_t>(n) * nf);
      parallel_rows(n * nf, 0, [&](int k) {
        const int t = job.out_first + k / nf, dt = k % nf - params_.temporal_radius;
        if (dt == 0 || dt > params_.last_dt() || t + dt < 0 || t + dt >= job.stream_length) return;  // never read
        if (job.cancel && job.cancel->load()) return;  // thrown below, off the worker threads
        try {  // a large frame's field is long: it stops within a row of cells
          fields[k] = estimate_motion(pyramids[t - job.window_first], pyramids[t + dt - job.window_first], mp,
                                      job.cancel);
        } catch (const Cancelled&) {
        }
      });
      if (job.cancel && job.cancel->load()) throw Cancelled();
      static_assert(sizeof(MotionVector) == 2 * sizeof(std::int16_t), "NlmMotionField reads (dx, dy) int16 pairs");
      for (const MotionField& f : fields)
        views.push_back({reinterpret_cast<const std::int16_t*>(f.v.data()), f.cols, f.rows, f.cell});
    }
    // frame-confidence: every output frame's factors, from the luma, for every pass.
    std::vector<std::vector<float>> factors(params_.frame_confidence > 0 ? n : 0);
    if (!factors.empty()) {
      FrameWindow luma;
      luma.first = job.window_first;
      luma.stream_length = job.stream_length;
      for (const FrameView* f : job.window) luma.frames.push_back(components(*f)[0]);
      const int inner = n == 1 ? 0 : 1;  // one thread per frame (all of them for a chunk of one)
      parallel_rows(n, 0, [&](int i) {
        if (job.cancel && job.cancel->load()) return;  // thrown below, off the worker threads
        const NlmMotion motion{views.empty() ? nullptr : views.data() + static_cast<std::size_t>(i) * nf, 1, 1};
        try {
          factors[i] = nlm_frame_confidence(luma, job.out_first + i, params_, job.sigma[i][0],
                                            params_.motion_search ? &motion : nullptr, inner, job.cancel);
        } catch (const Cancelled&) {
        }
      });
      if (job.cancel && job.cancel->load()) throw Cancelled();
    }
    for (const NlmPass& pass : nlm_passes(format_, job.filtered)) {
      const int nv = static_cast<int>(pass.values.size());
      std::vector<FrameWindow> values(nv);
      for (int v = 0; v < nv; ++v) {
        values[v].first = job.window_first;
        values[v].stream_length = job.stream_length;
        for (const FrameView* f : job.window) values[v].frames.push_back(components(*f)[pass.values[v]]);
      }
      // The guide: the luma itself, or its block means made here (at the values' size).
      FrameWindow guide;
      guide.first = job.window_first;
      guide.stream_length = job.stream_length;
      std::vector<HostFrame> made;
      made.reserve(job.window.size());
      for (const FrameView* f : job.window) {
        const PlaneView luma = components(*f)[0];
        if (pass.fx == 1 && pass.fy == 1) {
          guide.frames.push_back(luma);
          continue;
        }
        const PlaneView& size = values[0].frames[guide.frames.size()];
        made.emplace_back(PixelFormat::GRAY16_LE, size.width, size.height);
        const PlaneView g = components(made.back().view())[0];
        for (int y = 0; y < g.height; ++y)
          for (int x = 0; x < g.width; ++x) g.set(x, y, luma_guide_sample(luma, x, y, pass.fx, pass.fy));
        guide.frames.push_back(g);
      }
      // Frames of a chunk are independent: one thread per frame (several per frame for a chunk of one).
      const int inner = n == 1 ? 0 : 1;
      parallel_rows(n, 0, [&](int i) {
        std::vector<PlaneView> outs;
        for (int c : pass.values) outs.push_back(components(*job.outputs[i])[c]);
        const NlmMotion motion{views.empty() ? nullptr : views.data() + static_cast<std::size_t>(i) * nf, pass.fx, pass.fy};
        const PlaneView luma = components(*job.window[0])[0];  // a copy: components() returns a temporary
        const NlmConfidence confidence = nlm_confidence_view(factors.empty() ? nullptr : factors[i].data(), params_,
                                                             luma.width, luma.height, pass.fx, pass.fy);
        if (job.cancel && job.cancel->load()) return;  // thrown below, off the worker threads
        try {
          nlm3d_guided_reference(guide, values, job.out_first + i, outs, params_, job.sigma[i][0], inner,
                                 params_.motion_search ? &motion : nullptr, job.cancel,
                                 factors.empty() ? nullptr : &confidence);
        } catch (const Cancelled&) {
        }
      });
      if (job.cancel && job.cancel->load()) throw Cancelled();
    }
  }

 private:
  NlmParams params_;
  PixelFormat format_;
};

}  // namespace

MotionParams nlm3d_motion_params() {
  MotionParams p;
  p.cell = 16;
  return p;
}

WindowShape nlm3d_window_shape(const NlmParams& p) {
  return {p.reach(), p.reach_after(), p.causal ? 1 : p.chunk_size};
}

std::unique_ptr<WindowFilter> make_nlm3d_cpu_window(const NlmParams& p, PixelFormat f) {
  return std::make_unique<Nlm3dCpuWindow>(p, f);
}

}  // namespace cdn
