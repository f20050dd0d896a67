// bm3d_reference.cpp: the BM3D reference (bm3d_reference.h), written to be read
// next to section 4 of the paper: grouping by brute-force block matching,
// collaborative filtering, aggregation. The loop over the references, which
// filters groups in parallel and aggregates them in a fixed order, is the one
// V-BM3D's reference shares (bm3d_group_rows.h).
#include "bm3d/bm3d_reference.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "bm3d/bm3d_group_rows.h"
#include "bm3d/bm3d_transforms.h"
#include "cudadenoise/error.h"

namespace cdn::bm3d {

FloatPlane pad_values(const std::vector<float>& values, int vw, int vh) {
  FloatPlane f;
  f.valid_width = vw;
  f.valid_height = vh;
  f.width = std::max(vw, kPatch);
  f.height = std::max(vh, kPatch);
  f.v.resize(static_cast<std::size_t>(f.width) * f.height);
  for (int y = 0; y < f.height; ++y)
    for (int x = 0; x < f.width; ++x)
      f.at(x, y) = values[static_cast<std::size_t>(clamp_coord(y, vh)) * vw + clamp_coord(x, vw)];
  return f;
}

FloatPlane load_plane(const PlaneView& p) {
  std::vector<float> values(static_cast<std::size_t>(p.width) * p.height);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) values[static_cast<std::size_t>(y) * p.width + x] = static_cast<float>(p.get(x, y));
  return pad_values(values, p.width, p.height);
}

FloatPlane resample_guide(const FloatPlane& luma, int w, int h) {
  const int lw = luma.valid_width, lh = luma.valid_height;
  if (w == lw && h == lh) return luma;
  const int fx = lw > w ? 2 : 1, fy = lh > h ? 2 : 1;
  std::vector<float> values(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      // The same operations, in the same order, as the CUDA kernel: (a + b) + (c + d), then the scale.
      const int x0 = clamp_coord(fx * x, lw), x1 = clamp_coord(fx * x + fx - 1, lw);
      const int y0 = clamp_coord(fy * y, lh), y1 = clamp_coord(fy * y + fy - 1, lh);
      const float sum = (luma.at(x0, y0) + luma.at(x1, y0)) + (luma.at(x0, y1) + luma.at(x1, y1));
      values[static_cast<std::size_t>(y) * w + x] = sum * 0.25f;
    }
  return pad_values(values, w, h);
}

FloatPlane quantize_guide(const FloatPlane& guide, int depth) {
  FloatPlane q = guide;
  const float unit = static_cast<float>(1 << (depth - 8));
  for (float& v : q.v) v = std::clamp(std::floor(v / unit + 0.5f), 0.0f, 255.0f);
  return q;
}

std::vector<std::uint16_t> match_group(const FloatPlane& g, int rx, int ry, const PhaseParams& pp) {
  const int last_x = g.width - kPatch, last_y = g.height - kPatch, r = pp.radius, side = pp.side();
  std::vector<std::pair<float, int>> found;  // (sum of squared differences, scan index)
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const int cx = rx + dx, cy = ry + dy;
      if (cx < 0 || cy < 0 || cx > last_x || cy > last_y || (dx == 0 && dy == 0)) continue;
      float d = 0;
      for (int j = 0; j < kPatch; ++j)
        for (int i = 0; i < kPatch; ++i) {
          const float t = g.at(rx + i, ry + j) - g.at(cx + i, cy + j);
          d += t * t;
        }
      if (d <= pp.tau_ssd) found.emplace_back(d, (dy + r) * side + (dx + r));
    }
  const int keep = floor_pow2(std::min<int>(1 + static_cast<int>(found.size()), pp.max_group)) - 1;
  std::partial_sort(found.begin(), found.begin() + keep, found.end());
  std::vector<std::uint16_t> group{static_cast<std::uint16_t>(pp.self_index())};
  for (int k = 0; k < keep; ++k) group.push_back(static_cast<std::uint16_t>(found[k].second));
  return group;
}

std::array<float, kPatchArea> kaiser_window() {
  std::array<float, kPatchArea> k{};
  for (int j = 0; j < kPatch; ++j)
    for (int i = 0; i < kPatch; ++i)
      k[j * kPatch + i] = static_cast<float>(kaiser8(j, kKaiserBeta) * kaiser8(i, kKaiserBeta));
  return k;
}

namespace {
std::array<float, kPatchArea> to_float(const double* m) {
  std::array<float, kPatchArea> f{};
  for (int i = 0; i < kPatchArea; ++i) f[i] = static_cast<float>(m[i]);
  return f;
}
}  // namespace

const std::array<float, kPatchArea>& bior15_forward_matrix() {
  static const std::array<float, kPatchArea> m = to_float(bior15_matrices().forward);
  return m;
}
const std::array<float, kPatchArea>& bior15_inverse_matrix() {
  static const std::array<float, kPatchArea> m = to_float(bior15_matrices().inverse);
  return m;
}

