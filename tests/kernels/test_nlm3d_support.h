// test_nlm3d_support.h: what the NLM-3D kernel tests share: motion fields in
// host memory made from a function, and the reference's output for a whole
// clip with fields (every pass of nlm3d_guide.h, the guide made as the streams
// make it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "nlm3d/nlm3d_confidence.h"
#include "nlm3d/nlm3d_guide.h"
#include "nlm3d/nlm3d_motion.h"
#include "nlm3d/nlm3d_reference.h"

namespace cdn::test {

// Fields of every frame 0 .. frames-1 towards t + dt, dt in [-Rt, Rt], for a luma
// of w x h in cells of `cell`: fields[t * (2 Rt + 1) + dt + Rt], vector(t, dt, cx, cy).
struct HostFields {
  int Rt = 0, cell = 16;
  std::vector<std::vector<std::int16_t>> storage;
  std::vector<NlmMotionField> fields;
  const NlmMotionField* of_frame(int t) const { return fields.data() + t * (2 * Rt + 1); }
};

template <typename F>
HostFields make_fields(int frames, int Rt, int w, int h, int cell, F vector) {
  HostFields f;
  f.Rt = Rt;
  f.cell = cell;
  const int cols = (w + cell - 1) / cell, rows = (h + cell - 1) / cell;
  for (int t = 0; t < frames; ++t)
    for (int dt = -Rt; dt <= Rt; ++dt) {
      std::vector<std::int16_t> v(2 * cols * rows);
      for (int cy = 0; cy < rows; ++cy)
        for (int cx = 0; cx < cols; ++cx) {
          const std::pair<int, int> d = vector(t, dt, cx, cy);
          v[2 * (cy * cols + cx)] = static_cast<std::int16_t>(d.first);
          v[2 * (cy * cols + cx) + 1] = static_cast<std::int16_t>(d.second);
        }
      f.storage.push_back(std::move(v));
    }
  for (auto& s : f.storage) f.fields.push_back({s.data(), cols, rows, cell});
  return f;
}

// The reference's output for every frame of the clip (a whole stream): the
// components [0, filtered) filtered, the others copied. sigma: the luma's. With
// frame-confidence, each frame's factors are computed once on the luma and read
// by every pass, as the streams do.
inline std::vector<HostFrame> reference_clip(const std::vector<HostFrame>& clip, const NlmParams& p, double sigma,
                                             const HostFields* fields = nullptr, int filtered = 3) {
  const int n = static_cast<int>(clip.size());
  const FrameView& f0 = clip[0].view();
  filtered = std::min(filtered, format_info(f0.format).components);
  std::vector<std::vector<float>> factors;
  if (p.frame_confidence > 0) {
    FrameWindow luma;
    luma.stream_length = n;
    for (const auto& f : clip) luma.frames.push_back(components(f.view())[0]);
    for (int t = 0; t < n; ++t) {
      NlmMotion m;
      if (fields) m.fields = fields->of_frame(t);
      factors.push_back(nlm_frame_confidence(luma, t, p, sigma, fields ? &m : nullptr));
    }
  }
  std::vector<HostFrame> out;
  for (const auto& f : clip) {
    out.emplace_back(f0.format, f0.width, f0.height);
    const auto a = components(f.view()), b = components(out.back().view());
    for (std::size_t c = 0; c < a.size(); ++c)
      for (int y = 0; y < a[c].height; ++y)
        for (int x = 0; x < a[c].width; ++x) b[c].set(x, y, a[c].get(x, y));
  }
  for (const NlmPass& pass : nlm_passes(f0.format, filtered)) {
    std::vector<FrameWindow> values(pass.values.size());
    FrameWindow guide;
    guide.stream_length = n;
    for (auto& v : values) v.stream_length = n;
    std::vector<HostFrame> made;
    made.reserve(n);
    for (int i = 0; i < n; ++i) {
      const auto comps = components(clip[i].view());
      for (std::size_t v = 0; v < values.size(); ++v) values[v].frames.push_back(comps[pass.values[v]]);
      if (pass.fx == 1 && pass.fy == 1) {
        guide.frames.push_back(comps[0]);
        continue;
      }
      const PlaneView& size = comps[pass.values[0]];
      made.emplace_back(PixelFormat::GRAY16_LE, size.width, size.height);
      const PlaneView g = components(made.back().view())[0];
      for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x) g.set(x, y, luma_guide_sample(comps[0], x, y, pass.fx, pass.fy));
      guide.frames.push_back(g);
    }
    for (int t = 0; t < n; ++t) {
      NlmMotion m;
      m.fx = pass.fx;
      m.fy = pass.fy;
      if (fields) m.fields = fields->of_frame(t);
      std::vector<PlaneView> outs;
      for (int c : pass.values) outs.push_back(components(out[t].view())[c]);
      const PlaneView luma = components(clip[0].view())[0];
      const NlmConfidence conf = nlm_confidence_view(factors.empty() ? nullptr : factors[t].data(), p, luma.width,
                                                     luma.height, pass.fx, pass.fy);
      nlm3d_guided_reference(guide, values, t, outs, p, sigma, 0, fields ? &m : nullptr, nullptr,
                             factors.empty() ? nullptr : &conf);
    }
  }
  return out;
}

}  // namespace cdn::test
