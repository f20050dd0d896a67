// test_gpu_vbm3d.cpp: the motion and V-BM3D kernels against their CPU
// references. Motion: the same field bit for bit (integers throughout), on real
// shifted frames, noisy, 8 and 10 bits, odd sizes. V-BM3D: the GPU sums the
// transforms with fused multiply-adds, so it is compared within bounds: mean
// absolute difference under 0.05 code values (8-bit units), at most 2% of the
// samples of every frame differing (by a quarter of an 8-bit code value or more: any
// difference at 8 and 10 bits), none by more than 4, and PSNR within 0.02 dB, on every
// format, odd and tiny sizes, both profiles and the variants (no motion, the
// reference aggregated alone, every member into its own frame, one phase). Its
// aggregation is fixed point, so it
// is deterministic: two runs, any batch size, a frame filtered in a chunk or in
// a short window, all give the same samples. Every test skips, with the
// reason, where no CUDA device can be used. Through the front door
// (StreamDenoiser, the CUDA backend): the centred window in chunks and the
// causal window (radius 2 given, the quality profile's own 8 frames back, the fast
// profile's 4) give the CPU stream's frames within the same bounds, the 2% taken
// over the whole clip, with at most 5% in any one frame: with the tuned quality
// profile (hard phase step 5) one 96x64 frame of the synthetic pan
// (CDN_TEST_SMALL) had 3.7-4.2% of its samples 1 apart while the clip had
// 1.1-1.4% (max 1, PSNR within 0.002 dB; at 128x96 every frame stays under 2%),
// and real 160x120 crops 0.04-0.43%, at most 1.3% in a frame (docs/VBM3D.md); frames out
// equal frames in, and the output of the centred window is the same bit for
// bit for every chunk size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cudadenoise/metrics.h"
#include "cudadenoise/stream_pump.h"
#include "motion/motion_reference.h"
#include "nlm3d/nlm3d_window.h"
#include "vbm3d/vbm3d_reference.h"
#include "video_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "motion/motion_cuda.h"
#include "vbm3d/vbm3d_cuda.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

bool small() { return std::getenv("CDN_TEST_SMALL") != nullptr; }

// ---------------------------------------------------------------- motion

void expect_same_field(HostFrame a, HostFrame b, double sigma, const MotionParams& p, const std::string& what) {
  const PixelFormat format = a.view().format;
  const int w = a.view().width, h = a.view().height;
  if (sigma > 0) {
    add_gaussian_noise(a.view(), sigma, 1);
    add_gaussian_noise(b.view(), sigma, 2);
  }
  CudaFramePool pool(format, w, h, 2);
  auto da = pool.acquire(nullptr), db = pool.acquire(nullptr);
  copy_frame_async(a.view(), da->view(), nullptr);
  copy_frame_async(b.view(), db->view(), nullptr);
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  const PlaneView la = components(a.view())[0], lb = components(b.view())[0];
  const MotionField cpu = estimate_motion(build_pyramid(la, p), build_pyramid(lb, p), p);
  const MotionField gpu = estimate_motion_cuda(components(da->view())[0], components(db->view())[0], p);
  ASSERT_EQ(cpu.v.size(), gpu.v.size()) << what;
  int differ = 0;
  for (std::size_t i = 0; i < cpu.v.size(); ++i) differ += cpu.v[i].dx != gpu.v[i].dx || cpu.v[i].dy != gpu.v[i].dy;
  EXPECT_EQ(differ, 0) << what << ": " << differ << " of " << cpu.v.size() << " vectors differ";
  int distinct = 0;  // how varied the field is (the GPU skips candidates it has matched; varied fields test that)
  for (std::size_t i = 0; i < cpu.v.size(); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < i && !seen; ++j) seen = cpu.v[j].dx == cpu.v[i].dx && cpu.v[j].dy == cpu.v[i].dy;
    distinct += !seen;
  }
  std::printf("motion %-40s %zu cells, %d distinct vectors, %d differ\n", what.c_str(), cpu.v.size(), distinct, differ);
}

