// test_nlm3d_quality.cpp: the temporal mode on a real moving clip, a slow pan
// across a real photo (astronaut.png luma) with AWGN sigma 20 and fixed seeds:
// it must beat the same filter without temporal search by 0.5 dB and PI-PD
// hybrid. In colour (NV12), chroma filtered with the luma's weights must beat
// chroma filtered with its own. The video settings, given the pan's known
// motion, must beat the papers' cubes and themselves without motion or without
// other frames. Clean photos with sigma auto stay clean. Runs on the CPU backend in
// CI and on the CUDA backend on a GPU host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "convert.h"
#include "core/parallel.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_denoiser.h"
#include "image_io.h"
#include "nlm3d/nlm3d_reference.h"
#include "test_nlm3d_support.h"
#include "test_support.h"

namespace cdn {
namespace {

struct Clip {
  std::vector<HostFrame> clean, noisy;
};

// A w x h window panning 2 pixels right and 1 down per frame.
Clip pan_clip(int frames, int w, int h) {
  const tools::Image img = tools::to_8bit(tools::read_image(test::test_data_dir() + "/astronaut.png"));
  const HostFrame photo = tools::image_to_frame(img);
  const PlaneView src = components(photo.view())[0];
  Clip c;
  for (int i = 0; i < frames; ++i) {
    c.clean.emplace_back(PixelFormat::GRAY8, w, h);
    c.noisy.emplace_back(PixelFormat::GRAY8, w, h);
    const PlaneView a = components(c.clean.back().view())[0], b = components(c.noisy.back().view())[0];
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int v = src.get(100 + 2 * i + x, 120 + i + y);
        a.set(x, y, v);
        b.set(x, y, v);
      }
    add_gaussian_noise(b, 20.0, 1000 + i);
  }
  return c;
}

// The pan in NV12: chroma is the rounded mean of each 2x2 block of the photo's
// 4:4:4 chroma; every component gets AWGN sigma 20.
Clip colour_pan_clip(int frames, int w, int h) {
  const tools::Image img = tools::to_8bit(tools::read_image(test::test_data_dir() + "/astronaut.png"));
  const HostFrame photo = tools::image_to_frame(img);
  const auto src = components(photo.view());
  Clip c;
  for (int i = 0; i < frames; ++i) {
    c.clean.emplace_back(PixelFormat::NV12, w, h);
    c.noisy.emplace_back(PixelFormat::NV12, w, h);
    const auto a = components(c.clean.back().view()), b = components(c.noisy.back().view());
    for (int k = 0; k < 3; ++k) {
      const int f = k == 0 ? 1 : 2;
      for (int y = 0; y < a[k].height; ++y)
        for (int x = 0; x < a[k].width; ++x) {
          int sum = 0;
          for (int j = 0; j < f * f; ++j) sum += src[k].get(100 + 2 * i + f * x + j % f, 120 + i + f * y + j / f);
          const int v = (sum + f * f / 2) / (f * f);
          a[k].set(x, y, v);
          b[k].set(x, y, v);
        }
      add_gaussian_noise(b[k], 20.0, 2000 + 3 * i + k);
    }
  }
  return c;
}

double mean_psnr(const std::vector<HostFrame>& out, const Clip& c) {
  double s = 0;
  for (std::size_t i = 0; i < out.size(); ++i) s += psnr(components(out[i].view())[0], components(c.clean[i].view())[0]);
  return s / out.size();
}

std::vector<HostFrame> stream_all(Backend b, const DenoiseSettings& s, const Clip& c) {
  const FrameView& f0 = c.noisy[0].view();
  auto d = StreamDenoiser::create(b, s, f0.format, f0.width, f0.height);
  return test::run_clip(*d, c.noisy);
}

void check_quality(Backend backend, int frames, int w, int h) {
  Clip c;
  try {
    c = pan_clip(frames, w, h);
  } catch (const std::exception& e) {
    FAIL() << e.what() << " (run scripts/fetch-test-data.sh)";
  }
  DenoiseSettings temporal;
  temporal.mode = Mode::Nlm3d;
  temporal.nlm = nlm_paper_params();
  temporal.sigma = 20;
  DenoiseSettings spatial = temporal;
  spatial.nlm.temporal_radius = 0;
  DenoiseSettings hybrid;
  hybrid.mode = Mode::Hybrid;
  double noisy = 0;
  for (int i = 0; i < frames; ++i) noisy += psnr(components(c.noisy[i].view())[0], components(c.clean[i].view())[0]);
  noisy /= frames;
  const double t = mean_psnr(stream_all(backend, temporal, c), c);
  const double s = mean_psnr(stream_all(backend, spatial, c), c);
  const double hy = mean_psnr(stream_all(backend, hybrid, c), c);
  std::printf("%s, pan %dx%d x %d frames, sigma 20: noisy %.2f dB, nlm3d 11^3/3^3 %.2f dB, nlm3d temporal radius 0 "
              "%.2f dB, PI-PD hybrid %.2f dB\n",
              backend_name(backend), w, h, frames, noisy, t, s, hy);
  EXPECT_GE(t - s, 0.5);
  EXPECT_GT(t, hy);
}

// Chroma with the luma's weights (the filter) against chroma filtered on its own
// (the same reference, each chroma component its own guide, with its own sigma).
void check_colour(Backend backend, int frames, int w, int h) {
  Clip c;
  try {
    c = colour_pan_clip(frames, w, h);
  } catch (const std::exception& e) {
    FAIL() << e.what() << " (run scripts/fetch-test-data.sh)";
  }
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.nlm = nlm_paper_params();
  s.sigma = 20;
  const std::vector<HostFrame> out = stream_all(backend, s, c);
  ASSERT_EQ(out.size(), c.noisy.size());
  for (int k = 1; k < 3; ++k) {
    FrameWindow own;
    own.stream_length = frames;
    for (const auto& f : c.noisy) own.frames.push_back(components(f.view())[k]);
    std::vector<HostFrame> mine;
    for (int t = 0; t < frames; ++t) mine.emplace_back(PixelFormat::NV12, w, h);
    parallel_rows(frames, 0, [&](int t) { nlm3d_frame_reference(own, t, components(mine[t].view())[k], nlm_params(s.nlm, false), 20.0, 1); });
    double noisy = 0, luma_weights = 0, own_weights = 0;
    for (int t = 0; t < frames; ++t) {
      const PlaneView clean = components(c.clean[t].view())[k];
      noisy += psnr(components(c.noisy[t].view())[k], clean) / frames;
      luma_weights += psnr(components(out[t].view())[k], clean) / frames;
      own_weights += psnr(components(mine[t].view())[k], clean) / frames;
    }
    std::printf("%s, colour pan %dx%d NV12 x %d frames, sigma 20, component %d: noisy %.2f dB, luma weights %.2f dB, "
                "own weights %.2f dB\n",
                backend_name(backend), w, h, frames, k, noisy, luma_weights, own_weights);
    EXPECT_GT(luma_weights, own_weights) << "component " << k;
  }
}

// The video settings (the defaults) on the pan, motion-search reading the
// pan's true motion (content at x in frame t is at x - (2 dt, dt) in frame t + dt):
// the fields a motion estimator would ideally give, the NLM side alone tested.
TEST(Nlm3dQuality, VideoSettingsFollowAKnownMotion) {
  Clip c;
  try {
    c = pan_clip(12, 96, 72);
  } catch (const std::exception& e) {
    FAIL() << e.what() << " (run scripts/fetch-test-data.sh)";
  }
  const NlmParams video;
  const test::HostFields truth = test::make_fields(12, video.temporal_radius, 96, 72, 16, [](int, int dt, int, int) {
    return std::pair{-2 * dt, -dt};
  });
  auto score = [&](const std::vector<HostFrame>& out) { return mean_psnr(out, c); };
  NlmParams fixed = video;
  fixed.motion_search = false;
  NlmParams alone = video;
  alone.motion_search = false;
  alone.temporal_radius = 0;
  const double v = score(test::reference_clip(c.noisy, video, 20.0, &truth));
  const double f = score(test::reference_clip(c.noisy, fixed, 20.0));
  const double a = score(test::reference_clip(c.noisy, alone, 20.0));
  const double paper = score(test::reference_clip(c.noisy, nlm_params(nlm_paper_params(), false), 20.0));
  std::printf("pan 96x72 x 12 frames, sigma 20: papers' 11^3/3^3 %.2f dB; video settings %.2f dB with the true motion, "
              "%.2f dB with fixed windows, %.2f dB at temporal radius 0\n",
              paper, v, f, a);
  EXPECT_GE(v - f, 0.5) << "windows centred by the motion find the moved patches";
  EXPECT_GE(v - a, 1.0) << "other frames add at least 1 dB";
  EXPECT_GE(v - paper, 0.5) << "the video settings beat the papers' cubes";
}

// frame-confidence (nlm3d_confidence.h) under a flickering light, the diver clip's
// trouble made reproducible: the pan with, in every frame, its own pattern of light
// (amplitude 20, phases drawn per frame) on the content, whose difference between two
// frames is, sample by sample, fainter than the noise (sigma 20). The true motion is
// given. With the factors the other frames count less where they do not hold frame t's
// light (measured +0.43 dB; +0.10 at amplitude 12, +0.61 at 30); without flicker they
// cost little (-0.08 dB on this small crop, where many cells touch a border).
TEST(Nlm3dQuality, FrameConfidenceGainsUnderFlickeringLight) {
  const int frames = 12, w = 96, h = 72;
  Clip plain, flicker;
  try {
    plain = pan_clip(frames, w, h);
  } catch (const std::exception& e) {
    FAIL() << e.what() << " (run scripts/fetch-test-data.sh)";
  }
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> phase(0, 6.2832);
  for (int i = 0; i < frames; ++i) {
    flicker.clean.emplace_back(PixelFormat::GRAY8, w, h);
    flicker.noisy.emplace_back(PixelFormat::GRAY8, w, h);
    const double px = phase(rng), py = phase(rng);
    const PlaneView src = components(plain.clean[i].view())[0], a = components(flicker.clean.back().view())[0],
                    b = components(flicker.noisy.back().view())[0];
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int v = std::clamp(src.get(x, y) + int(std::lround(20 * std::sin(0.35 * x + px) * std::sin(0.3 * y + py))), 0, 255);
        a.set(x, y, v);
        b.set(x, y, v);
      }
    add_gaussian_noise(b, 20.0, 1000 + i);
  }
  const NlmParams video;
  NlmParams off = video;
  off.frame_confidence = 0;
  const test::HostFields truth = test::make_fields(frames, video.temporal_radius, w, h, 16, [](int, int dt, int, int) {
    return std::pair{-2 * dt, -dt};
  });
  const double fc = mean_psnr(test::reference_clip(flicker.noisy, video, 20.0, &truth), flicker);
  const double fo = mean_psnr(test::reference_clip(flicker.noisy, off, 20.0, &truth), flicker);
  const double pc = mean_psnr(test::reference_clip(plain.noisy, video, 20.0, &truth), plain);
  const double po = mean_psnr(test::reference_clip(plain.noisy, off, 20.0, &truth), plain);
  std::printf("pan %dx%d x %d frames, sigma 20, video settings with / without frame confidence: flickering light "
              "%.2f / %.2f dB, steady light %.2f / %.2f dB\n",
              w, h, frames, fc, fo, pc, po);
  EXPECT_GE(fc - fo, 0.3) << "the factors keep frames of other light out";
  EXPECT_GE(pc - po, -0.1) << "and cost little where every frame holds the content";
}

