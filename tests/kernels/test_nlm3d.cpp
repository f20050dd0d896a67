// test_nlm3d.cpp: 3D non-local means on the CPU: the reference against a
// brute-force evaluation of the formula, chunk-border invariance, the ends of
// the stream, and quality on a real moving clip (the noise estimator: test_noise_level.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_denoiser.h"
#include "motion/motion_field.h"
#include "motion/motion_reference.h"
#include "nlm3d/nlm3d_guide.h"
#include "nlm3d/nlm3d_reference.h"
#include "nlm3d/nlm3d_window.h"
#include "test_support.h"

namespace cdn {
namespace {

// The formula of nlm3d_reference.h evaluated directly, voxel by voxel: distances
// on `win`, the average of `values` (the window itself when null); with motion,
// the window in frame t + dt centred on the vector of the pixel's cell.
double brute_force(const FrameWindow& win, int t, int x, int y, const NlmParams& p, double sigma,
                   const FrameWindow* values = nullptr, const NlmMotion* motion = nullptr) {
  const PlaneView& f0 = win.at(t);
  const int w = f0.width, h = f0.height, r = p.patch_radius;
  const bool cube = p.patch_shape == NlmPatchShape::Cube;
  auto X = [&](int xx, int yy, int tt) {
    const PlaneView& f = win.at(tt);  // clamps time to the stream
    return double(f.get(clamp_coord(xx, w), clamp_coord(yy, h)));
  };
  auto V = [&](int xx, int yy, int tt) { return values ? double(values->at(tt).get(xx, yy)) : X(xx, yy, tt); };
  const double h2 = 2.0 * p.beta * sigma * sigma * std::pow(2 * r + 1, cube ? 3 : 2);
  const double offset = p.distance_offset ? 2.0 * sigma * sigma * std::pow(2 * r + 1, cube ? 3 : 2) : 0.0;
  double num = 0, den = 0, wmax = 0;
  for (int dt = -p.temporal_radius; dt <= p.temporal_radius; ++dt) {
    int vx = 0, vy = 0;
    if (motion && dt != 0) {
      const NlmMotionField& m = motion->fields[dt + p.temporal_radius];
      const int cx = std::min(motion->fx * x / m.cell, m.cols - 1), cy = std::min(motion->fy * y / m.cell, m.rows - 1);
      const int mx = m.v[2 * (cy * m.cols + cx)], my = m.v[2 * (cy * m.cols + cx) + 1];
      // Halved, half away from zero, on a guide of 2 x 2 luma means.
      vx = motion->fx == 2 ? (mx >= 0 ? (mx + 1) / 2 : -((-mx + 1) / 2)) : mx;
      vy = motion->fy == 2 ? (my >= 0 ? (my + 1) / 2 : -((-my + 1) / 2)) : my;
    }
    const int R = dt == 0 || p.neighbour_search_radius < 0 ? p.search_radius : p.neighbour_search_radius;
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) {
        const int qx = x + vx + dx, qy = y + vy + dy, qt = t + dt;
        if ((dx == 0 && dy == 0 && dt == 0) || qx < 0 || qy < 0 || qx >= w || qy >= h || qt < 0 ||
            qt >= win.stream_length)
          continue;
        double d2 = 0;
        for (int kt = cube ? -r : 0; kt <= (cube ? r : 0); ++kt)
          for (int ky = -r; ky <= r; ++ky)
            for (int kx = -r; kx <= r; ++kx) {
              const double a = X(x + kx, y + ky, t + kt) - X(qx + kx, qy + ky, qt + kt);
              d2 += a * a;
            }
        const double wt = std::exp(-std::max(d2 - offset, 0.0) / h2);
        num += wt * V(qx, qy, qt);
        den += wt;
        wmax = std::max(wmax, wt);
      }
  }
  const double self = den > 0 ? std::max(wmax, p.self_weight_floor) : 1.0;
  return (num + self * V(x, y, t)) / (den + self);
}

std::vector<HostFrame> random_clip(int frames, int w, int h, std::uint64_t seed) {
  std::vector<HostFrame> clip;
  for (int i = 0; i < frames; ++i) {
    clip.emplace_back(PixelFormat::GRAY8, w, h);
    const PlaneView p = components(clip.back().view())[0];
    // Smooth moving content plus noise: weights then vary over the whole range.
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) p.set(x, y, 128 + int(60 * std::sin(0.3 * (x + i) + 0.2 * y)));
    add_gaussian_noise(p, 15.0, seed + i);
  }
  return clip;
}