// Frame b is frame a moved by (dx, dy): one translation.
void expect_same_field(PixelFormat format, int w, int h, int dx, int dy, double sigma, const MotionParams& p,
                       const std::string& what) {
  const HostFrame photo = test::load_photo_444("camera.png");
  expect_same_field(test::crop_as(photo, format, 120, 110, w, h), test::crop_as(photo, format, 120 - dx, 110 - dy, w, h),
                    sigma, p, what);
}

// Frame b is frame a zoomed by `scale` about its centre and turned by `degrees`
// (nearest sample): vectors that change from cell to cell.
void expect_same_field_warped(PixelFormat format, int w, int h, double scale, double degrees, double sigma,
                              const MotionParams& p, const std::string& what) {
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const HostFrame a = test::crop_as(photo, format, 40, 30, w, h);
  HostFrame b(format, w, h);
  const auto ca = components(a.view()), cb = components(b.view());
  const double c = std::cos(degrees * M_PI / 180) / scale, s = std::sin(degrees * M_PI / 180) / scale;
  for (std::size_t k = 0; k < cb.size(); ++k) {
    const double mx = (cb[k].width - 1) / 2.0, my = (cb[k].height - 1) / 2.0;
    for (int y = 0; y < cb[k].height; ++y)
      for (int x = 0; x < cb[k].width; ++x) {
        const int sx = static_cast<int>(std::lround(mx + c * (x - mx) - s * (y - my)));
        const int sy = static_cast<int>(std::lround(my + s * (x - mx) + c * (y - my)));
        cb[k].set(x, y, ca[k].get(clamp_coord(sx, cb[k].width), clamp_coord(sy, cb[k].height)));
      }
  }
  expect_same_field(test::crop_as(photo, format, 40, 30, w, h), std::move(b), sigma, p, what);
}

TEST(GpuMotion, FieldEqualsTheReference) {
  CDN_REQUIRE_GPU();
  const MotionParams p;
  expect_same_field(PixelFormat::GRAY8, 320, 240, 6, -4, 0, p, "GRAY8 320x240 (6,-4) clean");
  expect_same_field(PixelFormat::GRAY8, 321, 239, -13, 9, 25, p, "GRAY8 321x239 (-13,9) sigma 25");
  expect_same_field(PixelFormat::P010_10LE, 200, 150, 3, 5, 20, p, "P010 200x150 (3,5) sigma 20");
  expect_same_field(PixelFormat::GRAY16_LE, 97, 61, 2, 1, 10, p, "GRAY16 97x61 (2,1) sigma 10");
  expect_same_field(PixelFormat::GRAY8, 7, 5, 1, 0, 10, p, "GRAY8 7x5");
  if (!small()) expect_same_field(PixelFormat::NV12, 1280, 720, 21, -15, 30, p, "NV12 1280x720 (21,-15) sigma 30");
  MotionParams q;
  q.smooth_passes = 0;
  q.lambda = 0;
  q.margin = 0;
  q.cell = 16;
  expect_same_field(PixelFormat::GRAY8, 300, 200, 4, 4, 20, q, "GRAY8 cell 16, no margin, smoothing or lambda");
}

