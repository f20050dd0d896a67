// nlm3d_reference.cpp: offset-major 3D non-local means on host planes (nlm3d_reference.h).
#include "nlm3d/nlm3d_reference.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/parallel.h"
#include "cudadenoise/error.h"

namespace cdn {

const PlaneView& FrameWindow::at(int t) const {
  const int c = std::min(std::max(t, 0), stream_length - 1);
  const int i = c - first;
  if (i < 0 || i >= static_cast<int>(frames.size()))
    throw InvalidArgument("nlm3d: frame " + std::to_string(c) + " is not in the window");
  return frames[i];
}

double nlm_h2(const NlmParams& p, double sigma) { return 2.0 * p.beta * sigma * sigma * p.patch_samples(); }

double nlm_distance_offset(const NlmParams& p, double sigma) {
  return p.distance_offset ? 2.0 * sigma * sigma * p.patch_samples() : 0.0;
}

namespace {

// A rectangle of output pixels whose search windows in frame tc are centred on
// the same vector (vx, vy): a motion cell, or a band of rows without motion.
struct Region {
  int x0, y0, x1, y1;  // [x0, x1) x [y0, y1)
  int vx, vy;
};

// Runs of [0, n) over which `cell_of` is constant, as [begin, end) pairs.
template <typename F>
std::vector<std::pair<int, int>> runs(int n, F cell_of) {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && cell_of(j) == cell_of(i)) ++j;
    out.push_back({i, j});
    i = j;
  }
  return out;
}

std::vector<Region> regions_of(int w, int h, const NlmMotionField* field, int fx, int fy, int threads) {
  std::vector<Region> out;
  if (!field) {  // one vector (zero) for the frame: bands of rows, one per thread
    const int n = std::max(1, std::min(h, threads <= 0 ? 64 : threads));
    for (int i = 0; i < n; ++i)
      if (h * i / n < h * (i + 1) / n) out.push_back({0, h * i / n, w, h * (i + 1) / n, 0, 0});
    return out;
  }
  const auto cols = runs(w, [&](int x) { return clamp_coord(fx * x / field->cell, field->cols); });
  const auto rows = runs(h, [&](int y) { return clamp_coord(fy * y / field->cell, field->rows); });
  for (const auto& [y0, y1] : rows)
    for (const auto& [x0, x1] : cols) {
      Region r{x0, y0, x1, y1, 0, 0};
      nlm_motion_vector(*field, x0, y0, fx, fy, &r.vx, &r.vy);
      out.push_back(r);
    }
  return out;
}

}  // namespace