TEST(Nlm3dReference, EqualsTheFormulaOnTinyVolumes) {
  for (int patch : {0, 1}) {
    NlmParams p = nlm_params(nlm_paper_params(), false);
    p.search_radius = 2;
    p.temporal_radius = 1;
    p.patch_radius = patch;
    p.beta = 0.7;
    const int frames = 4, w = 9, h = 7;
    auto clip = random_clip(frames, w, h, 11);
    FrameWindow win;
    win.stream_length = frames;
    for (auto& f : clip) win.frames.push_back(components(f.view())[0]);
    for (int t = 0; t < frames; ++t) {  // includes both ends of the stream
      const auto v = nlm3d_frame_values(win, t, p, 15.0, 1);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const double want = brute_force(win, t, x, y, p, 15.0);
          ASSERT_NEAR(v[y * w + x], want, 1e-9 * std::max(1.0, std::fabs(want))) << x << "," << y << "," << t;
        }
    }
  }
}

// self-weight-floor: the self weight is max(the papers' largest other weight,
// the floor). At sigma 3 on content with noise 15 most pixels' best candidate
// weighs less than the floor, so the floor's value changes the output.
TEST(Nlm3dReference, SelfWeightFloorEqualsTheFormula) {
  const int frames = 3, w = 9, h = 7;
  auto clip = random_clip(frames, w, h, 31);
  FrameWindow win;
  win.stream_length = frames;
  for (auto& f : clip) win.frames.push_back(components(f.view())[0]);
  NlmParams p = nlm_params(nlm_paper_params(), false);
  p.search_radius = 2;
  p.temporal_radius = 1;
  p.patch_radius = 2;
  p.patch_shape = NlmPatchShape::Planar;
  p.distance_offset = true;
  std::vector<std::vector<double>> outs;
  for (double floor : {0.0, 0.01, 0.5}) {
    p.self_weight_floor = floor;
    outs.push_back(nlm3d_frame_values(win, 1, p, 3.0, 1));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double want = brute_force(win, 1, x, y, p, 3.0);
        ASSERT_NEAR(outs.back()[y * w + x], want, 1e-9 * std::max(1.0, std::fabs(want))) << floor << " " << x << "," << y;
      }
  }
  EXPECT_NE(outs[0], outs[1]);
  EXPECT_NE(outs[1], outs[2]);
  EXPECT_EQ(nlm_paper_params().self_weight_floor, 0.0) << "the papers' rule";
  EXPECT_EQ(NlmParams{}.self_weight_floor, 0.01);
}

