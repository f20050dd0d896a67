// nlm3d_reference.cpp: offset-major 3D non-local means on host planes (nlm3d_reference.h).
#include "nlm3d_reference.h"

#include <algorithm>
#include <cmath>
#include <string>

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

std::vector<double> nlm3d_frame_values(const FrameWindow& window, int t, const NlmParams& params, double sigma,
                                       int threads) {
  const PlaneView& ref = window.at(t);
  const int w = ref.width, h = ref.height, r = params.patch_radius, R = params.search_radius;
  if (ref.memory != MemoryKind::Host) throw InvalidArgument("nlm3d reference needs host planes");
  const double inv_h2 = sigma > 0 ? 1.0 / nlm_h2(params, sigma) : 0.0;

  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<double> num(n, 0.0), den(n, 0.0), wmax(n, 0.0);
  // Per offset: the squared difference summed over the patch's frames, on the
  // frame extended by r (clamped), then box sums along x, then along y.
  const int ew = w + 2 * r, eh = h + 2 * r;
  std::vector<double> diff(static_cast<std::size_t>(ew) * eh), hsum(static_cast<std::size_t>(w) * eh);
  auto sample = [](const PlaneView& p, int x, int y) { return p.get(clamp_coord(x, p.width), clamp_coord(y, p.height)); };

  for (int dt = -params.temporal_radius; dt <= params.temporal_radius; ++dt) {
    const int tc = t + dt;
    if (tc < 0 || tc >= window.stream_length) continue;  // the window shrinks at the stream's ends
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) {
        if (dx == 0 && dy == 0 && dt == 0) continue;  // the self weight is set below
        parallel_rows(eh, threads, [&](int ey) {
          for (int ex = 0; ex < ew; ++ex) {
            const int x = ex - r, y = ey - r;
            double d = 0;
            for (int k = -r; k <= r; ++k) {
              const double a = sample(window.at(t + k), x, y);
              const double b = sample(window.at(tc + k), x + dx, y + dy);
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
        const PlaneView& cand = window.at(tc);
        parallel_rows(h, threads, [&](int y) {
          for (int x = 0; x < w; ++x) {
            const int qx = x + dx, qy = y + dy;
            if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;  // candidate outside the frame
            double d2 = 0;
            for (int k = 0; k <= 2 * r; ++k) d2 += hsum[static_cast<std::size_t>(y + k) * w + x];
            const double wt = std::exp(-d2 * inv_h2);
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            num[i] += wt * cand.get(qx, qy);
            den[i] += wt;
            wmax[i] = std::max(wmax[i], wt);
          }
        });
      }
  }
  std::vector<double> values(n);
  parallel_rows(h, threads, [&](int y) {
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * w + x;
      const double self = den[i] > 0 ? wmax[i] : 1.0;
      values[i] = (num[i] + self * ref.get(x, y)) / (den[i] + self);
    }
  });
  return values;
}

void nlm3d_frame_reference(const FrameWindow& window, int t, const PlaneView& out, const NlmParams& params,
                           double sigma, int threads) {
  const PlaneView& ref = window.at(t);
  if (out.memory != MemoryKind::Host) throw InvalidArgument("nlm3d reference needs host planes");
  if (out.width != ref.width || out.height != ref.height) throw InvalidArgument("nlm3d: output size differs");
  const std::vector<double> v = nlm3d_frame_values(window, t, params, sigma, threads);
  for (int y = 0; y < ref.height; ++y)
    for (int x = 0; x < ref.width; ++x) {
      const double value = v[static_cast<std::size_t>(y) * ref.width + x];
      out.set(x, y, std::min(ref.max_value(), std::max(0, static_cast<int>(std::floor(value + 0.5)))));
    }
}

}  // namespace cdn
