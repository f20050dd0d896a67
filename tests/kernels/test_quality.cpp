// test_quality.cpp: PI-PD and hybrid on real photos (Debian's python3-skimage
// images, fetched by scripts/fetch-test-data.sh) with AWGN sigma = 25 and a
// fixed seed, on the CPU backend, at the paper's settings and at the ones
// docs/PIPD.md recommends for quality. Prints the PSNR gain of every image and
// configuration it uses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

#include "convert.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "image_io.h"
#include "cudadenoise/stream_denoiser.h"
#include "test_support.h"

namespace cdn {
namespace {

// One configuration of the filter.
struct Config {
  const char* name;
  Mode mode;
  PipdParams params;
};

PipdParams with(int thickness, int prefilter) {
  PipdParams p;
  p.thickness = thickness;
  p.direction_prefilter = prefilter;
  return p;
}

// The paper's algorithm at its defaults, with thick isolines and with the
// direction prefilter (not in the paper), then the settings docs/PIPD.md
// recommends for quality (pipd_quality_params()).
const Config kConfigs[] = {
    {"pipd", Mode::Pipd, with(1, 0)},        {"hybrid", Mode::Hybrid, with(1, 0)},
    {"pipd t3", Mode::Pipd, with(3, 0)},     {"hybrid t3", Mode::Hybrid, with(3, 0)},
    {"pipd pf1", Mode::Pipd, with(1, 1)},    {"hybrid pf1", Mode::Hybrid, with(1, 1)},
    {"pipd quality", Mode::Pipd, pipd_quality_params()}, {"hybrid quality", Mode::Hybrid, pipd_quality_params()},
};
constexpr int kNumConfigs = sizeof(kConfigs) / sizeof(kConfigs[0]);

struct Row {
  double noisy;
  double gain[kNumConfigs];  // PSNR over the noisy image, dB
};

// Luma of the image (colour images through BT.601), noisy copy, every configuration.
Row measure(const std::string& file) {
  const tools::Image img = tools::to_8bit(tools::read_image(test::test_data_dir() + "/" + file));
  const HostFrame frame = tools::image_to_frame(img);
  const PlaneView clean = components(frame.view())[0];
  HostFrame noisy(PixelFormat::GRAY8, clean.width, clean.height), out(PixelFormat::GRAY8, clean.width, clean.height);
  const PlaneView n = components(noisy.view())[0];
  for (int y = 0; y < clean.height; ++y)
    for (int x = 0; x < clean.width; ++x) n.set(x, y, clean.get(x, y));
  add_gaussian_noise(n, 25.0, 2024);
  Row r;
  r.noisy = psnr(n, clean);
  std::printf("%-14s %4dx%-4d noisy %6.2f |", file.c_str(), clean.width, clean.height, r.noisy);
  for (int c = 0; c < kNumConfigs; ++c) {
    DenoiseSettings s;
    s.mode = kConfigs[c].mode;
    s.pipd = kConfigs[c].params;
    test::denoise_frame(Backend::Cpu, s, noisy.view(), out.view());
    r.gain[c] = psnr(components(out.view())[0], clean) - r.noisy;
    std::printf(" %s %+5.2f", kConfigs[c].name, r.gain[c]);
  }
  std::printf("\n");
  return r;
}

double gain(const Row& r, const char* config) {
  for (int c = 0; c < kNumConfigs; ++c)
    if (std::string(kConfigs[c].name) == config) return r.gain[c];
  throw std::logic_error(std::string("no configuration ") + config);
}

TEST(Quality, RealPhotosSigma25) {
  std::map<std::string, Row> rows;
  for (const char* file : {"camera.png", "moon.png", "astronaut.png", "coffee.png", "chelsea.png", "brick.png",
                           "grass.png", "gravel.png"}) {
    try {
      rows[file] = measure(file);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << " (run scripts/fetch-test-data.sh)";
    }
  }
  ASSERT_TRUE(rows.count("camera.png"));
  for (const auto& [file, r] : rows) {
    // AWGN of sigma 25 on 8-bit content: about 20.2 dB before clipping at 0 and 255.
    EXPECT_NEAR(r.noisy, 20.2, 0.8) << file;
    for (int c = 0; c < kNumConfigs; ++c) EXPECT_GT(r.gain[c], 0.0) << file << " " << kConfigs[c].name;
    // Picking directions on a smoothed copy helps on every photo at the paper's thickness.
    EXPECT_GT(gain(r, "pipd pf1"), gain(r, "pipd") + 0.5) << file;
    EXPECT_GT(gain(r, "hybrid pf1"), gain(r, "hybrid") + 0.5) << file;
  }
  const Row& cam = rows["camera.png"];
  // The project's target: +6 dB on camera.png for both modes. Met by the
  // recommended settings (docs/PIPD.md, "Direction prefilter").
  EXPECT_GE(gain(cam, "pipd quality"), 6.0) << "PI-PD, direction-prefilter=1 thickness=3, on camera.png";
  EXPECT_GE(gain(cam, "hybrid quality"), 6.0) << "hybrid, direction-prefilter=1 thickness=3 t2max=1, on camera.png";
  // The paper's algorithm at its defaults does not reach it on this image (no
  // faithful reading does; docs/PIPD.md): regression guards at its measured gains.
  EXPECT_GE(gain(cam, "pipd"), 3.6) << "PI-PD on camera.png";
  EXPECT_GE(gain(cam, "hybrid"), 4.5) << "hybrid on camera.png";
  EXPECT_GE(gain(cam, "pipd t3"), 5.0) << "PI-PD thickness 3 on camera.png";
  ASSERT_TRUE(rows.count("moon.png"));
  EXPECT_GE(gain(rows["moon.png"], "hybrid"), 7.0) << "hybrid on moon.png (smooth content)";
}

// Squared error against `clean` and the number of unchanged samples, over the
// outermost one-pixel ring of the plane or over everything inside it.
struct Region {
  double squared_error = 0, noisy_squared_error = 0;
  long samples = 0, unchanged = 0;
  double gain() const { return 10 * std::log10(noisy_squared_error / squared_error); }  // dB
  double unchanged_share() const { return double(unchanged) / samples; }
};

TEST(Quality, OutermostRingIsDenoisedLikeTheInterior) {
  // Issue 13 item 11: PI-PD left the ring as it was (the segment pointing out of
  // the frame read the clamped centre pixel l times, had no variance and won);
  // hybrid changed about a third of it. Every configuration must now reduce the
  // ring's noise by at least half as many dB as the interior's, and leave at most
  // twice the interior's share of its samples unchanged (plus 2 points).
  for (const char* file : {"camera.png", "astronaut.png"}) {
    tools::Image img;
    try {
      img = tools::to_8bit(tools::read_image(test::test_data_dir() + "/" + file));
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << " (run scripts/fetch-test-data.sh)";
      continue;
    }
    const HostFrame frame = tools::image_to_frame(img);
    const PlaneView clean = components(frame.view())[0];
    const int w = clean.width, h = clean.height;
    HostFrame noisy(PixelFormat::GRAY8, w, h), out(PixelFormat::GRAY8, w, h);
    const PlaneView n = components(noisy.view())[0], o = components(out.view())[0];
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) n.set(x, y, clean.get(x, y));
    add_gaussian_noise(n, 25.0, 2024);
    for (const Config& c : kConfigs) {
      DenoiseSettings s;
      s.mode = c.mode;
      s.pipd = c.params;
      StreamDenoiser::create(Backend::Cpu, s, PixelFormat::GRAY8, w, h)->process(noisy.view(), out.view());
      Region ring, inner;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          Region& r = (x == 0 || y == 0 || x == w - 1 || y == h - 1) ? ring : inner;
          const int z = clean.get(x, y), before = n.get(x, y), after = o.get(x, y);
          r.squared_error += double(after - z) * (after - z);
          r.noisy_squared_error += double(before - z) * (before - z);
          ++r.samples;
          if (after == before) ++r.unchanged;
        }
      std::printf("%-14s %-15s ring %+5.2f dB, %4.1f%% unchanged | interior %+5.2f dB, %4.1f%% unchanged\n", file,
                  c.name, ring.gain(), 100 * ring.unchanged_share(), inner.gain(), 100 * inner.unchanged_share());
      EXPECT_GE(ring.gain(), 0.5 * inner.gain()) << file << " " << c.name;
      EXPECT_LE(ring.unchanged_share(), 2 * inner.unchanged_share() + 0.02) << file << " " << c.name;
    }
  }
}

}  // namespace
}  // namespace cdn