// 2D patches, without and with motion (vectors per cell, some pointing out of
// the frame), against the formula.
TEST(Nlm3dReference, TwoDimensionalPatchesAndMotionEqualTheFormula) {
  const int frames = 5, w = 13, h = 11, Rt = 2;
  auto clip = random_clip(frames, w, h, 21);
  FrameWindow win;
  win.stream_length = frames;
  for (auto& f : clip) win.frames.push_back(components(f.view())[0]);
  // Cells of 4 pixels: 4 x 3 cells, each (dt, cell) its own vector.
  std::vector<std::vector<std::int16_t>> store;
  std::vector<NlmMotionField> fields;
  for (int dt = -Rt; dt <= Rt; ++dt) {
    std::vector<std::int16_t> v;
    for (int c = 0; c < 12; ++c) {
      v.push_back(static_cast<std::int16_t>((c * 7 + 3 * dt) % 9 - 4));
      v.push_back(static_cast<std::int16_t>((c * 5 - dt) % 7 - 3));
    }
    store.push_back(v);
  }
  for (auto& v : store) fields.push_back({v.data(), 4, 3, 4});
  const NlmMotion motion{fields.data(), 1, 1};
  for (int patch : {0, 1, 2}) {
    NlmParams p = nlm_params(nlm_paper_params(), false);
    p.search_radius = 2;
    p.temporal_radius = Rt;
    p.patch_radius = patch;
    p.patch_shape = NlmPatchShape::Planar;
    p.beta = 0.5;
    for (bool with_motion : {false, true}) {
      p.motion_search = with_motion;
      p.distance_offset = with_motion;  // both forms of the weight
      p.neighbour_search_radius = with_motion ? 1 : -1;  // a smaller window in the other frames
      for (int t = 0; t < frames; ++t) {
        const auto v = nlm3d_frame_values(win, t, p, 15.0, 1, with_motion ? &motion : nullptr);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const double want = brute_force(win, t, x, y, p, 15.0, nullptr, with_motion ? &motion : nullptr);
            ASSERT_NEAR(v[y * w + x], want, 1e-9 * std::max(1.0, std::fabs(want)))
                << "r=" << patch << " motion=" << with_motion << " at " << x << "," << y << "," << t;
          }
      }
    }
  }
  // 2D patches need no frames beyond the temporal radius.
  NlmParams p = nlm_params(nlm_paper_params(), false);
  p.temporal_radius = 3;
  p.patch_radius = 2;
  EXPECT_EQ(p.reach(), 5);
  p.patch_shape = NlmPatchShape::Planar;
  EXPECT_EQ(p.reach(), 3);
  EXPECT_EQ(p.patch_samples(), 25);
}

TEST(Nlm3dReference, MotionSearchNeedsFieldsAndTwoDimensionalPatches) {
  auto clip = random_clip(3, 8, 8, 4);
  FrameWindow win;
  win.stream_length = 3;
  for (auto& f : clip) win.frames.push_back(components(f.view())[0]);
  NlmParams p = nlm_params(nlm_paper_params(), false);
  p.patch_shape = NlmPatchShape::Planar;
  p.motion_search = true;
  EXPECT_THROW(nlm3d_frame_values(win, 1, p, 10.0, 1), InvalidArgument);  // no fields
  p.patch_shape = NlmPatchShape::Cube;
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.nlm = p;
  EXPECT_THROW(validate(s), InvalidArgument);
  s.nlm.motion_search = false;
  s.nlm.patch_radius = 4;
  EXPECT_THROW(validate(s), InvalidArgument);  // cubes up to radius 3
  s.nlm.patch_shape = NlmPatchShape::Planar;
  EXPECT_NO_THROW(validate(s));
}

// Luma-derived chroma weights (nlm3d_guide.h): the guide of a 4:2:0 clip's
// chroma is the rounded 2x2 mean of the luma, and its weights average U and V.
TEST(Nlm3dReference, GuidedValuesEqualTheFormula) {
  NlmParams p = nlm_params(nlm_paper_params(), false);
  p.search_radius = 2;
  p.temporal_radius = 1;
  p.patch_radius = 1;
  const int frames = 4, w = 9, h = 7;
  std::vector<HostFrame> clip, guides;
  for (int i = 0; i < frames; ++i) {
    clip.emplace_back(PixelFormat::I420, w, h);
    const auto c = components(clip.back().view());
    for (int k = 0; k < 3; ++k)
      for (int y = 0; y < c[k].height; ++y)
        for (int x = 0; x < c[k].width; ++x) c[k].set(x, y, 128 + int(50 * std::sin(0.4 * (x + i) + 0.3 * y + k)));
    add_gaussian_noise(clip.back().view(), 12.0, 40 + i);
    guides.emplace_back(PixelFormat::GRAY16_LE, c[1].width, c[1].height);
    const PlaneView g = components(guides.back().view())[0];
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x) g.set(x, y, luma_guide_sample(c[0], x, y, 2, 2));
  }
  FrameWindow guide, u, v;
  for (FrameWindow* win : {&guide, &u, &v}) win->stream_length = frames;
  for (int i = 0; i < frames; ++i) {
    guide.frames.push_back(components(guides[i].view())[0]);
    u.frames.push_back(components(clip[i].view())[1]);
    v.frames.push_back(components(clip[i].view())[2]);
  }
  for (int t = 0; t < frames; ++t) {
    const auto got = nlm3d_guided_values(guide, {u, v}, t, p, 12.0, 1);
    ASSERT_EQ(got.size(), 2u);
    for (int y = 0; y < u.at(t).height; ++y)
      for (int x = 0; x < u.at(t).width; ++x)
        for (int k = 0; k < 2; ++k) {
          const double want = brute_force(guide, t, x, y, p, 12.0, k == 0 ? &u : &v);
          ASSERT_NEAR(got[k][y * u.at(t).width + x], want, 1e-9 * std::max(1.0, std::fabs(want)))
              << "component " << k + 1 << " at " << x << "," << y << "," << t;
        }
  }
}

