// vbm3d_reference.cpp: the V-BM3D reference (vbm3d_reference.h), written to be
// read next to its definition: the predictive search of one group
// (match_group), one phase over frame t (run_phase), and the window driver
// (motion once, basic estimates of the frames the Wiener phase reads, their
// own motion with Vbm3dParams::motion_on_basic, final estimates of the output
// frames). The loop over the references (groups
// filtered in parallel, aggregated in reference order) is BM3D's
// (bm3d_group_rows.h).
#include "vbm3d/vbm3d_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "bm3d/bm3d_group_rows.h"
#include "bm3d/bm3d_profile.h"
#include "cudadenoise/error.h"
#include "motion/motion_reference.h"

namespace cdn::vbm3d {

using bm3d::FloatPlane;
using bm3d::kPatch;
using bm3d::kPatchArea;

namespace {
// Throws Cancelled once `cancel` is true (between frames of the window's setup).
void check_cancel(const std::atomic<bool>* cancel) {
  if (cancel && cancel->load()) throw Cancelled();
}
}  // namespace

double guide_sigma(double luma_sigma, const PlaneView& luma, int w, int h) {
  const int fx = luma.width > w ? 2 : 1, fy = luma.height > h ? 2 : 1;
  return luma_sigma / std::sqrt(static_cast<double>(fx * fy));
}

PhaseSetup phase_setup(const Vbm3dParams& params, bool wiener, int bit_depth, double guide_sigma) {
  PhaseSetup ps;
  ps.p = wiener ? params.wiener : params.hard;
  const float scale = static_cast<float>(1 << (bit_depth - 8));
  ps.tau_ssd = ps.p.tau * kPatchArea * scale * scale;
  if (!wiener && params.hard_tau_noise > 0) {
    const float noise_ssd = static_cast<float>(params.hard_tau_noise * 2 * guide_sigma * guide_sigma) * kPatchArea;
    ps.tau_ssd = std::max(ps.tau_ssd, noise_ssd);
  }
  ps.motion = params.motion;
  return ps;
}

namespace {

// ||P - Q||^2 summed in a fixed order: each row left to right, then the eight
// row sums pairwise ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), the
// order of the CUDA kernel's warp reduction, so both give the same float.
float patch_distance(const FloatPlane& a, int ax, int ay, const FloatPlane& b, int bx, int by) {
  float r[kPatch];
  for (int j = 0; j < kPatch; ++j) {
    r[j] = 0;
    for (int i = 0; i < kPatch; ++i) {
      const float t = a.at(ax + i, ay + j) - b.at(bx + i, by + j);
      r[j] += t * t;
    }
  }
  return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
}

bool by_distance_then_position(const Member& a, const Member& b) {
  if (a.d != b.d) return a.d < b.d;
  if (a.y != b.y) return a.y < b.y;
  return a.x < b.x;
}

}  // namespace

std::vector<Member> match_group(const SearchSpace& s, int t, int first, int last, int rx, int ry, const PhaseSetup& ps) {
  const FloatPlane& g = *s.guide[t];
  const int last_x = g.width - kPatch, last_y = g.height - kPatch;
  auto candidate = [&](int f, int x, int y) { return Member{f, x, y, patch_distance(g, rx, ry, *s.guide[f], x, y)}; };

  // 1. Frame t: the window around the reference, the reference itself apart.
  std::vector<Member> here;
  const int r = ps.p.window / 2;
  for (int y = std::max(0, ry - r); y <= std::min(last_y, ry + r); ++y)
    for (int x = std::max(0, rx - r); x <= std::min(last_x, rx + r); ++x)
      if (x != rx || y != ry) here.push_back(candidate(t, x, y));
  std::sort(here.begin(), here.end(), by_distance_then_position);
  std::vector<Member> seeds_t{Member{t, rx, ry, 0.f}};
  for (int k = 0; k < ps.p.seeds - 1 && k < static_cast<int>(here.size()); ++k) seeds_t.push_back(here[k]);
  std::vector<Member> pool(here.begin(), here.begin() + std::min<std::size_t>(here.size(), ps.p.own_frame));

  // 2. Predictive search, forward then backward.
  const int pr = ps.p.predictive / 2;
  for (int dir : {+1, -1}) {
    std::vector<Member> seeds = seeds_t;
    for (int k = 1; k <= ps.p.radius; ++k) {
      const int f = t + dir * k, prev = f - dir;
      if (f < first || f > last) break;
      const MotionField* field = dir > 0 ? s.forward[prev] : s.backward[f];
      std::vector<std::pair<int, int>> centres;
      for (const Member& m : seeds) {
        int cx = m.x, cy = m.y;
        if (ps.motion) {
          const MotionVector v = field->view().at_pixel(s.fx * (m.x + kPatch / 2), s.fy * (m.y + kPatch / 2));
          cx = clamp_coord(m.x + scale_displacement(v.dx, s.fx), last_x + 1);
          cy = clamp_coord(m.y + scale_displacement(v.dy, s.fy), last_y + 1);
        }
        centres.emplace_back(cx, cy);
      }
      std::vector<Member> found;
      for (std::size_t j = 0; j < centres.size(); ++j) {
        const auto [cx, cy] = centres[j];
        for (int y = std::max(0, cy - pr); y <= std::min(last_y, cy + pr); ++y)
          for (int x = std::max(0, cx - pr); x <= std::min(last_x, cx + pr); ++x) {
            bool seen = false;
            for (std::size_t i = 0; i < j && !seen; ++i)
              seen = std::abs(x - centres[i].first) <= pr && std::abs(y - centres[i].second) <= pr;
            if (!seen) found.push_back(candidate(f, x, y));
          }
      }
      std::sort(found.begin(), found.end(), by_distance_then_position);
      seeds.assign(found.begin(), found.begin() + std::min<std::size_t>(found.size(), ps.p.seeds));
      pool.insert(pool.end(), found.begin(), found.begin() + std::min<std::size_t>(found.size(), ps.p.per_frame));
    }
  }

  // 3. The group: the reference, then the closest candidates within tau.
  std::stable_sort(pool.begin(), pool.end(), [](const Member& a, const Member& b) { return a.d < b.d; });
  int count = 0;
  while (count < static_cast<int>(pool.size()) && pool[count].d <= ps.tau_ssd) ++count;
  const int n = bm3d::floor_pow2(std::min(1 + count, ps.p.group));
  std::vector<Member> group{Member{t, rx, ry, 0.f}};
  group.insert(group.end(), pool.begin(), pool.begin() + (n - 1));
  return group;
}

WindowMotion estimate_window_motion(const std::vector<PlaneView>& lumas, const MotionParams& p,
                                    const std::atomic<bool>* cancel) {
  WindowMotion m;
  std::vector<LumaPyramid> pyr;
  for (const PlaneView& l : lumas) {
    check_cancel(cancel);
    pyr.push_back(build_pyramid(l, p));
  }
  for (std::size_t i = 0; i + 1 < pyr.size(); ++i) {
    m.forward.push_back(estimate_motion(pyr[i], pyr[i + 1], p, cancel));
    m.backward.push_back(estimate_motion(pyr[i + 1], pyr[i], p, cancel));
  }
  return m;
}

namespace {

// Per component, the numerator and denominator of one frame's aggregation.
struct Accumulator {
  std::vector<std::vector<double>> num, den;
};

// One phase for the references of frame t of the window, the components of one
// size: noisy[c][f] and basic[c][f] (Wiener only) are the planes of component c
// in window frame f. The filtered patches go to acc[f] of the frame f they lie
// in (Vbm3dAggregation picks which; nullptr: not aggregated), in reference order.
void run_phase(const SearchSpace& s, int t, int first, int last, const PhaseSetup& ps, Vbm3dAggregation agg,
               const std::vector<std::vector<const FloatPlane*>>& noisy,
               const std::vector<std::vector<const FloatPlane*>>& basic, const std::vector<float>& sigma,
               const std::vector<Accumulator*>& acc, int threads, const std::atomic<bool>* cancel) {
  const FloatPlane& g = *s.guide[t];
  const bool wiener = !basic.empty();
  auto group = [&](int rx, int ry) {
    std::vector<bm3d::GroupPatch> patches;
    for (const Member& m : match_group(s, t, first, last, rx, ry, ps)) patches.push_back({m.frame, m.x, m.y});
    return patches;
  };
  auto filter = [&](int c, const std::vector<bm3d::GroupPatch>& patches, std::vector<float>& values) {
    const int n = static_cast<int>(patches.size());
    bm3d::gather_patches(patches, [&](int f) { return noisy[c][f]; }, values);
    if (!wiener) return bm3d::hard_threshold_group(values.data(), n, sigma[c]);
    std::vector<float> basic_g;
    bm3d::gather_patches(patches, [&](int f) { return basic[c][f]; }, basic_g);
    return bm3d::wiener_group(values.data(), basic_g.data(), n, sigma[c]);
  };
  auto kept = [&](const std::vector<bm3d::GroupPatch>& patches, int k) {
    if (agg == Vbm3dAggregation::Reference && k > 0) return false;
    if (agg != Vbm3dAggregation::Group && patches[k].frame != t) return false;
    return acc[patches[k].frame] != nullptr;
  };
  // No clamp (V-BM3D's aggregation has none): +-infinity leaves every float as it is.
  const float no_clamp = std::numeric_limits<float>::infinity();
  bm3d::filter_groups_by_rows(bm3d::RefGrid(g.width, g.height, ps.p.step), static_cast<int>(noisy.size()), g.width,
                              no_clamp, threads, cancel, group, filter, kept, [&](int f, int c) {
                                return bm3d::AggregationSums{&acc[f]->num[c], &acc[f]->den[c]};
                              });
}

// Vbm3dParams::motion_on_basic: the fields between adjacent frames of [b0, b1)
// estimated again on their basic estimates' luma, rounded to the input's code
// values as an output is (store_rounded), replacing the noisy frames' fields
// there (the causal window's forward fields are never read: not estimated).
void basic_estimate_motion(const std::vector<std::vector<FloatPlane>>& basic, int b0, int b1, int depth,
                           const Vbm3dParams& params, WindowMotion& motion, const std::atomic<bool>* cancel) {
  const MotionParams& mp = params.motion_params;
  std::vector<LumaPyramid> pyr(basic.size());
  for (int f = b0; f < b1; ++f) {
    check_cancel(cancel);
    const FloatPlane& b = basic[f][0];
    std::vector<std::uint16_t> rounded(static_cast<std::size_t>(b.valid_width) * b.valid_height);
    PlaneView v;
    v.data = rounded.data();
    v.pitch = sizeof(std::uint16_t) * b.valid_width;
    v.width = b.valid_width;
    v.height = b.valid_height;
    v.bytes_per_sample = 2;
    v.bit_depth = depth;
    bm3d::store_rounded(b, v);
    pyr[f] = build_pyramid(v, mp);
  }
  for (int f = b0; f + 1 < b1; ++f) {
    if (!params.causal) motion.forward[f] = estimate_motion(pyr[f], pyr[f + 1], mp, cancel);
    motion.backward[f] = estimate_motion(pyr[f + 1], pyr[f], mp, cancel);
  }
}

}  // namespace

WindowEstimates vbm3d_estimates(const std::vector<std::vector<PlaneView>>& noisy, int out_begin, int out_end,
                                const Vbm3dParams& params, const std::vector<double>& sigma, int threads,
                                const std::atomic<bool>* cancel) {
  validate(params);
  const int n = static_cast<int>(noisy.size());
  if (n == 0 || out_begin < 0 || out_end > n || out_begin >= out_end)
    throw InvalidArgument("vbm3d: the output frames must be frames of the window");
  const int nc = static_cast<int>(noisy[0].size());
  if (static_cast<int>(sigma.size()) < nc) throw InvalidArgument("vbm3d: a sigma for every component is needed");
  const int depth = noisy[0][0].bit_depth;
  const int r1 = params.hard.radius, r2 = params.phases == 2 ? params.wiener.radius : 0;

  // Noisy planes in float, and the motion of the window (luma), once.
  std::vector<std::vector<FloatPlane>> in(n);
  std::vector<PlaneView> lumas;
  for (int f = 0; f < n; ++f) {
    check_cancel(cancel);
    for (const PlaneView& p : noisy[f]) in[f].push_back(bm3d::load_plane(p));
    lumas.push_back(noisy[f][0]);
  }
  WindowMotion motion = params.motion ? estimate_window_motion(lumas, params.motion_params, cancel) : WindowMotion{};
  const std::vector<std::vector<int>> by_size = bm3d::components_by_size(noisy[0], sigma, nc);

  // Frames whose references aggregate into frame t, besides t, per phase of radius r:
  // with Vbm3dAggregation::Group those within r of it (never causal), else none.
  const bool group_agg = params.aggregation == Vbm3dAggregation::Group;
  auto spread = [&](int r) { return group_agg ? r : 0; };
  // Frames whose basic estimate the Wiener phase of the outputs reads.
  const int b0 = std::max(0, out_begin - r2 - spread(r2));
  const int b1 = std::min(n, out_end + (params.causal ? 0 : r2 + spread(r2)));
  std::vector<std::vector<FloatPlane>> basic(n);
  for (int f = b0; f < b1; ++f) {
    check_cancel(cancel);
    basic[f] = in[f];  // components with sigma 0 stay as they are
  }
  WindowEstimates e;

  // One phase for the frames [f0, f1): guides from `luma_of`, radius r, results into result[f].
  // The causal window searches no later frame than t.
  const int ahead = params.causal ? 0 : 1;
  auto phase = [&](bool wiener, int f0, int f1, int r, std::vector<std::vector<FloatPlane>>& result) {
    const int t0 = std::max(0, f0 - spread(r)), t1 = std::min(n, f1 + ahead * spread(r));  // reference frames
    const int g0 = std::max(0, t0 - r), g1 = std::min(n, t1 + ahead * r);                 // frames searched
    for (const std::vector<int>& comps : by_size) {
      const int w = noisy[0][comps[0]].width, h = noisy[0][comps[0]].height;
      const PhaseSetup ps = phase_setup(params, wiener, depth, guide_sigma(sigma[0], noisy[0][0], w, h));
      std::vector<FloatPlane> guides(n);
      SearchSpace s;
      s.guide.assign(n, nullptr);
      for (int f = g0; f < g1; ++f) {
        check_cancel(cancel);
        guides[f] = bm3d::resample_guide(wiener ? basic[f][0] : in[f][0], w, h);
        s.guide[f] = &guides[f];
      }
      for (int f = 0; f + 1 < n; ++f) {
        s.forward.push_back(params.motion ? &motion.forward[f] : nullptr);
        s.backward.push_back(params.motion ? &motion.backward[f] : nullptr);
      }
      s.fx = noisy[0][0].width > w ? 2 : 1;
      s.fy = noisy[0][0].height > h ? 2 : 1;
      std::vector<std::vector<const FloatPlane*>> np(comps.size(), std::vector<const FloatPlane*>(n, nullptr)), bp;
      if (wiener) bp = np;
      std::vector<float> sg;
      for (std::size_t c = 0; c < comps.size(); ++c) {
        for (int f = g0; f < g1; ++f) {
          np[c][f] = &in[f][comps[c]];
          if (wiener) bp[c][f] = &basic[f][comps[c]];
        }
        sg.push_back(static_cast<float>(sigma[comps[c]]));
      }
      // The accumulators of the frames [f0, f1) (patches for other frames are
      // dropped), held only while references can reach them: frame f is opened
      // before reference frame f - spread(r) runs and finished after f + spread(r),
      // so at most 2 spread(r) + 1 are held at once (the same sums in the same order).
      std::vector<Accumulator> accs(f1 - f0);
      std::vector<Accumulator*> acc(n, nullptr);
      auto open = [&](int f) {
        if (f < f0 || f >= f1 || acc[f]) return;
        Accumulator& a = accs[f - f0];
        for (int c : comps) a.num.emplace_back(in[f][c].v.size(), 0.0);
        a.den = a.num;
        acc[f] = &a;
      };
      auto finish = [&](int f) {
        if (f < f0 || f >= f1) return;
        open(f);  // a frame no reference reached (none in this phase) still gets its 0 / 0
        for (std::size_t c = 0; c < comps.size(); ++c) {
          FloatPlane& o = result[f][comps[c]];
          o = in[f][comps[c]];  // same geometry
          for (std::size_t i = 0; i < o.v.size(); ++i) o.v[i] = static_cast<float>(acc[f]->num[c][i] / acc[f]->den[c][i]);
        }
        accs[f - f0] = Accumulator{};
        acc[f] = nullptr;
      };
      int done = f0;  // frames below are finished
      for (int t = t0; t < t1; ++t) {
        check_cancel(cancel);
        for (int f = t - spread(r); f <= t + ahead * spread(r); ++f) open(f);
        run_phase(s, t, std::max(0, t - r), std::min(n - 1, t + ahead * r), ps, params.aggregation, np, bp, sg, acc,
                  threads, cancel);
        for (; done <= t - spread(r) && done < f1; ++done) finish(done);
      }
      for (; done < f1; ++done) finish(done);
    }
  };

  std::vector<std::vector<FloatPlane>> basic_out = basic;
  phase(false, b0, b1, r1, basic_out);
  basic = basic_out;
  std::vector<std::vector<FloatPlane>> final_out = basic;
  if (params.phases == 2 && params.motion && params.motion_on_basic) {
    check_cancel(cancel);
    basic_estimate_motion(basic, b0, b1, depth, params, motion, cancel);
  }
  if (params.phases == 2) phase(true, out_begin, out_end, r2, final_out);
  for (int f = out_begin; f < out_end; ++f) {
    e.basic.push_back(basic[f]);
    e.final.push_back(final_out[f]);
  }
  return e;
}

}  // namespace cdn::vbm3d

