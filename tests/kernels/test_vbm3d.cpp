// test_vbm3d.cpp: the video mode's CPU reference (vbm3d_reference.h) on clips
// made from real photos (a camera still or moving over them, AWGN of fixed
// seeds): the predictive search follows a known motion; a static clip is
// denoised much better than by per-frame bm3d; a fast-moving clip better with
// motion guidance than without; the output of a frame depends only on its
// window (longer or shorter surrounding sequences, chunks, threads: identical
// samples); formats agree (gray, NV12, I420, 10- and 16-bit); a component with
// sigma 0 is copied; the group aggregation (every member into its own frame)
// depends on its doubled window only and gains over the frame one; the Wiener
// phase's motion on the basic estimate moves that phase alone; the hard
// phase's threshold floor follows the noise and gains at high sigma. Small crops and short clips keep it fast enough for CI.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bm3d/bm3d_reference.h"
#include "cudadenoise/error.h"
#include "cudadenoise/metrics.h"
#include "vbm3d/vbm3d_reference.h"
#include "test_support.h"
#include "video_support.h"

namespace cdn {
namespace {

// Filters window frames [out_begin, out_end) of `clip`'s noisy frames [first,
// last]; sigma in 8-bit units (scaled to each component's depth).
std::vector<HostFrame> filter(const test::TestClip& clip, int first, int last, int out_begin, int out_end,
                              const Vbm3dParams& p, double sigma, int threads = 0) {
  std::vector<FrameView> window;
  for (int f = first; f <= last; ++f) window.push_back(clip.noisy[f].view());
  std::vector<HostFrame> outs;
  std::vector<FrameView> views;
  const FrameView& v = clip.noisy[0].view();
  for (int f = out_begin; f < out_end; ++f) {
    outs.emplace_back(v.format, v.width, v.height);
    views.push_back(outs.back().view());
  }
  const int nc = format_info(v.format).components;
  const double scaled = sigma * (1 << (format_info(v.format).bit_depth - 8));
  vbm3d_reference(window, out_begin - first, out_end - first, views, nc, p, std::vector<double>(nc, scaled), threads);
  return outs;
}

double luma_psnr(const FrameView& a, const FrameView& b) { return psnr(components(a)[0], components(b)[0]); }

// Luma PSNR of frame 4 of a 9-frame clip, filtered with the whole clip as its window.
double frame4_psnr(const test::TestClip& clip, const Vbm3dParams& p, double sigma) {
  return luma_psnr(filter(clip, 0, 8, 4, 5, p, sigma)[0].view(), clip.clean[4].view());
}

double bm3d_luma_psnr(const test::TestClip& clip, int t, double sigma) {
  const FrameView& v = clip.noisy[t].view();
  HostFrame out(PixelFormat::GRAY8, v.width, v.height);
  bm3d::bm3d_reference({components(v)[0]}, {components(out.view())[0]}, 1, Bm3dSettings{}, {sigma});
  return psnr(components(out.view())[0], components(clip.clean[t].view())[0]);
}

// A cheaper configuration for the structural tests (radius 2 in both phases).
Vbm3dParams small_params() {
  Vbm3dParams p = vbm3d_quality_profile();
  p.hard.radius = 2;
  p.wiener.radius = 2;
  return p;
}

TEST(Vbm3d, PredictiveSearchFollowsTheMotion) {
  // A clean clip moving (9, -5) pixels a frame: farther per frame than the
  // predictive window reaches. With motion, every member found in another frame
  // of a textured reference is its exact copy there (distance 0).
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 150, 150, 128, 96, 5, 9, -5, 0, 1);
  std::vector<bm3d::FloatPlane> planes;
  for (const HostFrame& f : clip.clean) planes.push_back(bm3d::load_plane(components(f.view())[0]));
  std::vector<PlaneView> lumas;
  for (const HostFrame& f : clip.clean) lumas.push_back(components(f.view())[0]);
  const vbm3d::WindowMotion motion = vbm3d::estimate_window_motion(lumas, MotionParams{});
  vbm3d::SearchSpace s;
  for (const auto& p : planes) s.guide.push_back(&p);
  for (std::size_t i = 0; i + 1 < planes.size(); ++i) {
    s.forward.push_back(&motion.forward[i]);
    s.backward.push_back(&motion.backward[i]);
  }
  Vbm3dParams params = vbm3d_quality_profile();
  params.hard.radius = 2;
  params.hard.per_frame = 1;
  params.hard.tau = 1e5;
  params.hard.group = 16;  // room for every other frame's member (the profile's 8 with one of frame t: 4 in all)
  params.hard.own_frame = 32;
  for (bool guided : {true, false}) {
    params.motion = guided;
    const vbm3d::PhaseSetup ps = vbm3d::phase_setup(params, false, 8, 20);
    int exact = 0, other = 0;
    // The camera moves (9, -5): content at (x, y) of frame 2 is at (x - 9 k, y + 5 k) in frame 2 + k.
    for (int ry = 30; ry <= 50; ry += 10)
      for (int rx = 40; rx <= 70; rx += 10) {
        const std::vector<vbm3d::Member> g = vbm3d::match_group(s, 2, 0, 4, rx, ry, ps);
        for (const vbm3d::Member& m : g) {
          if (m.frame == 2) continue;
          ++other;
          const int k = m.frame - 2;
          exact += m.x == rx - 9 * k && m.y == ry + 5 * k && m.d == 0;
        }
      }
    std::printf("motion %s: %d of %d members in other frames at the exact position\n", guided ? "on" : "off", exact,
                other);
    if (guided) {
      EXPECT_EQ(other, 12 * 4);  // one per other frame (per_frame 1), for each of the 12 references
      EXPECT_EQ(exact, other);
    } else {
      EXPECT_LT(exact, 12 * 4 / 2);  // without motion the windows (2 pixels) miss a 9-pixel step
    }
  }
}

TEST(Vbm3d, StaticClipBeatsPerFrameBm3d) {
  // A still camera (a static scene, independent noise per frame): 9 frames,
  // so frame 4 has its full windows in both phases.
  const double sigma = 25;
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 200, 60, 96, 80, 9, 0, 0, sigma, 100);
  const std::vector<HostFrame> out = filter(clip, 0, 8, 4, 5, vbm3d_quality_profile(), sigma);
  const double v = luma_psnr(out[0].view(), clip.clean[4].view()), b = bm3d_luma_psnr(clip, 4, sigma);
  std::printf("static clip, sigma %g: bm3d %.2f dB, vbm3d %.2f dB (%+.2f)\n", sigma, b, v, v - b);
  EXPECT_GT(v, b + 1.5);
}