TEST(Nlm3dGuide, LumaGuideIsTheRoundedBlockMean) {
  HostFrame f(PixelFormat::GRAY8, 3, 3);  // odd: the last block clamps to the last column and row
  const PlaneView l = components(f.view())[0];
  const int v[3][3] = {{10, 11, 50}, {12, 14, 60}, {200, 201, 255}};
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) l.set(x, y, v[y][x]);
  EXPECT_EQ(luma_guide_sample(l, 0, 0, 2, 2), 12);   // 47 / 4 = 11.75
  EXPECT_EQ(luma_guide_sample(l, 1, 0, 2, 2), 55);   // (50 + 50 + 60 + 60) / 4
  EXPECT_EQ(luma_guide_sample(l, 0, 1, 2, 2), 201);  // (200 + 201 + 200 + 201) / 4 = 200.5, half up
  EXPECT_EQ(luma_guide_sample(l, 1, 1, 2, 2), 255);
  EXPECT_EQ(luma_guide_sample(l, 2, 1, 1, 1), 60);   // 4:4:4: the luma itself
  EXPECT_EQ(luma_guide_sample(l, 0, 0, 2, 1), 11);   // 2 x 1: (10 + 11) / 2 = 10.5, half up
}

TEST(Nlm3dGuide, PassesPerFormat) {
  auto shape = [](PixelFormat f, int filtered) {
    std::string s;
    for (const NlmPass& p : nlm_passes(f, filtered)) {
      s += std::to_string(p.fx) + "x" + std::to_string(p.fy) + ":";
      for (int v : p.values) s += std::to_string(v);
      s += " ";
    }
    return s;
  };
  EXPECT_EQ(shape(PixelFormat::GRAY8, 1), "1x1:0 ");
  EXPECT_EQ(shape(PixelFormat::NV12, 1), "1x1:0 ");
  EXPECT_EQ(shape(PixelFormat::NV12, 3), "1x1:0 2x2:12 ");
  EXPECT_EQ(shape(PixelFormat::I420, 3), "1x1:0 2x2:12 ");
  EXPECT_EQ(shape(PixelFormat::P010_10LE, 3), "1x1:0 2x2:12 ");
  EXPECT_EQ(shape(PixelFormat::Y444, 3), "1x1:012 ");
}

// Streams a clip through a StreamDenoiser (feed, then drain), checking the
// window's bound after every frame, and returns the outputs.
std::vector<HostFrame> run_stream(StreamDenoiser& d, const std::vector<HostFrame>& clip) {
  return test::run_clip(d, clip, [&] {
    EXPECT_LE(d.held(), d.settings().nlm.chunk_size + d.settings().nlm.reach());
  });
}

bool same_frames(const std::vector<HostFrame>& a, const std::vector<HostFrame>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const PlaneView pa = components(a[i].view())[0], pb = components(b[i].view())[0];
    for (int y = 0; y < pa.height; ++y)
      for (int x = 0; x < pa.width; ++x)
        if (pa.get(x, y) != pb.get(x, y)) return false;
  }
  return true;
}

DenoiseSettings small_nlm(int chunk) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.nlm = nlm_paper_params();  // cubes of radius 1 (the latencies below count their frames)
  s.nlm.search_radius = 2;
  s.nlm.temporal_radius = 2;
  s.sigma = 15;
  s.nlm.chunk_size = chunk;
  return s;
}

