// noise_estimate.cpp: robust Immerkaer noise estimate (noise_estimate.h).
#include "noise_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "error.h"

namespace cdn {

double estimate_noise_sigma(const PlaneView& p) {
  if (p.memory != MemoryKind::Host) throw InvalidArgument("estimate_noise_sigma needs a host plane");
  if (p.width < 3 || p.height < 3) return 0.0;
  struct Sample {
    int gradient;
    int response;
  };
  std::vector<Sample> s;
  s.reserve(static_cast<std::size_t>(p.width - 2) * (p.height - 2));
  for (int y = 1; y < p.height - 1; ++y)
    for (int x = 1; x < p.width - 1; ++x) {
      const int c = p.get(x, y);
      const int n = p.get(x, y - 1), so = p.get(x, y + 1), w = p.get(x - 1, y), e = p.get(x + 1, y);
      const int nw = p.get(x - 1, y - 1), ne = p.get(x + 1, y - 1), sw = p.get(x - 1, y + 1), se = p.get(x + 1, y + 1);
      // Clipped samples carry censored noise: leave out neighbourhoods that touch 0 or the maximum.
      const int top = p.max_value();
      const int lo = std::min({c, n, so, w, e, nw, ne, sw, se}), hi = std::max({c, n, so, w, e, nw, ne, sw, se});
      if (lo == 0 || hi == top) continue;
      const int response = nw + ne + sw + se - 2 * (n + so + w + e) + 4 * c;
      // Sobel magnitude (L1) as the measure of local structure.
      const int gx = (ne + 2 * e + se) - (nw + 2 * w + sw);
      const int gy = (sw + 2 * so + se) - (nw + 2 * n + ne);
      s.push_back({std::abs(gx) + std::abs(gy), std::abs(response)});
    }
  // The flatter half of the pixels.
  if (s.empty()) return 0.0;
  auto mid = s.begin() + s.size() / 2;
  std::nth_element(s.begin(), mid, s.end(), [](const Sample& a, const Sample& b) { return a.gradient < b.gradient; });
  std::vector<int> r;
  r.reserve(s.size() / 2 + 1);
  for (auto it = s.begin(); it != mid; ++it) r.push_back(it->response);
  if (r.empty()) return 0.0;  // nothing unclipped to measure
  auto m = r.begin() + r.size() / 2;
  std::nth_element(r.begin(), m, r.end());
  const double sigma = 1.4826 * *m / 6.0;
  return sigma / std::pow(2.0, p.bit_depth - 8);
}

namespace {
double component_sigma(const PlaneView& c, double given) {
  return (given > 0 ? given : estimate_noise_sigma(c)) * (1 << (c.bit_depth - 8));
}
}  // namespace

std::vector<double> component_sigmas(const FrameView& frame, double given) {
  std::vector<double> sigma;
  for (const auto& c : components(frame)) sigma.push_back(component_sigma(c, given));
  return sigma;
}

double luma_sigma(const FrameView& frame, double given) { return component_sigma(components(frame)[0], given); }

}  // namespace cdn
