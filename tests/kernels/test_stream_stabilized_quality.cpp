// test_stream_stabilized_quality.cpp: what the variance-stabilising stage
// (issue 37 item 2) gains, CPU backend, on noise of variance a x + b (issue
// 37's protocol) added to photo crops: bm3d and vbm3d behind the transform of
// the true model beat the same mode given the true mean sigma, and the model
// estimated from the frames comes within 0.3 dB of the true model (issue 37's
// target) and beats sigma auto. Suite 'slow' (kernels/meson.build): left out
// of the sanitizer leg of CI; test_stream_stabilized.cpp runs the same code
// paths on smaller inputs there.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/stream_denoiser.h"
#include "stabilized_test_support.h"

namespace cdn {
namespace {

using test::bm3d;
using test::clean_frame;
using test::estimated_signal_model;
using test::luma_psnr;
using test::mean_sigma;
using test::noisy_copy;
using test::process;
using test::stream_psnr;
using test::with_signal_model;
constexpr int kW = test::kStabilizedW, kH = test::kStabilizedH;

// Measured here: +0.50, +0.33 and +0.04 dB (chelsea's crop spans few
// intensities); the clips: +0.72 (docs/NOISE.md).
TEST(StreamStabilizedQuality, Bm3dBehindTheTransformBeatsTheTrueMeanSigma) {
  double gain = 0;
  for (const char* photo : {"astronaut.png", "coffee.png", "chelsea.png"}) {
    const HostFrame clean = clean_frame(test::photo_luma(photo), PixelFormat::GRAY8);
    const double a = 0.5, b = 4;
    const HostFrame noisy = noisy_copy(clean.view(), a, b, 11);
    const double at_mean = luma_psnr(process(bm3d(mean_sigma(clean.view(), a, b)), noisy.view()).view(), clean.view());
    const double behind = luma_psnr(process(with_signal_model(bm3d(), a, b), noisy.view()).view(), clean.view());
    std::printf("%s: noisy %.2f dB, bm3d at the mean sigma %.2f, behind the GAT %.2f\n", photo,
                luma_psnr(noisy.view(), clean.view()), at_mean, behind);
    EXPECT_GT(behind, at_mean) << photo;
    gain += (behind - at_mean) / 3;
  }
  EXPECT_GT(gain, 0.2);
}

TEST(StreamStabilizedQuality, Vbm3dBehindTheTransformBeatsTheTrueMeanSigma) {
  const HostFrame clean = clean_frame(test::photo_luma("astronaut.png"), PixelFormat::GRAY8);
  const double a = 2, b = 2;
  const int n = 5;
  std::vector<HostFrame> noisy;
  for (int i = 0; i < n; ++i) noisy.push_back(noisy_copy(clean.view(), a, b, 40 + i));
  auto run = [&](const DenoiseSettings& s) {
    auto d = StreamDenoiser::create(Backend::Cpu, s, PixelFormat::GRAY8, kW, kH);
    double sum = 0;
    int out_frames = 0;
    HostFrame out(PixelFormat::GRAY8, kW, kH);
    auto drain = [&] {
      while (d->pop(out.view())) {
        sum += luma_psnr(out.view(), clean.view());
        ++out_frames;
      }
    };
    for (const HostFrame& f : noisy) {
      d->push(f.view());
      drain();
    }
    d->finish();
    drain();
    EXPECT_EQ(out_frames, n);
    return sum / n;
  };
  DenoiseSettings v;
  v.mode = Mode::Vbm3d;
  v.sigma = mean_sigma(clean.view(), a, b);
  const double at_mean = run(v);
  const double behind = run(with_signal_model(v, a, b));
  std::printf("vbm3d: at the mean sigma %.2f dB, behind the GAT %.2f\n", at_mean, behind);
  EXPECT_GT(behind, at_mean + 0.2);
}

// The model needs level sets of at least 256 weak-texture patches: whole
// photos (a 192x144 crop of astronaut.png gives two, both bright: flat).
TEST(StreamStabilizedQuality, EstimatedModelComesCloseToTheTrueModel) {
  for (const char* photo : {"astronaut.png", "coffee.png"}) {
    const test::LumaSource src = test::photo_luma(photo);
    HostFrame clean(PixelFormat::GRAY8, 512, 384);
    test::render(test::crop(src, 0, 0, 512, 384), 0.0, 0, components(clean.view())[0]);
    const double a = 0.5, b = 4;
    DenoiseSettings quick = bm3d();
    quick.bm3d.profile = Bm3dProfile::Draft;  // for time; the transform is the same for every profile
    // The tracker's warm-up: after model_time_constant (4) frames every populated
    // level set has as many estimates; frames 4 and 5 are measured.
    const double constant = stream_psnr(quick, clean.view(), a, b, 6, 4, nullptr, 4);
    const double given = stream_psnr(with_signal_model(quick, a, b), clean.view(), a, b, 6, 4, nullptr, 4);
    const double estimated = stream_psnr(estimated_signal_model(quick), clean.view(), a, b, 6, 4);
    std::printf("%s: sigma auto %.2f dB, the true model %.2f, the model estimated %.2f\n", photo, constant, given,
                estimated);
    EXPECT_GT(estimated, given - 0.3) << photo;  // issue 37's target
    EXPECT_GT(estimated, constant) << photo;
  }
}

}  // namespace
}  // namespace cdn