TEST(Nlm3dStream, OutputDoesNotDependOnChunkBorders) {
  const auto clip = random_clip(120, 24, 16, 5);
  auto whole = StreamDenoiser::create(Backend::Cpu, small_nlm(120), PixelFormat::GRAY8, 24, 16);
  auto chunked = StreamDenoiser::create(Backend::Cpu, small_nlm(50), PixelFormat::GRAY8, 24, 16);
  auto single = StreamDenoiser::create(Backend::Cpu, small_nlm(1), PixelFormat::GRAY8, 24, 16);
  const auto a = run_stream(*whole, clip), b = run_stream(*chunked, clip), c = run_stream(*single, clip);
  ASSERT_EQ(a.size(), 120u);
  EXPECT_TRUE(same_frames(a, b));
  EXPECT_TRUE(same_frames(a, c));
}

// The defaults: 2D patches with motion-search, the fields estimated by the
// stream from the window (motion_reference.h). Each output frame equals the
// reference given the fields of its own frame pairs, whatever the chunks; the
// causal window reads only past frames, so each frame comes out at its push.
DenoiseSettings video_nlm(int chunk, bool causal = false) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;  // NlmSettings{}, the defaults
  s.sigma = 15;
  s.nlm.chunk_size = chunk;
  if (causal) s.window = TemporalWindow::Causal;
  return s;
}

TEST(Nlm3dStream, DefaultsWithStreamMotionEqualTheReference) {
  const int frames = 9, w = 40, h = 34;
  const auto clip = random_clip(frames, w, h, 15);  // moves 1 px per frame
  for (bool causal : {false, true}) {
    auto whole = StreamDenoiser::create(Backend::Cpu, video_nlm(frames, causal), PixelFormat::GRAY8, w, h);
    auto chunked = StreamDenoiser::create(Backend::Cpu, video_nlm(4, causal), PixelFormat::GRAY8, w, h);
    const auto a = run_stream(*whole, clip), b = run_stream(*chunked, clip);
    ASSERT_EQ(a.size(), std::size_t(frames));
    EXPECT_TRUE(same_frames(a, b)) << "causal=" << causal;
    EXPECT_EQ(whole->latency_frames(), causal ? 0 : frames - 1 + NlmParams{}.reach()) << "causal=" << causal;
    // The reference, with the fields of block matching between the frames.
    FrameWindow win;
    win.stream_length = frames;
    for (auto& f : clip) win.frames.push_back(components(f.view())[0]);
    const MotionParams mp = nlm3d_motion_params();
    std::vector<LumaPyramid> pyr;
    for (auto& f : clip) pyr.push_back(build_pyramid(components(f.view())[0], mp));
    const NlmParams p = nlm_params(video_nlm(1, causal).nlm, causal);
    int moved = 0;
    for (int t = 0; t < frames; ++t) {
      std::vector<MotionField> fields(2 * p.temporal_radius + 1);
      std::vector<NlmMotionField> views;
      for (int dt = -p.temporal_radius; dt <= p.temporal_radius; ++dt) {
        if (dt != 0 && t + dt >= 0 && t + dt < frames) fields[dt + p.temporal_radius] = estimate_motion(pyr[t], pyr[t + dt], mp);
        const MotionField& f = fields[dt + p.temporal_radius];
        for (const MotionVector& v : f.v) moved += v.dx != 0;
        views.push_back({reinterpret_cast<const std::int16_t*>(f.v.data()), f.cols, f.rows, f.cell});
      }
      const NlmMotion motion{views.data(), 1, 1};
      HostFrame want(PixelFormat::GRAY8, w, h);
      nlm3d_frame_reference(win, t, components(want.view())[0], p, 15.0, 1, &motion);
      const PlaneView x = components(a[t].view())[0], y = components(want.view())[0];
      for (int r = 0; r < h; ++r)
        for (int q = 0; q < w; ++q) ASSERT_EQ(x.get(q, r), y.get(q, r)) << "causal=" << causal << " t=" << t;
    }
    EXPECT_GT(moved, 0) << "the fields follow the content";
  }
}

