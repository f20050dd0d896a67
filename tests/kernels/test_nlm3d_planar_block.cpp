// test_nlm3d_planar_block.cpp: the 2D-patch kernel's block program
// (nlm3d_planar_block.h) run on the CPU, block by block and thread by thread in
// the kernel's phase order, against nlm3d_reference: the same float arithmetic
// as on the GPU, so the kernel's tiles, regions, groups of offsets, motion
// vectors and the global-memory path for widely spread vectors are checked in
// CI without a GPU. Bound as for the GPU: never more than one code value apart,
// at most 0.01% of samples (float weights against double).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "nlm3d/nlm3d_planar_block.h"
#include "nlm3d/nlm3d_reference.h"
#include "test_nlm3d_support.h"

namespace cdn {
namespace {

namespace np = nlm_planar;

// The kernel's grid, run on the host: each block's phases in order, each phase for every thread.
template <int r, int NV>
void emulate(const np::Params& P) {
  const np::Layout L(std::max(P.R, P.Rn), r);
  std::vector<float> sm(L.floats(NV));
  float* cen = sm.data();
  float* reg = cen + L.cen_side * L.cen_side;
  float* val = reg + L.reg_w * L.reg_h;
  const NlmChunk& c = P.c;
  const int nth = 32 * np::kWarps;
  const int gx = (c.value_proto[0].width + np::kTile - 1) / np::kTile;
  const int gy = (c.value_proto[0].height + np::kTile - 1) / np::kTile;
  std::vector<np::LaneSums<NV>> sums(nth);
  std::vector<int> vx(nth), vy(nth);
  for (int z = 0; z < c.out_count; ++z)
    for (int by = 0; by < gy; ++by)
      for (int bx = 0; bx < gx; ++bx) {
        const int t = c.out_first + z, x0 = bx * np::kTile, y0 = by * np::kTile;
        for (int tid = 0; tid < nth; ++tid) np::load_centre(P, cen, r, t, x0, y0, tid, nth);
        for (auto& s : sums) s.clear();
        for (int dt = -P.Rt; dt <= P.dt_last; ++dt) {
          const int tc = t + dt;
          if (tc < 0 || tc >= c.stream_length) continue;
          int e[4] = {INT_MAX, INT_MIN, INT_MAX, INT_MIN};
          for (int tid = 0; tid < nth; ++tid) {
            np::lane_vector(P, z, dt, x0 + tid % 32, y0 + (tid / 32) * np::kRows, &vx[tid], &vy[tid]);
            e[0] = std::min(e[0], vx[tid]);
            e[1] = std::max(e[1], vx[tid]);
            e[2] = std::min(e[2], vy[tid]);
            e[3] = std::max(e[3], vy[tid]);
          }
          const int R = np::search_radius(P, dt);
          const np::Regions g = P.fields && dt != 0 ? np::plan_regions(x0, y0, R, r, e[0], e[1], e[2], e[3])
                                                    : np::plan_regions(x0, y0, R, r, 0, 0, 0, 0);
          if (g.shared)
            for (int tid = 0; tid < nth; ++tid) np::load_regions(P, g, reg, val, NV, tc, tid, nth);
          for (int tid = 0; tid < nth; ++tid) {
            const float conf = np::lane_confidence(P, z, dt, x0 + tid % 32, y0 + (tid / 32) * np::kRows);
            if (g.shared)
              np::lane_offsets<r, NV>(P, sums[tid], cen, np::SharedReader{reg, val, g, NV}, tid % 32, tid / 32, x0,
                                      y0, dt, vx[tid], vy[tid], conf);
            else
              np::lane_offsets<r, NV>(P, sums[tid], cen, np::GlobalReader{&c, tc}, tid % 32, tid / 32, x0, y0, dt,
                                      vx[tid], vy[tid], conf);
          }
        }
        for (int tid = 0; tid < nth; ++tid) np::lane_write(P, sums[tid], tid % 32, tid / 32, x0, y0, z);
      }
}

template <int NV>
void emulate_for(const np::Params& P, int r) {
  switch (r) {
    case 0: emulate<0, NV>(P); break;
    case 1: emulate<1, NV>(P); break;
    case 2: emulate<2, NV>(P); break;
    case 3: emulate<3, NV>(P); break;
    case 4: emulate<4, NV>(P); break;
    default: FAIL() << "patch radius " << r;
  }
}

struct Clip {
  PixelFormat format;
  int w, h;
  std::vector<HostFrame> frames;
};

Clip make_clip(PixelFormat f, int frames, int w, int h, std::uint64_t seed) {
  Clip c{f, w, h, {}};
  for (int i = 0; i < frames; ++i) {
    c.frames.emplace_back(f, w, h);
    int k = 0;
    for (const auto& p : components(c.frames.back().view())) {
      const int scale = 1 << (p.bit_depth - 8);
      for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x)
          p.set(x, y, scale * (128 + int(60 * std::sin(0.27 * (x + 3 * i) + 0.19 * (y - 2 * i) + k))));
      ++k;
    }
    add_gaussian_noise(c.frames.back().view(), 16.0, seed + i);
  }
  return c;
}

// Every pass of the kernel over the whole clip (one chunk), emulated on the host.
std::vector<HostFrame> emulate_clip(const Clip& clip, const NlmParams& p, const test::HostFields* fields, double sigma,
                                    int filtered) {
  const int n = static_cast<int>(clip.frames.size());
  std::vector<HostFrame> outs;
  for (const auto& f : clip.frames) {  // unfiltered components are copies
    outs.emplace_back(clip.format, clip.w, clip.h);
    const auto a = components(f.view()), b = components(outs.back().view());
    for (std::size_t c = 0; c < a.size(); ++c)
      for (int y = 0; y < a[c].height; ++y)
        for (int x = 0; x < a[c].width; ++x) b[c].set(x, y, a[c].get(x, y));
  }
  // frame-confidence: the reference's factors of every frame, laid out as the kernel reads them.
  std::vector<float> factors;
  const PlaneView luma0 = components(clip.frames[0].view())[0];
  if (p.frame_confidence > 0) {
    FrameWindow luma;
    luma.stream_length = n;
    for (const auto& f : clip.frames) luma.frames.push_back(components(f.view())[0]);
    for (int t = 0; t < n; ++t) {
      NlmMotion m;
      if (fields) m.fields = fields->of_frame(t);
      const std::vector<float> f = nlm_frame_confidence(luma, t, p, sigma, fields ? &m : nullptr);
      factors.insert(factors.end(), f.begin(), f.end());
    }
  }
  for (const NlmPass& pass : nlm_passes(clip.format, filtered)) {
    const int nv = static_cast<int>(pass.values.size());
    std::vector<const void*> guide_table;
    std::vector<std::vector<const void*>> value_tables(nv);
    std::vector<std::vector<void*>> out_tables(nv);
    for (int i = 0; i < n; ++i) {
      guide_table.push_back(components(clip.frames[i].view())[0].data);
      for (int v = 0; v < nv; ++v) {
        value_tables[v].push_back(components(clip.frames[i].view())[pass.values[v]].data);
        out_tables[v].push_back(components(outs[i].view())[pass.values[v]].data);
      }
    }
    np::Params P;
    P.c.guide_proto = components(clip.frames[0].view())[0];
    P.c.guide_window = guide_table.data();
    P.c.fx = pass.fx;
    P.c.fy = pass.fy;
    P.c.values = nv;
    for (int v = 0; v < nv; ++v) {
      P.c.value_proto[v] = components(clip.frames[0].view())[pass.values[v]];
      P.c.value_window[v] = value_tables[v].data();
      P.c.out_proto[v] = components(outs[0].view())[pass.values[v]];
      P.c.outputs[v] = out_tables[v].data();
    }
    P.c.window_first = 0;
    P.c.window_count = n;
    P.c.stream_length = n;
    P.c.out_first = 0;
    P.c.out_count = n;
    P.R = p.search_radius_at(0);
    P.Rn = p.search_radius_at(1);
    P.Rt = p.temporal_radius;
    P.dt_last = p.last_dt();
    P.inv_h2 = static_cast<float>(1.0 / nlm_h2(p, sigma));
    P.offset = static_cast<float>(nlm_distance_offset(p, sigma));
    P.self_floor = static_cast<float>(p.self_weight_floor);
    P.fields = fields ? fields->fields.data() : nullptr;
    if (!factors.empty())
      P.confidence = nlm_confidence_view(factors.data(), p, luma0.width, luma0.height, pass.fx, pass.fy);
    switch (nv) {
      case 1: emulate_for<1>(P, p.patch_radius); break;
      case 2: emulate_for<2>(P, p.patch_radius); break;
      default: emulate_for<3>(P, p.patch_radius); break;
    }
  }
  return outs;
}

void check(const Clip& clip, const NlmParams& p, const test::HostFields* fields, const std::string& what,
           int filtered = 3, double sigma8 = 16.0) {
  filtered = std::min(filtered, format_info(clip.format).components);
  ASSERT_TRUE(!fields || fields->Rt == p.temporal_radius) << what << ": fields made for another temporal radius";
  const double sigma = sigma8 * (1 << (components(clip.frames[0].view())[0].bit_depth - 8));
  const auto got = emulate_clip(clip, p, fields, sigma, filtered);
  const auto want = test::reference_clip(clip.frames, p, sigma, fields, filtered);
  long samples = 0, differ = 0;
  int worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto a = components(got[i].view()), b = components(want[i].view());
    for (std::size_t c = 0; c < a.size(); ++c)
      for (int y = 0; y < a[c].height; ++y)
        for (int x = 0; x < a[c].width; ++x) {
          const int d = std::abs(a[c].get(x, y) - b[c].get(x, y));
          worst = std::max(worst, d);
          differ += d != 0;
          ++samples;
          if (d > 1) {
            ADD_FAILURE() << what << ": frame " << i << " component " << c << " at " << x << "," << y << ": kernel "
                          << a[c].get(x, y) << ", reference " << b[c].get(x, y);
            return;
          }
        }
  }
  std::printf("%-48s %ld of %ld samples differ (%.4f%%), at most by %d\n", what.c_str(), differ, samples,
              100.0 * differ / std::max(1L, samples), worst);
  EXPECT_LE(differ, samples / 10000) << what;
}