// Fields that vary from cell to cell (a zoom with a turn, and two unrelated
// pictures): the search's predictors and a smoothing pass's nine vectors then
// partly coincide, which the GPU's skipping of repeated candidates must handle
// exactly. The vbm3d settings and nlm3d's (cells of 16, 24x24 windows).
TEST(GpuMotion, VariedFieldsEqualTheReference) {
  CDN_REQUIRE_GPU();
  const MotionParams p;
  const MotionParams nlm = nlm3d_motion_params();
  expect_same_field_warped(PixelFormat::GRAY8, 320, 240, 1.06, 3, 15, p, "GRAY8 320x240 zoom 1.06, turn 3");
  expect_same_field_warped(PixelFormat::NV12, 330, 250, 0.95, -4, 25, nlm, "NV12 330x250 zoom 0.95, turn -4, nlm3d's");
  expect_same_field_warped(PixelFormat::P010_10LE, 256, 192, 1.1, 0, 10, p, "P010 256x192 zoom 1.1");
  const HostFrame camera = test::load_photo_444("camera.png"), astronaut = test::load_photo_444("astronaut.png");
  for (const MotionParams& m : {p, nlm})
    expect_same_field(test::crop_as(camera, PixelFormat::GRAY8, 0, 0, 256, 200),
                      test::crop_as(astronaut, PixelFormat::GRAY8, 0, 0, 256, 200), 20, m,
                      m.cell == p.cell ? "GRAY8 unrelated pictures" : "GRAY8 unrelated pictures, nlm3d's");
  if (!small())
    expect_same_field_warped(PixelFormat::NV12, 1280, 720, 1.03, 2, 20, p, "NV12 1280x720 zoom 1.03, turn 2");
}

// A batch (estimate_many: one launch per level and pass for every field) gives
// each field as estimate() and the CPU reference do, whatever the pairs' order.
TEST(GpuMotion, BatchEqualsOneFieldAtATime) {
  CDN_REQUIRE_GPU();
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const int w = 200, h = 150;
  std::vector<HostFrame> frames;
  const int shifts[4][2] = {{0, 0}, {5, -3}, {-9, 7}, {2, 11}};
  for (int i = 0; i < 4; ++i) {
    frames.push_back(test::crop_as(photo, PixelFormat::GRAY8, 60 + shifts[i][0], 50 + shifts[i][1], w, h));
    add_gaussian_noise(frames.back().view(), 20, 40 + i);
  }
  for (const MotionParams& p : {MotionParams{}, nlm3d_motion_params()}) {
    CudaFramePool pool(PixelFormat::GRAY8, w, h, 4);
    std::vector<CudaFramePool::Handle> dev;
    MotionCuda m;
    for (int i = 0; i < 4; ++i) {
      dev.push_back(pool.acquire(nullptr));
      copy_frame_async(frames[i].view(), dev.back()->view(), nullptr);
      m.build_pyramid(components(dev.back()->view())[0], i, p, nullptr);
    }
    const int pairs[5][2] = {{0, 1}, {1, 0}, {0, 2}, {3, 1}, {2, 3}};
    const std::size_t cells = static_cast<std::size_t>(MotionCuda::cols(w, p)) * MotionCuda::rows(h, p);
    MotionVector* d = nullptr;
    CDN_CUDA_CHECK(cudaMalloc(&d, 10 * cells * sizeof(MotionVector)));
    std::vector<MotionCuda::FieldPair> batch;
    for (int k = 0; k < 5; ++k) {
      batch.push_back({pairs[k][0], pairs[k][1], d + k * cells});
      m.estimate(pairs[k][0], pairs[k][1], d + (5 + k) * cells, p, nullptr);
    }
    m.estimate_many(batch, p, nullptr);
    std::vector<MotionVector> got(10 * cells);
    CDN_CUDA_CHECK(cudaMemcpy(got.data(), d, got.size() * sizeof(MotionVector), cudaMemcpyDeviceToHost));
    CDN_CUDA_CHECK(cudaFree(d));
    for (int k = 0; k < 5; ++k) {
      const MotionField cpu = estimate_motion(build_pyramid(components(frames[pairs[k][0]].view())[0], p),
                                              build_pyramid(components(frames[pairs[k][1]].view())[0], p), p);
      int differ_single = 0, differ_cpu = 0;
      for (std::size_t i = 0; i < cells; ++i) {
        const MotionVector a = got[k * cells + i], b = got[(5 + k) * cells + i];
        differ_single += a.dx != b.dx || a.dy != b.dy;
        differ_cpu += a.dx != cpu.v[i].dx || a.dy != cpu.v[i].dy;
      }
      EXPECT_EQ(differ_single, 0) << "cell " << p.cell << ", pair " << k;
      EXPECT_EQ(differ_cpu, 0) << "cell " << p.cell << ", pair " << k;
    }
  }
}