// Issue 13 item 10: the CPU temporal path stops when its cancel flag is set,
// between bands of rows, with Cancelled (the element's flush and state change,
// the transcode tool's Ctrl-C); after a reset the stream works again.
TEST(Nlm3dStream, CpuFilterIsCancellable) {
  const int w = 96, h = 64;
  const auto clip = random_clip(3, w, h, 17);
  std::atomic<bool> cancel{true};
  for (bool causal : {true, false}) {
    auto d = StreamDenoiser::create(Backend::Cpu, video_nlm(1, causal), PixelFormat::GRAY8, w, h);
    d->set_cancel_flag(&cancel);
    cancel = true;
    EXPECT_THROW(
        {
          for (const auto& f : clip) d->push(f.view());
          d->finish();
          HostFrame out(PixelFormat::GRAY8, w, h);
          while (d->pop(out.view())) {
          }
        },
        Cancelled)
        << "causal=" << causal;
    cancel = false;
    d->reset();
    const auto out = run_stream(*d, clip);
    EXPECT_EQ(out.size(), clip.size());
  }
}

TEST(Nlm3dStream, EveryFrameComesOutOnceInOrderWithShortStreams) {
  for (int frames : {1, 2, 3, 7}) {  // 1 frame, and streams shorter than the temporal reach
    const auto clip = random_clip(frames, 16, 12, 9);
    auto d = StreamDenoiser::create(Backend::Cpu, small_nlm(50), PixelFormat::GRAY8, 16, 12);
    const auto out = run_stream(*d, clip);
    ASSERT_EQ(out.size(), std::size_t(frames));
    // Each output equals the reference on the whole (short) stream.
    FrameWindow win;
    win.stream_length = frames;
    for (auto& f : clip) win.frames.push_back(components(f.view())[0]);
    for (int t = 0; t < frames; ++t) {
      HostFrame want(PixelFormat::GRAY8, 16, 12);
      nlm3d_frame_reference(win, t, components(want.view())[0], nlm_params(small_nlm(50).nlm, false), 15.0, 1);
      const PlaneView a = components(out[t].view())[0], b = components(want.view())[0];
      for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 16; ++x) ASSERT_EQ(a.get(x, y), b.get(x, y)) << "frames=" << frames << " t=" << t;
    }
  }
}

// Issue 33 item 9: frames smaller than the 9x9 patch, clean (sigma 0.5, the
// estimator's floor), must come out nearly as they went in (45 dB or more, as the
// other modes). With the papers' self weight alone (self-weight-floor 0) a pixel
// that no candidate matches weighs as much as its best (still hopeless) candidate
// and moves halfway to it: the content's steps of 7 to 31 code values.
TEST(Nlm3dStream, FramesSmallerThanThePatchAreKeptAtLowSigma) {
  auto content = [](int x, int y, int k) {
    switch (k) {
      case 0: return 100 + 4 * ((x + 2 * y) % 5);
      case 1: return 200 - 17 * ((2 * x + y) % 4);
      default: return 90 + 31 * ((x * y + x) % 3);
    }
  };
  std::vector<std::pair<int, int>> sizes;
  for (int w = 1; w <= 8; ++w)
    for (int h = 1; h <= 8; ++h) sizes.push_back({w, h});
  for (auto wh : {std::pair{3, 5}, {2, 17}, {17, 2}, {1, 30}, {30, 1}, {8, 40}}) sizes.push_back(wh);
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::Y444})
    for (int frames : {1, 3})  // one image (as cudadenoise-image), and a short static clip (motion, confidence)
      for (auto [w, h] : sizes) {
        std::vector<HostFrame> clip;
        for (int i = 0; i < frames; ++i) {
          clip.emplace_back(f, w, h);
          const auto c = components(clip.back().view());
          for (std::size_t k = 0; k < c.size(); ++k)
            for (int y = 0; y < h; ++y)
              for (int x = 0; x < w; ++x) c[k].set(x, y, content(x, y, int(k)));
        }
        DenoiseSettings s;
        s.mode = Mode::Nlm3d;  // the defaults, NlmParams{}
        s.sigma = 0.5;
        auto d = StreamDenoiser::create(Backend::Cpu, s, f, w, h);
        const auto out = run_stream(*d, clip);
        ASSERT_EQ(out.size(), clip.size());
        for (int i = 0; i < frames; ++i) {
          const auto a = components(out[i].view()), b = components(clip[i].view());
          for (std::size_t k = 0; k < a.size(); ++k)
            EXPECT_GE(psnr(a[k], b[k]), 45.0) << format_name(f) << " " << w << "x" << h << " x " << frames
                                              << " frames, frame " << i << " component " << k;
        }
      }
}