std::vector<std::vector<double>> nlm3d_guided_values(const FrameWindow& guide, const std::vector<FrameWindow>& values,
                                                     int t, const NlmParams& params, double sigma, int threads,
                                                     const NlmMotion* motion, const std::atomic<bool>* cancel,
                                                     const NlmConfidence* confidence) {
  const PlaneView& ref = guide.at(t);
  const int w = ref.width, h = ref.height, r = params.patch_radius;
  if (ref.memory != MemoryKind::Host) throw InvalidArgument("nlm3d reference needs host planes");
  for (const FrameWindow& v : values)
    if (v.at(t).width != w || v.at(t).height != h || v.at(t).memory != MemoryKind::Host)
      throw InvalidArgument("nlm3d: values must be host planes of the guide's size");
  if (params.motion_search && params.patch_shape != NlmPatchShape::Planar)
    throw InvalidArgument("nlm3d: motion-search needs patch-shape=2d");
  if (params.causal && params.patch_shape != NlmPatchShape::Planar)
    throw InvalidArgument("nlm3d: causal needs patch-shape=2d");
  if (params.frame_confidence > 0 && params.patch_shape != NlmPatchShape::Planar)
    throw InvalidArgument("nlm3d: frame-confidence needs patch-shape=2d");
  if (params.motion_search && (!motion || !motion->fields))
    throw InvalidArgument("nlm3d: motion-search needs the motion fields of the frame (nlm3d_motion.h)");
  // frame-confidence: the caller's factors, or the luma guide's own.
  std::vector<float> own_factors;
  NlmConfidence own_confidence;
  const NlmConfidence* conf = nullptr;
  if (params.frame_confidence > 0) {
    if (confidence) {
      conf = confidence;
    } else {
      if (motion && (motion->fx != 1 || motion->fy != 1))
        throw InvalidArgument("nlm3d: a pass on luma means needs the luma's frame-confidence factors");
      own_factors = nlm_frame_confidence(guide, t, params, sigma, motion, threads, cancel);
      own_confidence = nlm_confidence_view(own_factors.data(), params, w, h);
      conf = &own_confidence;
    }
  }
  const double inv_h2 = sigma > 0 ? 1.0 / nlm_h2(params, sigma) : 0.0;
  const double offset = nlm_distance_offset(params, sigma);
  const int kt = (params.patch_frames() - 1) / 2;  // the patch's frames: t - kt .. t + kt

  const std::size_t n = static_cast<std::size_t>(w) * h, nv = values.size();
  std::vector<std::vector<double>> num(nv, std::vector<double>(n, 0.0));
  std::vector<double> den(n, 0.0), wmax(n, 0.0);
  auto sample = [](const PlaneView& p, int x, int y) { return p.get(clamp_coord(x, p.width), clamp_coord(y, p.height)); };

  for (int dt = -params.temporal_radius; dt <= params.last_dt(); ++dt) {
    const int tc = t + dt;
    if (tc < 0 || tc >= guide.stream_length) continue;  // the window shrinks at the stream's ends
    const NlmMotionField* field = params.motion_search && dt != 0 ? &motion->fields[dt + params.temporal_radius] : nullptr;
    const std::vector<Region> regions = regions_of(w, h, field, motion ? motion->fx : 1, motion ? motion->fy : 1, threads);
    // Regions are disjoint, so they may run in parallel; each pixel's sums are
    // formed in the same order whatever the regions.
    const int R = params.search_radius_at(dt);
    parallel_rows(static_cast<int>(regions.size()), threads, [&](int ri) {
      const Region& g = regions[ri];
      const int rw = g.x1 - g.x0, rh = g.y1 - g.y0, ew = rw + 2 * r, eh = rh + 2 * r;
      std::vector<double> diff(static_cast<std::size_t>(ew) * eh), hsum(static_cast<std::size_t>(rw) * eh);
      for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx) {
          if (dx == 0 && dy == 0 && dt == 0) continue;  // the self weight is set below
          if (cancel && cancel->load()) return;         // abandoned: thrown below, off the worker threads
          const int ox = g.vx + dx, oy = g.vy + dy;     // p's candidate is q = p + (ox, oy) in frame tc
          // The squared difference summed over the patch's frames, on the
          // region extended by r (samples clamped), then box sums along x.
          for (int ey = 0; ey < eh; ++ey) {
            if (cancel && cancel->load()) return;  // a band is a whole frame on one thread: checked per row
            for (int ex = 0; ex < ew; ++ex) {
              const int x = g.x0 + ex - r, y = g.y0 + ey - r;
              double d = 0;
              for (int k = -kt; k <= kt; ++k) {
                const double a = sample(guide.at(t + k), x, y);
                const double b = sample(guide.at(tc + k), x + ox, y + oy);
                d += (a - b) * (a - b);
              }
              diff[static_cast<std::size_t>(ey) * ew + ex] = d;
            }
          }
          for (int ey = 0; ey < eh; ++ey)
            for (int x = 0; x < rw; ++x) {
              double s = 0;
              for (int k = 0; k <= 2 * r; ++k) s += diff[static_cast<std::size_t>(ey) * ew + x + k];
              hsum[static_cast<std::size_t>(ey) * rw + x] = s;
            }
          for (int y = 0; y < rh; ++y) {
            if (cancel && cancel->load()) return;
            for (int x = 0; x < rw; ++x) {
              const int px = g.x0 + x, py = g.y0 + y, qx = px + ox, qy = py + oy;
              if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;  // candidate outside the frame
              double d2 = 0;
              for (int k = 0; k <= 2 * r; ++k) d2 += hsum[static_cast<std::size_t>(y + k) * rw + x];
              const double wt = std::exp(-std::max(d2 - offset, 0.0) * inv_h2);
              const double wf = conf && dt != 0 ? wt * nlm_confidence_factor(*conf, 0, dt, px, py) : wt;
              const std::size_t i = static_cast<std::size_t>(py) * w + px;
              for (std::size_t v = 0; v < nv; ++v) num[v][i] += wf * values[v].at(tc).get(qx, qy);
              den[i] += wf;
              wmax[i] = std::max(wmax[i], wt);
            }
          }
        }
    });
    if (cancel && cancel->load()) throw Cancelled();
  }
  std::vector<std::vector<double>> out(nv, std::vector<double>(n));
  parallel_rows(h, threads, [&](int y) {
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * w + x;
      const double self = den[i] > 0 ? std::max(wmax[i], params.self_weight_floor) : 1.0;
      for (std::size_t v = 0; v < nv; ++v) out[v][i] = (num[v][i] + self * values[v].at(t).get(x, y)) / (den[i] + self);
    }
  });
  return out;
}

std::vector<double> nlm3d_frame_values(const FrameWindow& window, int t, const NlmParams& params, double sigma,
                                       int threads, const NlmMotion* motion) {
  return std::move(nlm3d_guided_values(window, {window}, t, params, sigma, threads, motion)[0]);
}

void nlm3d_guided_reference(const FrameWindow& guide, const std::vector<FrameWindow>& values, int t,
                            const std::vector<PlaneView>& outs, const NlmParams& params, double guide_sigma,
                            int threads, const NlmMotion* motion, const std::atomic<bool>* cancel,
                            const NlmConfidence* confidence) {
  if (outs.size() != values.size()) throw InvalidArgument("nlm3d: one output per value window");
  for (const PlaneView& out : outs) {
    if (out.memory != MemoryKind::Host) throw InvalidArgument("nlm3d reference needs host planes");
    if (out.width != guide.at(t).width || out.height != guide.at(t).height)
      throw InvalidArgument("nlm3d: output size differs");
  }
  const std::vector<std::vector<double>> v =
      nlm3d_guided_values(guide, values, t, params, guide_sigma, threads, motion, cancel, confidence);
  for (std::size_t i = 0; i < outs.size(); ++i)
    for (int y = 0; y < outs[i].height; ++y)
      for (int x = 0; x < outs[i].width; ++x) {
        const double value = v[i][static_cast<std::size_t>(y) * outs[i].width + x];
        outs[i].set(x, y, std::min(outs[i].max_value(), std::max(0, static_cast<int>(std::floor(value + 0.5)))));
      }
}

void nlm3d_frame_reference(const FrameWindow& window, int t, const PlaneView& out, const NlmParams& params,
                           double sigma, int threads, const NlmMotion* motion) {
  nlm3d_guided_reference(window, {window}, t, {out}, params, sigma, threads, motion);
}

}  // namespace cdn