TEST(Vbm3d, MotionGuidanceHelpsOnFastMotion) {
  // A camera moving (7, 3) pixels a frame over a real photo.
  const double sigma = 20;
  const HostFrame photo = test::load_photo_444("coffee.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 100, 100, 96, 80, 9, 7, 3, sigma, 200);
  Vbm3dParams p = vbm3d_quality_profile();
  const double guided = frame4_psnr(clip, p, sigma);
  p.motion = false;
  const double plain = frame4_psnr(clip, p, sigma);
  const double b = bm3d_luma_psnr(clip, 4, sigma);
  std::printf("moving (7, 3)/frame, sigma %g: bm3d %.2f dB, vbm3d without motion %.2f dB, with %.2f dB\n", sigma, b,
              plain, guided);
  EXPECT_GT(guided, plain + 0.5);
  EXPECT_GT(guided, b + 0.5);
}

// Vbm3dParams::motion_on_basic (the default): the Wiener phase follows fields
// estimated on the basic estimates. The basic estimates are the noisy fields'
// (the hard phase is untouched), the final estimate moves; with one phase
// nothing moves.
TEST(Vbm3d, MotionOnTheBasicEstimateMovesOnlyTheWienerPhase) {
  const double sigma = 30;
  const HostFrame photo = test::load_photo_444("coffee.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 100, 100, 96, 80, 9, 7, 3, sigma, 200);
  std::vector<std::vector<PlaneView>> noisy;
  for (const HostFrame& f : clip.noisy) noisy.push_back({components(f.view())[0]});
  Vbm3dParams on = vbm3d_quality_profile();
  ASSERT_TRUE(on.motion && on.motion_on_basic);
  Vbm3dParams off = on;
  off.motion_on_basic = false;
  const vbm3d::WindowEstimates a = vbm3d::vbm3d_estimates(noisy, 4, 5, on, {sigma});
  const vbm3d::WindowEstimates b = vbm3d::vbm3d_estimates(noisy, 4, 5, off, {sigma});
  EXPECT_EQ(a.basic[0][0].v, b.basic[0][0].v) << "the hard phase changed";
  std::size_t moved = 0;
  for (std::size_t i = 0; i < a.final[0][0].v.size(); ++i) moved += a.final[0][0].v[i] != b.final[0][0].v[i];
  EXPECT_GT(moved, 0u) << "the Wiener phase did not follow other fields";
  std::printf("motion on the basic estimate: %zu of %zu final samples moved\n", moved, a.final[0][0].v.size());
  on.phases = off.phases = 1;
  EXPECT_EQ(vbm3d::vbm3d_estimates(noisy, 4, 5, on, {sigma}).final[0][0].v,
            vbm3d::vbm3d_estimates(noisy, 4, 5, off, {sigma}).final[0][0].v);
}

// Vbm3dParams::hard_tau_noise: the hard phase's threshold is at least 1.25 x
// 2 sigma^2 of its guide (per sample, x 64 for the patch), in the guide's code
// values; nothing below sigma 31 (tau 2500), nothing in the Wiener phase or
// the paper's profile.
TEST(Vbm3d, HardThresholdFloorFollowsTheGuidesNoise) {
  const Vbm3dParams q = vbm3d_quality_profile();
  EXPECT_FLOAT_EQ(vbm3d::phase_setup(q, false, 8, 20).tau_ssd, 2500.f * 64);
  EXPECT_FLOAT_EQ(vbm3d::phase_setup(q, false, 8, 31).tau_ssd, 2500.f * 64);
  EXPECT_FLOAT_EQ(vbm3d::phase_setup(q, false, 8, 40).tau_ssd, 4000.f * 64);
  EXPECT_FLOAT_EQ(vbm3d::phase_setup(q, false, 10, 160).tau_ssd, 4000.f * 64 * 16) << "10 bits: code values";
  EXPECT_FLOAT_EQ(vbm3d::phase_setup(q, true, 8, 40).tau_ssd, 400.f * 64) << "the Wiener phase";
  EXPECT_FLOAT_EQ(vbm3d::phase_setup(vbm3d_paper_profile(), false, 8, 40).tau_ssd, 3000.f * 64) << "the paper's";
  HostFrame nv12(PixelFormat::NV12, 64, 48);
  const std::vector<PlaneView> c = components(nv12.view());
  EXPECT_DOUBLE_EQ(vbm3d::guide_sigma(40, c[0], c[0].width, c[0].height), 40);
  EXPECT_DOUBLE_EQ(vbm3d::guide_sigma(40, c[0], c[1].width, c[1].height), 20) << "the 2x2 means of 4:2:0 chroma";
}

// At sigma 45 two noisy views of one patch are 2 sigma^2 = 4050 apart on
// average, past the hard phase's tau of 2500: without the floor the groups lose
// their true matches.
TEST(Vbm3d, HardThresholdFloorGainsAtHighSigma) {
  const double sigma = 45;
  const HostFrame photo = test::load_photo_444("coffee.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 100, 100, 96, 80, 9, 2, 1, sigma, 400);
  Vbm3dParams p = vbm3d_quality_profile();
  const double floored = frame4_psnr(clip, p, sigma);
  p.hard_tau_noise = 0;
  const double plain = frame4_psnr(clip, p, sigma);
  std::printf("sigma %g: hard threshold tau alone %.2f dB, with the noise floor %.2f dB\n", sigma, plain, floored);
  EXPECT_GT(floored, plain + 0.3);
}

TEST(Vbm3d, MotionSettingChoosesTheFields) {
  Vbm3dSettings s;
  EXPECT_TRUE(vbm3d_params(s, false).motion_on_basic) << "the quality profile's";
  s.motion = 1;
  EXPECT_TRUE(vbm3d_params(s, false).motion);
  EXPECT_FALSE(vbm3d_params(s, false).motion_on_basic);
  s.motion = 2;
  EXPECT_TRUE(vbm3d_params(s, false).motion);
  EXPECT_TRUE(vbm3d_params(s, false).motion_on_basic);
  s.motion = 0;
  EXPECT_FALSE(vbm3d_params(s, false).motion);
  s = Vbm3dSettings{};
  s.profile = static_cast<int>(Vbm3dProfile::Paper);
  EXPECT_FALSE(vbm3d_params(s, false).motion);
  EXPECT_FALSE(vbm3d_params(s, false).motion_on_basic);
}

// Frame t = reach + 2 of a clip of 2 reach + 4 frames moving (2, 1) pixels a
// frame depends on frames t - reach .. t + reach and on nothing else: its window
// alone, the whole clip, a chunk of three frames (and its first frame from its
// own window), threads; frame 1 from frames 0 .. 1 + reach; a frame just outside
// the window changed changes nothing, one just inside does. Returns frame t.
HostFrame expect_output_depends_only_on_window(const Vbm3dParams& p, int reach) {
  const double sigma = 20;
  const int t = reach + 2, n = 2 * reach + 4;
  const HostFrame photo = test::load_photo_444("coffee.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 60, 80, 48, 40, n, 2, 1, sigma, 300);
  EXPECT_EQ(p.reach(), reach);
  HostFrame exact = std::move(filter(clip, t - reach, t + reach, t, t + 1, p, sigma)[0]);
  EXPECT_TRUE(test::same_samples(exact.view(), filter(clip, 0, n - 1, t, t + 1, p, sigma)[0].view()));
  const std::vector<HostFrame> chunk = filter(clip, t - 1 - reach, n - 1, t - 1, t + 2, p, sigma);
  EXPECT_TRUE(test::same_samples(exact.view(), chunk[1].view()));
  EXPECT_TRUE(test::same_samples(chunk[0].view(), filter(clip, t - 1 - reach, t - 1 + reach, t - 1, t, p, sigma)[0].view()));
  EXPECT_TRUE(test::same_samples(filter(clip, 0, 1 + reach, 1, 2, p, sigma)[0].view(),
                           filter(clip, 0, n - 1, 1, 2, p, sigma)[0].view()));
  EXPECT_TRUE(test::same_samples(exact.view(), filter(clip, t - reach, t + reach, t, t + 1, p, sigma, 1)[0].view()));
  test::TestClip changed = test::moving_clip(photo, PixelFormat::GRAY8, 60, 80, 48, 40, n, 2, 1, sigma, 300);
  add_gaussian_noise(changed.noisy[t + reach + 1].view(), 30, 9);
  EXPECT_TRUE(test::same_samples(exact.view(), filter(changed, 0, n - 1, t, t + 1, p, sigma)[0].view()));
  add_gaussian_noise(changed.noisy[t + reach].view(), 30, 9);
  EXPECT_FALSE(test::same_samples(exact.view(), filter(changed, 0, n - 1, t, t + 1, p, sigma)[0].view()));
  return exact;
}

TEST(Vbm3d, OutputDependsOnlyOnTheWindow) {
  Vbm3dParams p = small_params();
  p.aggregation = Vbm3dAggregation::Frame;  // the group aggregation's own test follows
  expect_output_depends_only_on_window(p, 4);
}

TEST(Vbm3d, GroupAggregationDependsOnlyOnItsDoubledWindow) {
  // Every member into its own frame: frame t also gathers the groups of frames
  // t - R .. t + R, so its reach is twice R1 + R2, and still nothing else.
  Vbm3dParams p = small_params();
  p.aggregation = Vbm3dAggregation::Group;
  const HostFrame exact = expect_output_depends_only_on_window(p, 8);
  // Not the same as the frame aggregation's (frame 10 from its window 6 .. 14).
  const double sigma = 20;
  const test::TestClip clip =
      test::moving_clip(test::load_photo_444("coffee.png"), PixelFormat::GRAY8, 60, 80, 48, 40, 20, 2, 1, sigma, 300);
  Vbm3dParams frame = p;
  frame.aggregation = Vbm3dAggregation::Frame;
  EXPECT_FALSE(test::same_samples(exact.view(), filter(clip, 6, 14, 10, 11, frame, sigma)[0].view()));
  // Not with the causal window.
  p.causal = true;
  EXPECT_THROW(validate(p), InvalidArgument);
}

TEST(Vbm3d, GroupAggregationGainsOnAMovingClip) {
  // A camera moving (2, 1) pixels a frame over a real photo, sigma 20: the
  // groups of the neighbouring frames add their estimates of frame 8.
  const double sigma = 20;
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 150, 60, 96, 80, 17, 2, 1, sigma, 400);
  Vbm3dParams p = small_params();
  p.aggregation = Vbm3dAggregation::Frame;
  const double frame = luma_psnr(filter(clip, 4, 12, 8, 9, p, sigma)[0].view(), clip.clean[8].view());
  p.aggregation = Vbm3dAggregation::Group;
  const double group = luma_psnr(filter(clip, 0, 16, 8, 9, p, sigma)[0].view(), clip.clean[8].view());
  std::printf("moving (2, 1)/frame, sigma %g, radius 2: frame aggregation %.2f dB, group %.2f dB (%+.2f)\n", sigma,
              frame, group, group - frame);
  EXPECT_GT(group, frame + 0.3);  // +0.64 measured
}

TEST(Vbm3d, ColourFormatsAgree) {
  // NV12 and I420 hold the same samples: identical output. GRAY8 gets NV12's
  // luma (matching runs on luma only). Chroma is denoised.
  const double sigma = 20;
  const HostFrame photo = test::load_photo_444("coffee.png");
  const Vbm3dParams p = small_params();
  const test::TestClip nv12 = test::moving_clip(photo, PixelFormat::NV12, 120, 90, 64, 48, 5, 3, -2, 0, 0);
  test::TestClip i420 = test::moving_clip(photo, PixelFormat::I420, 120, 90, 64, 48, 5, 3, -2, 0, 0);
  test::TestClip gray = test::moving_clip(photo, PixelFormat::GRAY8, 120, 90, 64, 48, 5, 3, -2, 0, 0);
  test::TestClip noisy_nv12 = test::moving_clip(photo, PixelFormat::NV12, 120, 90, 64, 48, 5, 3, -2, 0, 0);
  for (int f = 0; f < 5; ++f) {
    add_gaussian_noise(noisy_nv12.noisy[f].view(), sigma, 40 + f);
    const auto src = components(noisy_nv12.noisy[f].view());
    const auto di = components(i420.noisy[f].view()), dg = components(gray.noisy[f].view());
    for (std::size_t c = 0; c < src.size(); ++c)
      for (int y = 0; y < src[c].height; ++y)
        for (int x = 0; x < src[c].width; ++x) {
          di[c].set(x, y, src[c].get(x, y));
          if (c == 0) dg[c].set(x, y, src[c].get(x, y));
        }
  }
  const HostFrame a = std::move(filter(noisy_nv12, 0, 4, 2, 3, p, sigma)[0]);
  const HostFrame b = std::move(filter(i420, 0, 4, 2, 3, p, sigma)[0]);
  const HostFrame g = std::move(filter(gray, 0, 4, 2, 3, p, sigma)[0]);
  EXPECT_TRUE(test::same_samples(a.view(), b.view()));
  const auto ca = components(a.view()), cg = components(g.view()), cc = components(nv12.clean[2].view()),
             cn = components(noisy_nv12.noisy[2].view());
  EXPECT_EQ(mse(ca[0], cg[0]), 0.0);
  for (int c = 0; c < 3; ++c) {
    std::printf("NV12 component %d: noisy %.2f dB, vbm3d %.2f dB\n", c, psnr(cn[c], cc[c]), psnr(ca[c], cc[c]));
    EXPECT_GT(psnr(ca[c], cc[c]), psnr(cn[c], cc[c]) + 5) << "component " << c;
  }
}

TEST(Vbm3d, DeepFormatsAgreeWithEightBit) {
  // The same content at 10 bits (P010, values << 2) and 16 bits (GRAY16, * 257),
  // sigma scaled alike: the same quality as 8-bit within 0.1 dB. 96x64 frames:
  // at 64x48 the 10-bit frame came out 0.1004 dB over the 8-bit one with the
  // quality profile of steps 6 / 4 (one frame of few groups), at 96x64 within 0.02.
  const double sigma = 20;
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const Vbm3dParams p = small_params();
  double ref = 0;
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::GRAY8, PixelFormat::GRAY16_LE}) {
    const test::TestClip clip = test::moving_clip(photo, f, 200, 100, 96, 64, 5, 2, 2, sigma, 500);
    const HostFrame out = std::move(filter(clip, 0, 4, 2, 3, p, sigma)[0]);
    const double q = luma_psnr(out.view(), clip.clean[2].view());
    std::printf("%-10s luma %.2f dB (noisy %.2f)\n", format_name(f), q,
                luma_psnr(clip.noisy[2].view(), clip.clean[2].view()));
    if (f == PixelFormat::NV12 || f == PixelFormat::GRAY8)
      ref = q;
    else
      EXPECT_NEAR(q, ref, 0.1) << format_name(f);
  }
}

TEST(Vbm3d, ComponentWithSigmaZeroIsCopied) {
  const HostFrame photo = test::load_photo_444("coffee.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::I420, 40, 40, 48, 32, 3, 1, 0, 20, 600);
  std::vector<FrameView> window = clip.noisy_views();
  HostFrame out(PixelFormat::I420, 48, 32);
  vbm3d_frame_reference(window, 1, out.view(), 3, small_params(), {20, 0, 20});
  const auto o = components(out.view()), n = components(clip.noisy[1].view());
  EXPECT_EQ(mse(o[1], n[1]), 0.0);
  EXPECT_GT(mse(o[0], n[0]), 0.0);
  EXPECT_GT(mse(o[2], n[2]), 0.0);
}

TEST(Vbm3d, CausalWindowSearchesTwiceTheProfilesRadiusBackUnlessGiven) {
  Vbm3dSettings s;
  bool causal = false;  // the stream's window, resolved
  EXPECT_EQ(vbm3d_params(s, causal).hard.radius, 4) << "the centred window: the profile's radius";
  EXPECT_EQ(vbm3d_params(s, causal).reach_after(), 16) << "the group aggregation: twice R1 + R2";
  causal = true;
  const Vbm3dParams back = vbm3d_params(s, causal);
  EXPECT_EQ(back.hard.radius, 8);
  EXPECT_EQ(back.wiener.radius, 8);
  EXPECT_EQ(back.reach_before(), 16);
  EXPECT_EQ(back.reach_after(), 0);
  EXPECT_NO_THROW(validate(back));
  s.profile = static_cast<int>(Vbm3dProfile::Fast);
  EXPECT_EQ(vbm3d_params(s, causal).hard.radius, 4) << "the fast profile's radius 2, doubled";
  EXPECT_EQ(vbm3d_params(s, causal).reach_before(), 4) << "one phase";
  s.profile = static_cast<int>(Vbm3dProfile::Quality);
  s.radius = 3;
  EXPECT_EQ(vbm3d_params(s, causal).hard.radius, 3) << "a given radius is kept";
  EXPECT_EQ(vbm3d_params(s, causal).wiener.radius, 3);
  s.radius = 0;
  EXPECT_EQ(vbm3d_params(s, causal).reach_before(), 0) << "radius 0 stays per frame";
  // The causal window takes the frame aggregation unless another is given, and
  // with the quality profile the group sizes and steps it was measured with.
  s = Vbm3dSettings{};
  const Vbm3dParams qc = vbm3d_params(s, causal);
  EXPECT_EQ(qc.aggregation, Vbm3dAggregation::Frame);
  EXPECT_EQ(qc.hard.group, 16);
  EXPECT_EQ(qc.wiener.group, 32);
  EXPECT_EQ(qc.hard.own_frame, 32);
  EXPECT_EQ(qc.hard.step, 5);
  EXPECT_EQ(qc.wiener.step, 3);
  s.step = 4;
  EXPECT_EQ(vbm3d_params(s, causal).hard.step, 4) << "a given step is kept";
  s = Vbm3dSettings{};
  s.profile = static_cast<int>(Vbm3dProfile::Paper);
  EXPECT_EQ(vbm3d_params(s, causal).aggregation, Vbm3dAggregation::Frame);
  EXPECT_NO_THROW(validate(vbm3d_params(s, causal)));
  s.aggregation = static_cast<int>(Vbm3dAggregation::Group);
  EXPECT_THROW(validate(vbm3d_params(s, causal)), InvalidArgument);
  s.aggregation = static_cast<int>(Vbm3dAggregation::Reference);
  EXPECT_EQ(vbm3d_params(s, causal).aggregation, Vbm3dAggregation::Reference);
}

TEST(Vbm3d, ProfilesAreValid) {
  EXPECT_NO_THROW(validate(vbm3d_quality_profile()));
  EXPECT_NO_THROW(validate(vbm3d_fast_profile()));
  EXPECT_NO_THROW(validate(vbm3d_wide_profile()));
  Vbm3dSettings wide;
  wide.profile = static_cast<int>(Vbm3dProfile::Wide);
  EXPECT_EQ(vbm3d_params(wide, false).hard.window, 39);
  EXPECT_EQ(vbm3d_params(wide, false).wiener.window, 39);
  EXPECT_EQ(vbm3d_params(wide, false).hard.step, 3);
  EXPECT_EQ(vbm3d_params(wide, false).hard.predictive, 5);
  // The tuned quality profile (docs/VBM3D.md, "Tuning the quality profile",
  // "Every member into its own frame") is the default; the fast profile kept its
  // values when the quality one changed.
  const Vbm3dParams q = vbm3d_params(Vbm3dSettings{}, false);
  EXPECT_EQ(q.hard.window, 39);
  EXPECT_EQ(q.hard.step, 6);
  EXPECT_EQ(q.hard.predictive, 3);
  EXPECT_EQ(q.hard.group, 8);
  EXPECT_EQ(q.wiener.group, 8);
  EXPECT_EQ(q.hard.own_frame, 1);
  EXPECT_EQ(q.wiener.own_frame, 1);
  EXPECT_EQ(q.wiener.window, 25);
  EXPECT_EQ(q.wiener.step, 4);
  EXPECT_EQ(q.aggregation, Vbm3dAggregation::Group);
  EXPECT_EQ(vbm3d_paper_profile().aggregation, Vbm3dAggregation::Group) << "the paper's";
  EXPECT_EQ(q.wiener.predictive, 3);
  const Vbm3dParams f = vbm3d_fast_profile();
  EXPECT_EQ(f.hard.window, 9);
  EXPECT_EQ(f.hard.step, 6);
  EXPECT_EQ(f.hard.predictive, 5);
  EXPECT_EQ(f.hard.radius, 2);
  Vbm3dParams p;
  p.hard.group = 12;
  EXPECT_THROW(validate(p), InvalidArgument);
  p = Vbm3dParams{};
  p.wiener.window = 16;
  EXPECT_THROW(validate(p), InvalidArgument);
  p = Vbm3dParams{};
  p.hard.radius = 9;
  EXPECT_THROW(validate(p), InvalidArgument);
}

}  // namespace
}  // namespace cdn
