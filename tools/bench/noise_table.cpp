// cudadenoise-noise-bench: the tables of docs/NOISE.md.
//
// 1. Accuracy: the estimator (kernels/include/cudadenoise/noise_level.h, whole plane, default
//    options) on the luma of real images with AWGN of known sigma, 8 and 10
//    bit: error in % of the true sigma, mean of 3 noise seeds, and the reading
//    on the image as it is (its own noise, or texture read as noise). Images:
//    the test photos (--data) and any PNG frames in --frames (the evaluation
//    clips' luma, scripts/noise-frames.sh).
// 2. Cost: CPU time of the per-frame estimate a NoiseTracker makes (its default
//    budget, started from the previous frame's sigma) per 1080p and 4K plane,
//    NV12 content tiled from a photo with AWGN sigma 25 (bench/content.h), and
//    the bytes a device frame's sampled rows take to copy.
// Times are thread CPU time (clock_gettime CLOCK_THREAD_CPUTIME_ID), median of
// --iterations frames, single thread.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dirent.h>
#include <string>
#include <vector>

#include "content.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/noise_level.h"
#include "cudadenoise/noise_tracker.h"
#include "flags.h"
#include "image_io.h"
#include "luma_source.h"

namespace {

using namespace cdn;
using tools::image_luma;
using tools::LumaSource;
using tools::read_image;
using tools::render_noisy;

struct Luma {
  std::string name;
  LumaSource source;
};

Luma load_luma(const std::string& path, const std::string& name) { return {name, image_luma(read_image(path))}; }

struct Plane16 {
  std::vector<std::uint16_t> buf;
  PlaneView view;
  Plane16(int w, int h, int depth) : buf(static_cast<std::size_t>(w) * h) {
    view.data = buf.data();
    view.pitch = static_cast<std::size_t>(w) * 2;
    view.width = w;
    view.height = h;
    view.bytes_per_sample = 2;
    view.bit_depth = depth;
  }
};

void accuracy(const std::vector<Luma>& images, int depth, int seeds) {
  const double sigmas[] = {2, 3, 5, 10, 20, 30, 50};
  std::printf("\n%d-bit: error in %% of the true sigma (mean of %d seeds); 'own': the reading with no noise added\n",
              depth, seeds);
  std::printf("| image | own |");
  for (double s : sigmas) std::printf(" %g |", s);
  std::printf("\n| --- | --- |");
  for (std::size_t i = 0; i < std::size(sigmas); ++i) std::printf(" --- |");
  std::printf("\n");
  for (const Luma& l : images) {
    Plane16 p(l.source.width, l.source.height, depth);
    render_noisy(l.source, 0, 0, p.view);
    const NoiseLevel own = estimate_noise_level(p.view);
    std::printf("| %s | %.2f |", l.name.c_str(), own.usable ? own.sigma : 0.0);
    for (double s : sigmas) {
      double sum = 0;
      for (int k = 0; k < seeds; ++k) {
        render_noisy(l.source, s, 1000 + 100 * k + static_cast<int>(s), p.view);
        sum += (estimate_noise_level(p.view).sigma - s) / s;
      }
      std::printf(" %+.1f |", 100 * sum / seeds);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
}

double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void cost(const std::string& data_dir, int iterations) {
  const HostFrame src = bench::source_picture(data_dir);
  const NoiseTrackerSettings ts;
  std::printf("\nCPU time per plane of the tracker's per-frame estimate (budget %d patches for the luma, the same"
              " density for the chroma; covariance of at most %d; started from the previous sigma), thread CPU time,"
              " median of %d frames; NV12, AWGN sigma 25. A frame: Y + 2 U.\n",
              ts.budget, ts.max_selected, iterations);
  std::printf("| frame | plane | candidates | selected | warm (ms) | cold start (ms) | rows copied from a device frame |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (auto [w, h] : {std::pair{1920, 1080}, {3840, 2160}}) {
    const HostFrame frame = bench::make_frame(src.view(), PixelFormat::NV12, w, h);
    const auto comps0 = components(frame.view());
    double frame_warm = 0, frame_cold = 0;
    for (int c = 0; c < 2; ++c) {  // Y, then U (V costs the same)
      const int budget = component_budget(ts.budget, comps0[0], comps0[c]);
      NoiseLevelEstimator e;
      std::vector<double> warm, cold;
      NoiseLevel last;
      for (int i = 0; i < iterations; ++i) {
        const PlaneView& p = comps0[c];
        const PatchSampling s = patch_sampling(p.width, p.height, budget, i);
        NoiseLevelOptions o;
        o.max_selected = ts.max_selected;
        double t0 = thread_seconds();
        const NoiseLevel first = e.estimate(p, s, o);
        cold.push_back(thread_seconds() - t0);
        o.start_sigma = first.sigma;
        t0 = thread_seconds();
        last = e.estimate(p, s, o);
        warm.push_back(thread_seconds() - t0);
      }
      const PatchSampling s = patch_sampling(comps0[c].width, comps0[c].height, budget, 0);
      frame_warm += (c == 0 ? 1 : 2) * median(warm);
      frame_cold += (c == 0 ? 1 : 2) * median(cold);
      const double rows = static_cast<double>(s.bands) * kNoisePatch;
      std::printf("| %dx%d | %s (%dx%d) | %d | %d | %.2f | %.2f | %.0f of %d rows (%.0f %%) |\n", w, h,
                  c == 0 ? "Y" : "U", comps0[c].width, comps0[c].height, last.candidates, last.selected,
                  1e3 * median(warm), 1e3 * median(cold), rows, comps0[c].height, 100 * rows / comps0[c].height);
      std::fflush(stdout);
    }
    std::printf("| %dx%d | frame (Y, U, V) | | | %.2f | %.2f | |\n", w, h, 1e3 * frame_warm, 1e3 * frame_cold);
  }
}

std::vector<std::string> png_files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 4 && n.compare(n.size() - 4, 4, ".png") == 0) out.push_back(n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tools::FlagParser flags;
  std::string data = ".testdata", frames_dir;
  double iterations = 15, seeds = 3;
  bool help = false, no_accuracy = false, no_cost = false;
  flags.add_string("--data", "DIR", "the test photos (default .testdata)", &data);
  flags.add_string("--frames", "DIR", "PNG frames of clips (luma) to add to the accuracy table", &frames_dir);
  flags.add_number("--iterations", "N", "frames timed per plane (default 15)", 1, 1000, &iterations);
  flags.add_number("--seeds", "N", "noise seeds per accuracy cell (default 3)", 1, 100, &seeds);
  flags.add_switch("--no-accuracy", "skip the accuracy tables", &no_accuracy);
  flags.add_switch("--no-cost", "skip the cost table", &no_cost);
  flags.add_switch("-h,--help", "show this help", &help);
  try {
    if (!flags.parse(argc, argv).empty()) throw tools::UsageError("no positional arguments");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-noise-bench: %s\n", e.what());
    return 2;
  }
  if (help) {
    std::printf("Usage: cudadenoise-noise-bench [--data DIR] [--frames DIR] [--iterations N] [--seeds N]\n\n%s",
                flags.help().c_str());
    return 0;
  }
  try {
    if (!no_accuracy) {
      std::vector<Luma> images;
      for (const char* n : {"camera", "chelsea", "moon", "brick", "astronaut", "coffee", "text", "grass", "gravel"})
        images.push_back(load_luma(data + "/" + n + ".png", n));
      if (!frames_dir.empty())
        for (const std::string& f : png_files(frames_dir)) images.push_back(load_luma(frames_dir + "/" + f, f));
      for (int depth : {8, 10}) accuracy(images, depth, static_cast<int>(seeds));
    }
    if (!no_cost) cost(data, static_cast<int>(iterations));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-noise-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