// ---------------------------------------------------------------- V-BM3D

struct Diff {
  double mean_abs = 0;  // 8-bit code values
  double share = 0;     // of the samples that differ
  int max_abs = 0;      // 8-bit code values (rounded up)
};

Diff diff(const PlaneView& a, const PlaneView& b) {
  Diff d;
  double sum = 0;
  long differ = 0;
  const double unit = 1 << (a.bit_depth - 8);
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const int e = std::abs(a.get(x, y) - b.get(x, y));
      sum += e;
      // A sample differs when it differs by a quarter of an 8-bit code value or
      // more: one code value at 8 and 10 bits, 64 at 16 bits (where one code
      // value, 1/256 of an 8-bit one, is float rounding the bounds do not mean).
      differ += e != 0 && 4 * e >= unit;
      d.max_abs = std::max(d.max_abs, static_cast<int>(std::ceil(e / unit)));
    }
  const double n = double(a.width) * a.height;
  d.mean_abs = sum / n / unit;
  d.share = differ / n;
  return d;
}

// Runs Vbm3dCuda on the clip's noisy frames [first, last] (uploaded), output
// frames [out_begin, out_end); returns them downloaded.
std::vector<HostFrame> run_gpu(const test::TestClip& clip, int first, int last, int out_begin, int out_end,
                               const Vbm3dParams& p, const std::vector<double>& sigma, Vbm3dCuda* filter = nullptr) {
  const FrameView& v = clip.noisy[0].view();
  const int n = last - first + 1, outs = out_end - out_begin;
  CudaFramePool pool(v.format, v.width, v.height, n + outs);
  std::vector<CudaFramePool::Handle> din, dout;
  std::vector<FrameView> window, out_views;
  for (int f = first; f <= last; ++f) {
    din.push_back(pool.acquire(nullptr));
    copy_frame_async(clip.noisy[f].view(), din.back()->view(), nullptr);
    window.push_back(din.back()->view());
  }
  for (int i = 0; i < outs; ++i) {
    dout.push_back(pool.acquire(nullptr));
    out_views.push_back(dout.back()->view());
  }
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  Vbm3dCuda own;
  Vbm3dCuda& f = filter ? *filter : own;
  f.run(window, out_begin - first, out_end - first, out_views, format_info(v.format).components, p, sigma, nullptr);
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<HostFrame> result;
  for (int i = 0; i < outs; ++i) {
    result.emplace_back(v.format, v.width, v.height);
    copy_frame_async(out_views[i], result.back().view(), nullptr);
  }
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  return result;
}

std::vector<HostFrame> run_cpu(const test::TestClip& clip, int first, int last, int out_begin, int out_end,
                               const Vbm3dParams& p, const std::vector<double>& sigma) {
  std::vector<FrameView> window;
  for (int f = first; f <= last; ++f) window.push_back(clip.noisy[f].view());
  const FrameView& v = clip.noisy[0].view();
  std::vector<HostFrame> outs;
  std::vector<FrameView> views;
  for (int f = out_begin; f < out_end; ++f) {
    outs.emplace_back(v.format, v.width, v.height);
    views.push_back(outs.back().view());
  }
  vbm3d_reference(window, out_begin - first, out_end - first, views, format_info(v.format).components, p, sigma);
  return outs;
}

bool same_samples(const FrameView& a, const FrameView& b) {
  const auto ca = components(a), cb = components(b);
  for (std::size_t c = 0; c < ca.size(); ++c)
    if (diff(ca[c], cb[c]).share > 0) return false;
  return true;
}