NlmParams planar(int R, int Rt, int r, bool motion = false) {
  NlmParams p = nlm_params(nlm_paper_params(), false);
  p.search_radius = R;
  p.temporal_radius = Rt;
  p.patch_radius = r;
  p.patch_shape = NlmPatchShape::Planar;
  p.motion_search = motion;
  p.beta = 0.35;
  return p;
}

TEST(Nlm3dPlanarBlock, EqualsTheReferenceWithoutMotion) {
  // Sizes: less than a tile, and tiles cut by both borders.
  const Clip small = make_clip(PixelFormat::GRAY8, 4, 21, 13, 1);
  const Clip gray = make_clip(PixelFormat::GRAY8, 5, 70, 45, 2);
  for (int r = 0; r <= 4; ++r) check(small, planar(2, 1, r), nullptr, "gray 21x13, 5x5x3, r=" + std::to_string(r));
  check(gray, planar(1, 2, 1), nullptr, "gray 70x45, 3x3x5, r=1");
  check(gray, planar(2, 2, 4), nullptr, "gray 70x45, 5x5x5, r=4");
  check(gray, planar(3, 1, 2), nullptr, "gray 70x45, 7x7x3, r=2");
  check(gray, planar(5, 0, 3), nullptr, "gray 70x45, 11x11x1, r=3");
  NlmParams offset = planar(2, 2, 4);
  offset.distance_offset = true;
  check(gray, offset, nullptr, "gray 70x45, 5x5x5, r=4, distance-offset");
}

