// tracker_model_test_support.h: what the tests of the noise model over
// frames share (test_noise_tracker_model.cpp, its quality suite
// test_noise_tracker_model_quality.cpp): real photos as static frames with
// fresh noise of variance a x + b every frame (issue 37's protocol,
// noise_test_support.h), a tracker with the model on, and its luma model after
// a number of frames.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"
#include "noise_test_support.h"

namespace cdn::test {

inline const LumaSource& photo(const std::string& file) {
  static std::vector<std::pair<std::string, LumaSource>> cache;
  for (const auto& [name, s] : cache)
    if (name == file) return s;
  cache.emplace_back(file, photo_luma(file));
  return cache.back().second;
}

// Frame t: the photo as it is, noise of variance a x + b drawn afresh.
inline HostFrame noisy_frame(const LumaSource& src, double a, double b, int t, PixelFormat format = PixelFormat::GRAY8) {
  HostFrame f(format, src.width & ~1, src.height & ~1);
  const auto comps = components(f.view());
  for (std::size_t c = 0; c < comps.size(); ++c) {
    const LumaSource window = c == 0 ? src : crop(src, 0, 0, comps[c].width, comps[c].height);
    render_signal_dependent(window, a, b, 1000 * t + 17 * c + 5, comps[c]);
  }
  return f;
}

inline NoiseTrackerSettings with_model() {
  NoiseTrackerSettings s;
  s.model = true;
  return s;
}

// The luma model after `frames` frames of var = a x + b (flushed: every frame in).
inline NoiseModel track(const LumaSource& src, double a, double b, int frames, NoiseTracker& t) {
  for (int i = 0; i < frames; ++i) t.observe(noisy_frame(src, a, b, i).view());
  t.flush();
  return t.model()[0];
}

inline int usable_levels(const NoiseModel& m) {
  int n = 0;
  for (const NoiseModelLevel& l : m.levels) n += l.usable();
  return n;
}

// The photos whose populated intensities span most of the range (the others,
// moon, brick and text, populate two or three level sets next to each other).
inline const char* const kWidePhotos[] = {"astronaut.png", "coffee.png", "chelsea.png", "camera.png"};

}  // namespace cdn::test