void transform_group(float* g, int n, Transform2d t2, Transform1d t1) {
  for (int k = 0; k < n; ++k) {
    if (t2 == Transform2d::Bior15)
      matrix8x8_apply(g + k * kPatchArea, bior15_forward_matrix().data());
    else
      dct8x8_forward(g + k * kPatchArea);
  }
  for (int c = 0; c < kPatchArea; ++c) {
    if (t1 == Transform1d::Haar)
      haar_forward(g + c, n, kPatchArea);
    else
      wht_inplace(g + c, n, kPatchArea);
  }
}

void inverse_transform_group(float* g, int n, Transform2d t2, Transform1d t1) {
  for (int c = 0; c < kPatchArea; ++c) {
    if (t1 == Transform1d::Haar)
      haar_inverse(g + c, n, kPatchArea);
    else
      wht_inplace(g + c, n, kPatchArea);
  }
  for (int k = 0; k < n; ++k) {
    if (t2 == Transform2d::Bior15)
      matrix8x8_apply(g + k * kPatchArea, bior15_inverse_matrix().data());
    else
      dct8x8_inverse(g + k * kPatchArea);
  }
}

float hard_threshold_group(float* g, int n, float sigma, const PhaseParams& pp) {
  transform_group(g, n, pp.t2d, pp.t1d);
  const float threshold = pp.lambda3d * sigma;
  int kept = 0;
  for (int i = 0; i < n * kPatchArea; ++i) {
    if (std::fabs(g[i]) <= threshold)
      g[i] = 0.0f;
    else
      ++kept;
  }
  inverse_transform_group(g, n, pp.t2d, pp.t1d);
  return kept > 0 ? 1.0f / static_cast<float>(kept) : 1.0f;
}

float hard_threshold_group(float* g, int n, float sigma) { return hard_threshold_group(g, n, sigma, PhaseParams{}); }

float wiener_group(float* g, float* basic, int n, float sigma, const PhaseParams& pp) {
  transform_group(basic, n, pp.t2d, pp.t1d);
  transform_group(g, n, pp.t2d, pp.t1d);
  const float s2 = sigma * sigma;
  float norm2 = 0;
  for (int i = 0; i < n * kPatchArea; ++i) {
    const float b2 = basic[i] * basic[i];
    const float w = b2 / (b2 + s2);
    g[i] *= w;
    norm2 += w * w;
  }
  inverse_transform_group(g, n, pp.t2d, pp.t1d);
  return norm2 > 0 ? std::min(1.0f / norm2, kMaxWeight) : 1.0f;
}

float wiener_group(float* g, float* basic, int n, float sigma) {
  PhaseParams pp;
  pp.wiener = true;
  return wiener_group(g, basic, n, sigma, pp);
}

namespace {

// One phase over the components of one size (they share the guide's groups).
// noisy[c], basic[c] (Wiener only) and out[c] are padded planes of that size.
// Filtered samples are clamped to +-vmax before aggregation (bm3d_profile.h).
void run_phase(const FloatPlane& guide, const PhaseParams& pp, const std::vector<const FloatPlane*>& noisy,
               const std::vector<const FloatPlane*>& basic, const std::vector<float>& sigma,
               const std::vector<FloatPlane*>& out, float vmax, int threads, const std::atomic<bool>* cancel) {
  const int nc = static_cast<int>(noisy.size());
  std::vector<std::vector<double>> num(nc, std::vector<double>(guide.v.size(), 0.0)), den = num;
  auto group = [&](int rx, int ry) {
    std::vector<GroupPatch> g;
    for (std::uint16_t m : match_group(guide, rx, ry, pp))
      g.push_back({0, rx + m % pp.side() - pp.radius, ry + m / pp.side() - pp.radius});
    return g;
  };
  auto filter = [&](int c, const std::vector<GroupPatch>& g, std::vector<float>& values) {
    const int n = static_cast<int>(g.size());
    std::vector<float> basic_g;
    gather_patches(g, [&](int) { return noisy[c]; }, values);
    if (!pp.wiener) return hard_threshold_group(values.data(), n, sigma[c], pp);
    gather_patches(g, [&](int) { return basic[c]; }, basic_g);
    return wiener_group(values.data(), basic_g.data(), n, sigma[c], pp);
  };
  filter_groups_by_rows(
      RefGrid(guide.width, guide.height, pp.step), nc, guide.width, vmax, threads, cancel, group, filter,
      [](const std::vector<GroupPatch>&, int) { return true; },
      [&](int, int c) { return AggregationSums{&num[c], &den[c]}; });
  for (int c = 0; c < nc; ++c) {
    FloatPlane& o = *out[c];
    o = *noisy[c];  // same geometry
    for (std::size_t i = 0; i < o.v.size(); ++i) o.v[i] = static_cast<float>(num[c][i] / den[c][i]);
  }
}

}  // namespace

