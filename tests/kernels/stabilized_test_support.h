// stabilized_test_support.h: what the tests of the variance-stabilising stage
// in the stream share (test_stream_stabilized.cpp, its quality suite
// test_stream_stabilized_quality.cpp): a photo crop in every component, noise
// of variance a x + b on it (the library's add_signal_dependent_noise, issue
// 37's protocol), the settings of a stream with a given or estimated signal
// model, and one frame or a stream of frames through the CPU backend.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_denoiser.h"
#include "noise_test_support.h"

namespace cdn::test {

constexpr int kStabilizedW = 192, kStabilizedH = 144;

// The clean photo crop in every component of a frame of `format`.
inline HostFrame clean_frame(const LumaSource& src, PixelFormat format, int x0 = 40, int y0 = 60) {
  HostFrame h(format, kStabilizedW, kStabilizedH);
  for (const PlaneView& p : components(h.view())) render(crop(src, x0, y0, p.width, p.height), 0.0, 0, p);
  return h;
}

// `clean` with noise of variance a x + b in every sample (x the clean 8-bit value).
inline HostFrame noisy_copy(const FrameView& clean, double a, double b, std::uint64_t seed) {
  HostFrame h(clean.format, clean.width, clean.height);
  copy_host_frame(clean, h.view());
  add_signal_dependent_noise(h.view(), a, b, seed);
  return h;
}

// The true mean noise std of var = a x + b over the luma of `clean` (8-bit code values).
inline double mean_sigma(const FrameView& clean, double a, double b) {
  const PlaneView y = components(clean)[0];
  double sum = 0;
  for (int r = 0; r < y.height; ++r)
    for (int x = 0; x < y.width; ++x) sum += a * y.get(x, r) + b;
  return std::sqrt(sum / (static_cast<double>(y.width) * y.height));
}

inline DenoiseSettings bm3d(double sigma = 0) {
  DenoiseSettings s;
  s.mode = Mode::Bm3d;
  s.sigma = sigma;
  return s;
}

// `s` behind the transform of the given model var = a x + b.
inline DenoiseSettings with_signal_model(DenoiseSettings s, double a, double b) {
  s.sigma = 0;
  s.noise_model = NoiseModelKind::Signal;
  s.noise_a = a;
  s.noise_b = b;
  return s;
}

// `s` behind the transform of the signal model estimated from the frames.
inline DenoiseSettings estimated_signal_model(DenoiseSettings s) {
  s.sigma = 0;
  s.noise_model = NoiseModelKind::Signal;
  return s;
}

inline HostFrame process(const DenoiseSettings& s, const FrameView& in) {
  auto d = StreamDenoiser::create(Backend::Cpu, s, in.format, in.width, in.height);
  HostFrame out(in.format, in.width, in.height);
  d->process(in, out.view());
  return out;
}

inline double luma_psnr(const FrameView& a, const FrameView& b) { return psnr(components(a)[0], components(b)[0]); }

// Frames first .. frames - 1 of one photo crop with fresh noise of variance
// a x + b each (frame t's noise the same in every call), through a stream; the
// mean luma PSNR of the frames from `from` on.
inline double stream_psnr(const DenoiseSettings& s, const FrameView& clean, double a, double b, int frames, int from,
                          std::vector<HostFrame>* outs = nullptr, int first = 0) {
  auto d = StreamDenoiser::create(Backend::Cpu, s, clean.format, clean.width, clean.height);
  double sum = 0;
  for (int t = first; t < frames; ++t) {
    const HostFrame in = noisy_copy(clean, a, b, 300 + t);
    HostFrame out(clean.format, clean.width, clean.height);
    d->process(in.view(), out.view());
    if (t >= from) sum += luma_psnr(out.view(), clean);
    if (outs) outs->push_back(std::move(out));
  }
  return sum / (frames - from);
}

}  // namespace cdn::test