TEST(Nlm3dQuality, ChromaGainsFromLumaWeightsCpu) { check_colour(Backend::Cpu, 12, 96, 72); }

TEST(Nlm3dQuality, ChromaGainsFromLumaWeightsGpu) {
  CDN_REQUIRE_GPU();
  check_colour(Backend::Cuda, 12, 96, 72);
}

TEST(Nlm3dQuality, TemporalBeatsSpatialAndHybridOnAPanCpu) { check_quality(Backend::Cpu, 12, 96, 72); }

TEST(Nlm3dQuality, TemporalBeatsSpatialAndHybridOnAPanGpu) {
  CDN_REQUIRE_GPU();
  check_quality(Backend::Cuda, 40, 320, 240);
}

// Issue 33 item 9: the defaults must not damage clean input. Each clean test
// photo, one frame through the stream (as cudadenoise-image: gray, or colour as
// Y444) with sigma auto (the estimate, floored at 0.5; textured photos estimate
// more), stays 40 dB or more from itself in every component. With the papers'
// self weight alone (self-weight-floor 0) each pixel that no candidate matches
// within the noise weighed as much as its best candidate: 27.0 dB on grass.png,
// 38.2 on astronaut.png (docs/NLM3D.md, "Self-weight floor").
void check_clean_photos(Backend backend) {
  for (const char* name : {"astronaut", "brick", "camera", "chelsea", "coffee", "grass", "gravel", "moon", "text"}) {
    HostFrame photo(PixelFormat::GRAY8, 1, 1);
    try {
      photo = tools::image_to_frame(tools::to_8bit(tools::read_image(test::test_data_dir() + "/" + name + ".png")));
    } catch (const std::exception& e) {
      FAIL() << e.what() << " (run scripts/fetch-test-data.sh)";
    }
    const FrameView& f = photo.view();
    DenoiseSettings s;
    s.mode = Mode::Nlm3d;  // NlmSettings{}, sigma auto
    std::vector<HostFrame> in;
    in.push_back(std::move(photo));
    auto d = StreamDenoiser::create(backend, s, f.format, f.width, f.height);
    const std::vector<HostFrame> out = test::run_clip(*d, in);
    ASSERT_EQ(out.size(), 1u);
    const auto a = components(out[0].view()), b = components(in[0].view());
    for (std::size_t k = 0; k < a.size(); ++k) {
      const double db = psnr(a[k], b[k]);
      std::printf("%s, clean %s, sigma auto %.2f, component %zu: %.2f dB from itself\n", backend_name(backend), name,
                  d->noise_sigma().empty() ? 0.0 : d->noise_sigma()[0], k, db);
      EXPECT_GE(db, 40.0) << name << " component " << k;
    }
  }
}

TEST(Nlm3dQuality, CleanPhotosStayCleanWithEstimatedSigmaCpu) { check_clean_photos(Backend::Cpu); }

TEST(Nlm3dQuality, CleanPhotosStayCleanWithEstimatedSigmaGpu) {
  CDN_REQUIRE_GPU();
  check_clean_photos(Backend::Cuda);
}

}  // namespace
}  // namespace cdn