namespace cdn {

void vbm3d_reference(const std::vector<FrameView>& window, int out_begin, int out_end,
                     const std::vector<FrameView>& outs, int filtered, const Vbm3dParams& params,
                     const std::vector<double>& sigma, int threads, const std::atomic<bool>* cancel) {
  if (static_cast<int>(outs.size()) < out_end - out_begin)
    throw InvalidArgument("vbm3d: an output frame for every frame filtered is needed");
  std::vector<std::vector<PlaneView>> noisy;
  for (const FrameView& f : window) {
    if (f.format != window[0].format || f.width != window[0].width || f.height != window[0].height)
      throw InvalidArgument("vbm3d: the window's frames differ in format or size");
    const std::vector<PlaneView> c = components(f);
    noisy.emplace_back(c.begin(), c.begin() + filtered);
  }
  const vbm3d::WindowEstimates e = vbm3d::vbm3d_estimates(noisy, out_begin, out_end, params, sigma, threads, cancel);
  for (int f = out_begin; f < out_end; ++f) {
    const std::vector<PlaneView> in = components(window[f]), out = components(outs[f - out_begin]);
    for (std::size_t c = 0; c < out.size(); ++c) {
      if (static_cast<int>(c) < filtered) {
        bm3d::store_rounded(e.final[f - out_begin][c], out[c]);
      } else {
        for (int y = 0; y < out[c].height; ++y)
          for (int x = 0; x < out[c].width; ++x) out[c].set(x, y, in[c].get(x, y));
      }
    }
  }
}

void vbm3d_frame_reference(const std::vector<FrameView>& window, int centre, const FrameView& out, int filtered,
                           const Vbm3dParams& params, const std::vector<double>& sigma, int threads) {
  vbm3d_reference(window, centre, centre + 1, {out}, filtered, params, sigma, threads);
}

}  // namespace cdn