// sigma in 8-bit units (scaled to the format's depth).
void expect_gpu_matches_cpu(const test::TestClip& clip, const Vbm3dParams& p, double sigma, const std::string& what) {
  const int n = static_cast<int>(clip.noisy.size());
  const int nc = format_info(clip.noisy[0].view().format).components;
  const std::vector<double> s(nc, sigma * (1 << (format_info(clip.noisy[0].view().format).bit_depth - 8)));
  const std::vector<HostFrame> gpu = run_gpu(clip, 0, n - 1, 0, n, p, s), cpu = run_cpu(clip, 0, n - 1, 0, n, p, s);
  for (int c = 0; c < nc; ++c) {
    Diff worst;
    double mse_c = 0, mse_g = 0, sum_mean = 0;
    for (int f = 0; f < n; ++f) {
      const PlaneView pc = components(cpu[f].view())[c], pg = components(gpu[f].view())[c],
                      clean = components(clip.clean[f].view())[c];
      const Diff d = diff(pc, pg);
      worst.share = std::max(worst.share, d.share);
      worst.max_abs = std::max(worst.max_abs, d.max_abs);
      sum_mean += d.mean_abs;
      mse_c += mse(pc, clean);
      mse_g += mse(pg, clean);
    }
    const int peak = components(clip.clean[0].view())[c].max_value();
    const double qc = psnr_from_mse(mse_c / n, peak), qg = psnr_from_mse(mse_g / n, peak);
    worst.mean_abs = sum_mean / n;
    std::printf("%-44s c%d cpu %6.3f dB gpu %6.3f dB  mean |diff| %.5f  differing %.3f%%  max %d\n", what.c_str(), c,
                qc, qg, worst.mean_abs, 100 * worst.share, worst.max_abs);
    EXPECT_LT(worst.mean_abs, 0.05) << what << " component " << c;
    EXPECT_LE(worst.share, 0.02) << what << " component " << c;
    EXPECT_LE(worst.max_abs, 4) << what << " component " << c;
    EXPECT_NEAR(qg, qc, 0.02) << what << " component " << c;
  }
}

Vbm3dParams small_params() {
  Vbm3dParams p = vbm3d_quality_profile();
  p.hard.radius = 2;
  p.wiener.radius = 2;
  return p;
}

TEST(GpuVbm3d, MovingRealClipMatchesTheReference) {
  CDN_REQUIRE_GPU();
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const int w = small() ? 64 : 192, h = small() ? 48 : 144, frames = small() ? 5 : 11;
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::GRAY8, 100, 120, w, h, frames, 5, -3, 20, 1);
  expect_gpu_matches_cpu(clip, small() ? small_params() : vbm3d_quality_profile(), 20, "astronaut moving (5,-3)");
}

TEST(GpuVbm3d, EveryFormatAndOddSizesMatchTheReference) {
  CDN_REQUIRE_GPU();
  const HostFrame photo = test::load_photo_444("coffee.png");
  const int w = small() ? 33 : 97, h = small() ? 25 : 61;
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::GRAY16_LE, PixelFormat::NV12, PixelFormat::I420,
                        PixelFormat::P010_10LE, PixelFormat::P016_LE, PixelFormat::Y444}) {
    const test::TestClip clip = test::moving_clip(photo, f, 150, 100, w, h, 5, -2, 3, 25, 7);
    expect_gpu_matches_cpu(clip, small_params(), 25, std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                                         std::to_string(h));
  }
}

