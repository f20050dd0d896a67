// nlm3d_reference.cpp: offset-major 3D non-local means on host planes (nlm3d_reference.h).
#include "nlm3d_reference.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "error.h"
#include "parallel.h"

namespace cdn {

const PlaneView& FrameWindow::at(int t) const {
  const int c = std::min(std::max(t, 0), stream_length - 1);
  const int i = c - first;
  if (i < 0 || i >= static_cast<int>(frames.size()))
    throw InvalidArgument("nlm3d: frame " + std::to_string(c) + " is not in the window");
  return frames[i];
}

double nlm_h2(const NlmParams& p, double sigma) {
  const int side = 2 * p.patch_radius + 1;
  return 2.0 * p.strength * sigma * sigma * side * side * side;
}

std::vector<std::vector<double>> nlm3d_guided_values(const FrameWindow& guide, const std::vector<FrameWindow>& values,
                                                     int t, const NlmParams& params, double sigma, int threads) {
  const PlaneView& ref = guide.at(t);
  const int w = ref.width, h = ref.height, r = params.patch_radius, R = params.search_radius;
  if (ref.memory != MemoryKind::Host) throw InvalidArgument("nlm3d reference needs host planes");
  for (const FrameWindow& v : values)
    if (v.at(t).width != w || v.at(t).height != h || v.at(t).memory != MemoryKind::Host)
      throw InvalidArgument("nlm3d: values must be host planes of the guide's size");
  const double inv_h2 = sigma > 0 ? 1.0 / nlm_h2(params, sigma) : 0.0;

  const std::size_t n = static_cast<std::size_t>(w) * h, nv = values.size();
  std::vector<std::vector<double>> num(nv, std::vector<double>(n, 0.0));
  std::vector<double> den(n, 0.0), wmax(n, 0.0);
  // Per offset: the squared difference summed over the patch's frames, on the
  // frame extended by r (clamped), then box sums along x, then along y.
  const int ew = w + 2 * r, eh = h + 2 * r;
  std::vector<double> diff(static_cast<std::size_t>(ew) * eh), hsum(static_cast<std::size_t>(w) * eh);
  auto sample = [](const PlaneView& p, int x, int y) { return p.get(clamp_coord(x, p.width), clamp_coord(y, p.height)); };

  for (int dt = -params.temporal_radius; dt <= params.temporal_radius; ++dt) {
    const int tc = t + dt;
    if (tc < 0 || tc >= guide.stream_length) continue;  // the window shrinks at the stream's ends
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) {
        if (dx == 0 && dy == 0 && dt == 0) continue;  // the self weight is set below
        parallel_rows(eh, threads, [&](int ey) {
          for (int ex = 0; ex < ew; ++ex) {
            const int x = ex - r, y = ey - r;
            double d = 0;
            for (int k = -r; k <= r; ++k) {
              const double a = sample(guide.at(t + k), x, y);
              const double b = sample(guide.at(tc + k), x + dx, y + dy);
              d += (a - b) * (a - b);
            }
            diff[static_cast<std::size_t>(ey) * ew + ex] = d;
          }
        });
        parallel_rows(eh, threads, [&](int ey) {
          for (int x = 0; x < w; ++x) {
            double s = 0;
            for (int k = 0; k <= 2 * r; ++k) s += diff[static_cast<std::size_t>(ey) * ew + x + k];
            hsum[static_cast<std::size_t>(ey) * w + x] = s;
          }
        });
        parallel_rows(h, threads, [&](int y) {
          for (int x = 0; x < w; ++x) {
            const int qx = x + dx, qy = y + dy;
            if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;  // candidate outside the frame
            double d2 = 0;
            for (int k = 0; k <= 2 * r; ++k) d2 += hsum[static_cast<std::size_t>(y + k) * w + x];
            const double wt = std::exp(-d2 * inv_h2);
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            for (std::size_t v = 0; v < nv; ++v) num[v][i] += wt * values[v].at(tc).get(qx, qy);
            den[i] += wt;
            wmax[i] = std::max(wmax[i], wt);
          }
        });
      }
  }
  std::vector<std::vector<double>> out(nv, std::vector<double>(n));
  parallel_rows(h, threads, [&](int y) {
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * w + x;
      const double self = den[i] > 0 ? wmax[i] : 1.0;
      for (std::size_t v = 0; v < nv; ++v) out[v][i] = (num[v][i] + self * values[v].at(t).get(x, y)) / (den[i] + self);
    }
  });
  return out;
}

std::vector<double> nlm3d_frame_values(const FrameWindow& window, int t, const NlmParams& params, double sigma,
                                       int threads) {
  return std::move(nlm3d_guided_values(window, {window}, t, params, sigma, threads)[0]);
}

void nlm3d_guided_reference(const FrameWindow& guide, const std::vector<FrameWindow>& values, int t,
                            const std::vector<PlaneView>& outs, const NlmParams& params, double guide_sigma,
                            int threads) {
  if (outs.size() != values.size()) throw InvalidArgument("nlm3d: one output per value window");
  for (const PlaneView& out : outs) {
    if (out.memory != MemoryKind::Host) throw InvalidArgument("nlm3d reference needs host planes");
    if (out.width != guide.at(t).width || out.height != guide.at(t).height)
      throw InvalidArgument("nlm3d: output size differs");
  }
  const std::vector<std::vector<double>> v = nlm3d_guided_values(guide, values, t, params, guide_sigma, threads);
  for (std::size_t i = 0; i < outs.size(); ++i)
    for (int y = 0; y < outs[i].height; ++y)
      for (int x = 0; x < outs[i].width; ++x) {
        const double value = v[i][static_cast<std::size_t>(y) * outs[i].width + x];
        outs[i].set(x, y, std::min(outs[i].max_value(), std::max(0, static_cast<int>(std::floor(value + 0.5)))));
      }
}

void nlm3d_frame_reference(const FrameWindow& window, int t, const PlaneView& out, const NlmParams& params,
                           double sigma, int threads) {
  nlm3d_guided_reference(window, {window}, t, {out}, params, sigma, threads);
}

}  // namespace cdn