// Frames smaller than the patch and the tile, clean, at sigma 0.5: most weights far
// below self-weight-floor, many below what float holds (the kernel's expf gives 0
// where the reference's exp does not). The self weight keeps them out of the output
// on both sides.
TEST(Nlm3dPlanarBlock, EqualsTheReferenceOnTinyCleanFrames) {
  std::vector<std::pair<int, int>> sizes;
  for (int w = 1; w <= 8; ++w)
    for (int h = 1; h <= 8; ++h) sizes.push_back({w, h});
  for (auto wh : {std::pair{3, 5}, {2, 17}, {17, 2}, {40, 3}}) sizes.push_back(wh);
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::Y444, PixelFormat::NV12})
    for (auto [w, h] : sizes) {
      Clip clip{f, w, h, {}};
      for (int i = 0; i < 3; ++i) {
        clip.frames.emplace_back(f, w, h);
        int k = 0;
        for (const auto& p : components(clip.frames.back().view())) {
          for (int y = 0; y < p.height; ++y)
            for (int x = 0; x < p.width; ++x) p.set(x, y, 100 + (4 + 9 * k) * ((x + 2 * y + i + k) % 5));
          ++k;
        }
      }
      const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h);
      NlmParams video;
      video.motion_search = false;  // the fields' cells: below
      video.temporal_radius = 1;
      check(clip, video, nullptr, what + ", video settings without motion, sigma 0.5", 3, 0.5);
      const test::HostFields zero = test::make_fields(3, 1, w, h, 16, [](int, int, int, int) { return std::pair{0, 0}; });
      video.motion_search = true;
      check(clip, video, &zero, what + ", video settings, sigma 0.5", 3, 0.5);
    }
}