// Chroma weights come from the luma: over a flat luma every weight is 1, so the
// chroma comes out as the plain mean of its search cube (rounded half up),
// whatever its own structure; the flat luma stays flat.
TEST(Nlm3dStream, FlatLumaMakesChromaThePlainMeanOfItsSearchCube) {
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::Y444}) {
    const int frames = 5, w = 14, h = 10;
    std::vector<HostFrame> clip;
    for (int i = 0; i < frames; ++i) {
      clip.emplace_back(f, w, h);
      const auto c = components(clip.back().view());
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) c[0].set(x, y, 90);
      for (int k = 1; k < 3; ++k) {
        for (int y = 0; y < c[k].height; ++y)
          for (int x = 0; x < c[k].width; ++x) c[k].set(x, y, x < c[k].width / 2 ? 40 : 200);  // a step edge
        add_gaussian_noise(c[k], 10.0, 60 + 3 * i + k);
      }
    }
    const DenoiseSettings s = small_nlm(3);
    auto d = StreamDenoiser::create(Backend::Cpu, s, f, w, h);
    const auto out = run_stream(*d, clip);
    ASSERT_EQ(out.size(), std::size_t(frames));
    const int R = s.nlm.search_radius, Rt = s.nlm.temporal_radius;
    for (int t = 0; t < frames; ++t) {
      const auto o = components(out[t].view());
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) ASSERT_EQ(o[0].get(x, y), 90);
      for (int k = 1; k < 3; ++k)
        for (int y = 0; y < o[k].height; ++y)
          for (int x = 0; x < o[k].width; ++x) {
            long sum = 0, n = 0;
            for (int u = std::max(0, t - Rt); u <= std::min(frames - 1, t + Rt); ++u)
              for (int qy = std::max(0, y - R); qy <= std::min(o[k].height - 1, y + R); ++qy)
                for (int qx = std::max(0, x - R); qx <= std::min(o[k].width - 1, x + R); ++qx, ++n)
                  sum += components(clip[u].view())[k].get(qx, qy);
            ASSERT_EQ(o[k].get(x, y), int(std::floor(double(sum) / n + 0.5)))
                << format_name(f) << " frame " << t << " component " << k << " at " << x << "," << y;
          }
    }
  }
}

TEST(Nlm3dStream, LatencyAndResetAndBadFrames) {
  auto d = StreamDenoiser::create(Backend::Cpu, small_nlm(4), PixelFormat::GRAY8, 16, 12);
  EXPECT_EQ(d->latency_frames(), 4 - 1 + 3);  // chunk - 1 + temporal radius + patch radius
  EXPECT_EQ(StreamDenoiser::latency_frames_for(small_nlm(4)), d->latency_frames());
  EXPECT_EQ(StreamDenoiser::latency_frames_for(DenoiseSettings()), 0);  // per-frame modes hold nothing
  const auto clip = random_clip(6, 16, 12, 3);
  HostFrame out(PixelFormat::GRAY8, 16, 12);
  for (int i = 0; i < 6; ++i) {
    d->push(clip[i].view());
    EXPECT_FALSE(d->ready());
    EXPECT_FALSE(d->pop(out.view())) << "no frame before chunk + reach frames are in";
  }
  d->push(clip[0].view());
  EXPECT_TRUE(d->ready());
  EXPECT_TRUE(d->pop(out.view()));
  d->reset();
  EXPECT_EQ(d->held(), 0);
  EXPECT_FALSE(d->pop(out.view()));
  HostFrame wrong(PixelFormat::GRAY8, 15, 12);
  EXPECT_THROW(d->push(wrong.view()), InvalidArgument);
  HostFrame one(PixelFormat::GRAY8, 16, 12), two(PixelFormat::GRAY8, 16, 12);
  EXPECT_FALSE(d->per_frame());
  EXPECT_THROW(d->process(one.view(), two.view()), InvalidArgument);  // a window: push() and pop()
}

}  // namespace
}  // namespace cdn