TEST(GpuVbm3d, TinyFramesMatchTheReference) {
  CDN_REQUIRE_GPU();
  const int sizes[][2] = {{1, 1}, {2, 3}, {7, 5}, {8, 8}, {9, 17}};
  for (const auto& s : sizes) {
    test::TestClip clip;
    for (int f = 0; f < 4; ++f) {
      clip.clean.emplace_back(PixelFormat::GRAY8, s[0], s[1]);
      clip.noisy.emplace_back(PixelFormat::GRAY8, s[0], s[1]);
      test::fill_random(components(clip.clean.back().view())[0], 7 * f + s[0]);
      copy_host_frame(clip.clean.back().view(), clip.noisy.back().view());
      add_gaussian_noise(clip.noisy.back().view(), 30, f);
    }
    expect_gpu_matches_cpu(clip, small_params(), 30, std::to_string(s[0]) + "x" + std::to_string(s[1]));
  }
}

TEST(GpuVbm3d, ProfilesAndVariantsMatchTheReference) {
  CDN_REQUIRE_GPU();
  const HostFrame photo = test::load_photo_444("camera.png");
  // Full size under CDN_TEST_SMALL too: at 64x48 the chroma planes (32x24) are smaller
  // than the wide profile's 39x39 window, and one match that float rounding decides
  // differently (a near tie on the basic estimate) moves about 10% of a plane's samples
  // by 1 or 2 codes, past this test's 2% bound (H200, memcheck, 2026-11-24).
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::NV12, 90, 80, 160, 120, 7, 4, 2, 30, 3);
  expect_gpu_matches_cpu(clip, vbm3d_fast_profile(), 30, "fast profile");
  Vbm3dParams p = small_params();
  p.motion = false;
  expect_gpu_matches_cpu(clip, p, 30, "no motion");
  p = small_params();
  p.motion_on_basic = false;
  expect_gpu_matches_cpu(clip, p, 30, "both phases on the noisy frames' motion");
  expect_gpu_matches_cpu(clip, small_params(), 45, "sigma 45: the hard phase's threshold floor");
  p = small_params();
  p.aggregation = Vbm3dAggregation::Reference;
  expect_gpu_matches_cpu(clip, p, 30, "reference aggregated alone");
  p = small_params();
  p.phases = 1;
  p.hard.group = 32;
  p.hard.seeds = 8;
  p.hard.per_frame = 16;
  p.hard.predictive = 9;
  expect_gpu_matches_cpu(clip, p, 30, "one phase, group 32, 8 seeds, 16 per frame");
  p = vbm3d_wide_profile();
  p.hard.radius = p.wiener.radius = 2;
  expect_gpu_matches_cpu(clip, p, 30, "wide profile (window 39), radius 2");
  p = vbm3d_quality_profile();
  p.hard.radius = 8;
  p.wiener.radius = 1;
  p.wiener.group = 8;
  p.aggregation = Vbm3dAggregation::Frame;
  expect_gpu_matches_cpu(clip, p, 30, "radius 8 then 1");
  p = small_params();
  p.aggregation = Vbm3dAggregation::Frame;
  expect_gpu_matches_cpu(clip, p, 30, "frame aggregation, radius 2");
  p.aggregation = Vbm3dAggregation::Group;
  p.hard.radius = 3;
  p.wiener.radius = 1;
  expect_gpu_matches_cpu(clip, p, 30, "group aggregation, radius 3 then 1");
  p.phases = 1;
  expect_gpu_matches_cpu(clip, p, 30, "group aggregation, one phase");
}