TEST(Nlm3dPlanarBlock, EqualsTheReferenceWithMotion) {
  const Clip gray = make_clip(PixelFormat::GRAY8, 5, 70, 45, 3);
  // A global shift: every cell the same vector, growing with dt.
  const test::HostFields shift = test::make_fields(5, 2, 70, 45, 16, [](int, int dt, int, int) { return std::pair{3 * dt, -2 * dt}; });
  check(gray, planar(2, 2, 4, true), &shift, "gray, global shift, 5x5x5, r=4");
  // Cells with their own vectors, within a tile's shared-memory spread.
  std::mt19937 rng(7);
  auto near = [&](int, int dt, int, int) { return std::pair{int(rng() % 9) - 4 + dt, int(rng() % 7) - 3}; };
  const test::HostFields near2 = test::make_fields(5, 2, 70, 45, 16, near);
  const test::HostFields near1 = test::make_fields(5, 1, 70, 45, 8, near);
  check(gray, planar(2, 2, 3, true), &near2, "gray, per-cell vectors, 5x5x5, r=3");
  check(gray, planar(3, 1, 1, true), &near1, "gray, per-cell vectors (cells of 8), 7x7x3, r=1");
  // Other search radii in the other frames: smaller, larger, and 0 (only the motion's candidate).
  for (int rn : {2, 4, 0}) {
    NlmParams p = planar(3, 2, 4, true);
    p.neighbour_search_radius = rn;
    p.distance_offset = true;
    check(gray, p, &near2, "gray, 7x7 in t, " + std::to_string(2 * rn + 1) + "^2 in the others, r=4");
  }
  // Spreads beyond kSpread: those tiles take the global-memory path; vectors far outside the frame too.
  const test::HostFields far = test::make_fields(5, 2, 70, 45, 8, [&](int, int dt, int cx, int) {
    return std::pair{(cx % 2 ? 25 : -20) * (dt != 0), int(rng() % 41) - 20};
  });
  check(gray, planar(2, 2, 2, true), &far, "gray, spread vectors (global path), r=2");
}