namespace {

// components_by_size on sizes.
std::vector<std::vector<int>> group_by_size(const std::vector<std::pair<int, int>>& sizes,
                                            const std::vector<double>& sigma, int count) {
  std::vector<std::vector<int>> by_size;
  for (int c = 0; c < count; ++c) {
    if (sigma[c] <= 0) continue;  // nothing to remove: left as it is
    auto same = std::find_if(by_size.begin(), by_size.end(),
                             [&](const std::vector<int>& s) { return sizes[s[0]] == sizes[c]; });
    if (same == by_size.end())
      by_size.push_back({c});
    else
      same->push_back(c);
  }
  return by_size;
}

}  // namespace

std::vector<std::vector<int>> components_by_size(const std::vector<PlaneView>& comps, const std::vector<double>& sigma,
                                                int count) {
  std::vector<std::pair<int, int>> sizes;
  for (int c = 0; c < count; ++c) sizes.emplace_back(comps[c].width, comps[c].height);
  return group_by_size(sizes, sigma, count);
}

double profile_sigma8(const std::vector<double>& sigma, int count, int bit_depth) {
  for (int c = 0; c < count; ++c)
    if (sigma[c] > 0) return sigma[c] / (1 << (bit_depth - 8));
  return 0;
}

Estimates bm3d_estimates(const std::vector<FloatPlane>& input, int depth, const Bm3dSettings& params,
                         const std::vector<double>& sigma, int threads, const std::atomic<bool>* cancel,
                         const std::function<void(PhaseParams&)>& adjust) {
  if (input.empty() || sigma.size() < input.size()) throw InvalidArgument("bm3d: a sigma for every component is needed");
  const int nc = static_cast<int>(input.size());
  Estimates e;
  e.basic = input;
  e.final = e.basic;
  std::vector<std::pair<int, int>> sizes;
  for (const auto& p : input) sizes.emplace_back(p.valid_width, p.valid_height);
  const float vmax = static_cast<float>(1 << (depth + 1));
  const double sigma8 = profile_sigma8(sigma, nc, depth);

  const std::vector<std::vector<int>> by_size = group_by_size(sizes, sigma, nc);
  for (int phase = 0; phase < profile_phases(params); ++phase) {
    const bool wiener = phase == 1;
    PhaseParams pp = phase_params(params, wiener, depth, sigma8);
    if (adjust) adjust(pp);
    // Phase 1 matches on the noisy luma, phase 2 on its basic estimate.
    const FloatPlane& luma = wiener ? e.basic[0] : input[0];
    for (const auto& comps : by_size) {
      FloatPlane guide = resample_guide(luma, sizes[comps[0]].first, sizes[comps[0]].second);
      if (pp.match8) guide = quantize_guide(guide, depth);
      std::vector<const FloatPlane*> in, basic;
      std::vector<float> s;
      std::vector<FloatPlane*> out;
      for (int c : comps) {
        in.push_back(&input[c]);
        basic.push_back(&e.basic[c]);
        s.push_back(static_cast<float>(sigma[c]));
        out.push_back(wiener ? &e.final[c] : &e.basic[c]);
      }
      run_phase(guide, pp, in, basic, s, out, vmax, threads, cancel);
    }
    if (!wiener) e.final = e.basic;
  }
  return e;
}

Estimates bm3d_estimates(const std::vector<PlaneView>& noisy, const Bm3dSettings& params, const std::vector<double>& sigma,
                         int threads, const std::atomic<bool>* cancel) {
  if (noisy.empty() || sigma.size() < noisy.size()) throw InvalidArgument("bm3d: a sigma for every component is needed");
  std::vector<FloatPlane> input;
  for (const auto& p : noisy) input.push_back(load_plane(p));
  return bm3d_estimates(input, noisy[0].bit_depth, params, sigma, threads, cancel);
}

void store_rounded(const FloatPlane& values, const PlaneView& out) {
  const int top = out.max_value();
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const float v = std::floor(values.at(x, y) + 0.5f);
      out.set(x, y, v < 0 ? 0 : (v > top ? top : static_cast<int>(v)));
    }
}

void bm3d_reference(const std::vector<PlaneView>& in, const std::vector<PlaneView>& out, int filtered,
                    const Bm3dSettings& params, const std::vector<double>& sigma, int threads,
                    const std::atomic<bool>* cancel) {
  const std::vector<PlaneView> comps(in.begin(), in.begin() + filtered);
  const Estimates e = bm3d_estimates(comps, params, sigma, threads, cancel);
  for (int c = 0; c < filtered; ++c) store_rounded(e.final[c], out[c]);
}

}  // namespace cdn::bm3d