TEST(GpuVbm3d, DeterministicWindowsChunksAndBatches) {
  CDN_REQUIRE_GPU();
  const HostFrame photo = test::load_photo_444("coffee.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::NV12, 60, 80, 96, 64, 12, 2, 1, 20, 300);
  Vbm3dParams p = small_params();
  p.aggregation = Vbm3dAggregation::Frame;  // the group aggregation's own test follows
  const std::vector<double> s(3, 20);
  ASSERT_EQ(p.reach(), 4);
  const std::vector<HostFrame> exact = run_gpu(clip, 2, 10, 6, 7, p, s);
  EXPECT_TRUE(same_samples(exact[0].view(), run_gpu(clip, 2, 10, 6, 7, p, s)[0].view())) << "two runs";
  EXPECT_TRUE(same_samples(exact[0].view(), run_gpu(clip, 0, 11, 6, 7, p, s)[0].view())) << "a longer window";
  EXPECT_TRUE(same_samples(exact[0].view(), run_gpu(clip, 1, 11, 4, 9, p, s)[2].view())) << "a chunk";
  Vbm3dCuda batched;
  batched.set_batch_references(7);
  EXPECT_TRUE(same_samples(exact[0].view(), run_gpu(clip, 2, 10, 6, 7, p, s, &batched)[0].view())) << "batches of 7";
}

TEST(GpuVbm3d, GroupAggregationDeterministicWindowsChunksAndBatches) {
  // Every member into its own frame: frame 10 gathers the groups of frames 8 ..
  // 12 (radius 2), whose basic estimates read frames 2 .. 18.
  CDN_REQUIRE_GPU();
  const HostFrame photo = test::load_photo_444("coffee.png");
  const test::TestClip clip = test::moving_clip(photo, PixelFormat::NV12, 60, 80, 96, 64, 20, 2, 1, 20, 300);
  Vbm3dParams p = small_params();
  p.aggregation = Vbm3dAggregation::Group;
  const std::vector<double> s(3, 20);
  ASSERT_EQ(p.reach(), 8);
  const std::vector<HostFrame> exact = run_gpu(clip, 2, 18, 10, 11, p, s);
  EXPECT_TRUE(same_samples(exact[0].view(), run_gpu(clip, 2, 18, 10, 11, p, s)[0].view())) << "two runs";
  EXPECT_TRUE(same_samples(exact[0].view(), run_gpu(clip, 0, 19, 10, 11, p, s)[0].view())) << "a longer window";
  const std::vector<HostFrame> chunk = run_gpu(clip, 0, 19, 0, 20, p, s);
  EXPECT_TRUE(same_samples(exact[0].view(), chunk[10].view())) << "the whole clip";
  EXPECT_TRUE(same_samples(chunk[19].view(), run_gpu(clip, 11, 19, 19, 20, p, s)[0].view())) << "the last frame";
  EXPECT_TRUE(same_samples(chunk[0].view(), run_gpu(clip, 0, 8, 0, 1, p, s)[0].view())) << "the first frame";
  Vbm3dCuda batched;
  batched.set_batch_references(7);
  EXPECT_TRUE(same_samples(exact[0].view(), run_gpu(clip, 2, 18, 10, 11, p, s, &batched)[0].view())) << "batches of 7";
}

// ---------------------------------------------------------------- the stream

std::vector<HostFrame> stream_frames(Backend b, const DenoiseSettings& s, const std::vector<HostFrame>& in) {
  const FrameView& v = in[0].view();
  auto d = StreamDenoiser::create(b, s, v.format, v.width, v.height);
  return test::run_clip(*d, in);
}

void expect_stream_within_bounds(const std::vector<HostFrame>& cpu, const std::vector<HostFrame>& gpu,
                                 const std::vector<HostFrame>& clean, const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  const int nc = static_cast<int>(components(cpu[0].view()).size());
  for (int c = 0; c < nc; ++c) {
    Diff worst;
    double sum = 0, share = 0, mse_c = 0, mse_g = 0;
    for (std::size_t f = 0; f < cpu.size(); ++f) {
      const Diff d = diff(components(cpu[f].view())[c], components(gpu[f].view())[c]);
      worst.share = std::max(worst.share, d.share);
      worst.max_abs = std::max(worst.max_abs, d.max_abs);
      sum += d.mean_abs;
      share += d.share;
      mse_c += mse(components(cpu[f].view())[c], components(clean[f].view())[c]);
      mse_g += mse(components(gpu[f].view())[c], components(clean[f].view())[c]);
    }
    const double n = static_cast<double>(cpu.size());
    const int peak = components(clean[0].view())[c].max_value();
    const double qc = psnr_from_mse(mse_c / n, peak), qg = psnr_from_mse(mse_g / n, peak);
    std::printf("%-44s c%d cpu %6.3f dB gpu %6.3f dB  mean |diff| %.5f  differing %.3f%% (worst frame %.3f%%)  max %d\n",
                what.c_str(), c, qc, qg, sum / n, 100 * share / n, 100 * worst.share, worst.max_abs);
    EXPECT_LT(sum / n, 0.05) << what << " component " << c;
    // The share of the clip's samples (every frame has the same size): a 96x64 frame's share swings
    // with a handful of groups (see the file's comment); one frame far off still fails at 5%.
    EXPECT_LE(share / n, 0.02) << what << " component " << c;
    EXPECT_LE(worst.share, 0.05) << what << " component " << c << " (its worst frame)";
    EXPECT_LE(worst.max_abs, 4) << what << " component " << c;
    EXPECT_NEAR(qg, qc, 0.02) << what << " component " << c;
  }
}

DenoiseSettings stream_settings(int chunk, bool causal) {
  DenoiseSettings s;
  s.mode = Mode::Vbm3d;
  s.vbm3d.radius = 2;
  s.vbm3d.chunk = chunk;
  if (causal) s.window = TemporalWindow::Causal;
  s.sigma = 20;
  return s;
}

TEST(GpuVbm3dStream, CentredAndCausalWindowsMatchTheCpuStream) {
  CDN_REQUIRE_GPU();
  const HostFrame photo = test::load_photo_444("astronaut.png");
  const test::TestClip clip =
      test::moving_clip(photo, PixelFormat::NV12, 100, 120, small() ? 96 : 128, small() ? 64 : 96, 9, 3, -2, 20, 5);
  const std::vector<HostFrame> gpu3 = stream_frames(Backend::Cuda, stream_settings(3, false), clip.noisy);
  ASSERT_EQ(gpu3.size(), clip.noisy.size()) << "frames out == frames in";
  expect_stream_within_bounds(stream_frames(Backend::Cpu, stream_settings(3, false), clip.noisy), gpu3, clip.clean,
                              "stream, centred, chunk 3");
  for (int chunk : {1, 4, 50}) {
    const std::vector<HostFrame> g = stream_frames(Backend::Cuda, stream_settings(chunk, false), clip.noisy);
    ASSERT_EQ(g.size(), gpu3.size());
    for (std::size_t f = 0; f < g.size(); ++f)
      EXPECT_TRUE(same_samples(g[f].view(), gpu3[f].view())) << "chunk " << chunk << " frame " << f;
  }
  expect_stream_within_bounds(stream_frames(Backend::Cpu, stream_settings(1, true), clip.noisy),
                              stream_frames(Backend::Cuda, stream_settings(1, true), clip.noisy), clip.clean,
                              "stream, causal");
  DenoiseSettings quality = stream_settings(1, true);  // the causal window's own radius: 8 frames back
  quality.vbm3d.radius = -1;
  expect_stream_within_bounds(stream_frames(Backend::Cpu, quality, clip.noisy),
                              stream_frames(Backend::Cuda, quality, clip.noisy), clip.clean, "stream, causal, radius 8");
  DenoiseSettings fast = stream_settings(4, true);
  fast.vbm3d.profile = static_cast<int>(Vbm3dProfile::Fast);
  fast.vbm3d.radius = -1;
  expect_stream_within_bounds(stream_frames(Backend::Cpu, fast, clip.noisy),
                              stream_frames(Backend::Cuda, fast, clip.noisy), clip.clean, "stream, causal, fast");
}

#else

TEST(GpuVbm3d, NeedsCuda) { GTEST_SKIP() << "built without CUDA (nvcc not found or -Dcuda=disabled)"; }

#endif

}  // namespace
}  // namespace cdn