TEST(Nlm3dPlanarBlock, EqualsTheReferenceInColour) {
  // 4:2:0: the chroma pass on the luma's 2x2 means, vectors halved (cells of 16 luma = 8 chroma rows).
  std::mt19937 rng(11);
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::Y444}) {
    const Clip clip = make_clip(f, 4, 67, 41, 5);
    const test::HostFields fields = test::make_fields(4, 1, 67, 41, 16, [&](int, int dt, int, int) {
      return std::pair{int(rng() % 11) - 5 + 2 * dt, int(rng() % 7) - 3 - dt};
    });
    check(clip, planar(2, 1, 2), nullptr, std::string(format_name(f)) + ", 5x5x3, r=2");
    check(clip, planar(2, 1, 3, true), &fields, std::string(format_name(f)) + ", motion, 5x5x3, r=3");
  }
}

// frame-confidence: each lane's factor per temporal offset (cells of 16 and 32 luma
// pixels, frames cut by the cells' borders), in every format's passes.
TEST(Nlm3dPlanarBlock, EqualsTheReferenceWithFrameConfidence) {
  std::mt19937 rng(17);
  const Clip gray = make_clip(PixelFormat::GRAY8, 5, 70, 45, 8);
  const test::HostFields fields = test::make_fields(5, 2, 70, 45, 16, [&](int, int dt, int, int) {
    return std::pair{int(rng() % 9) - 4 + dt, int(rng() % 7) - 3};
  });
  for (int cell : {16, 32}) {
    NlmParams p;
    p.temporal_radius = 2;
    p.confidence_cell = cell;
    p.frame_confidence = 0.3;  // factors spread over (0, 1) on this clip
    FrameWindow luma;
    luma.stream_length = 5;
    for (const auto& f : gray.frames) luma.frames.push_back(components(f.view())[0]);
    NlmMotion m{fields.of_frame(2), 1, 1};
    const auto f = nlm_frame_confidence(luma, 2, p, 16.0, &m);
    EXPECT_LT(*std::min_element(f.begin(), f.end()), 0.9f) << "some factor differs from 1";
    check(gray, p, &fields, "gray, video settings, confidence cells of " + std::to_string(cell));
  }
  NlmParams fixed = planar(2, 2, 2);
  fixed.frame_confidence = 0.5;
  check(gray, fixed, nullptr, "gray, no motion, confidence, r=2");
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::Y444}) {
    const Clip clip = make_clip(f, 4, 67, 41, 9);
    const test::HostFields f2 = test::make_fields(4, 1, 67, 41, 16, [&](int, int dt, int, int) {
      return std::pair{int(rng() % 11) - 5 + 2 * dt, int(rng() % 7) - 3 - dt};
    });
    NlmParams p;
    p.temporal_radius = 1;
    p.frame_confidence = 0.3;
    check(clip, p, &f2, std::string(format_name(f)) + ", video settings, confidence");
  }
}

TEST(Nlm3dPlanarBlock, EqualsTheReferenceCausal) {
  // The causal window: frames t - Rt .. t only (the reference skips dt > 0 too).
  std::mt19937 rng(13);
  const Clip gray = make_clip(PixelFormat::GRAY8, 5, 70, 45, 4);
  const test::HostFields fields = test::make_fields(5, 2, 70, 45, 16, [&](int, int dt, int, int) {
    return std::pair{int(rng() % 9) - 4 + dt, int(rng() % 7) - 3};
  });
  NlmParams p;
  p.temporal_radius = 2;
  p.causal = true;
  check(gray, p, &fields, "gray, video settings, causal, Rt=2");
  const Clip nv12 = make_clip(PixelFormat::NV12, 4, 67, 41, 6);
  const test::HostFields f2 = test::make_fields(4, 1, 67, 41, 16, [&](int, int dt, int, int) {
    return std::pair{int(rng() % 11) - 5 + 2 * dt, int(rng() % 7) - 3 - dt};
  });
  NlmParams q = planar(2, 1, 3, true);
  q.causal = true;
  check(nv12, q, &f2, "NV12, motion, causal, Rt=1");
}

}  // namespace
}  // namespace cdn
