// cmd_prepare.cpp: `cudadenoise-eval prepare`: the clean and the noisy input of
// one condition. A PNG photo becomes a GRAY8 or Y444 (BT.601 full range) frame
// as cudadenoise-image makes it; a y4m clip is read as it is. Optionally cut to
// a region, to luma only, to frames [start, start + frames). For a photo,
// --frames N repeats it N times (each copy gets its own noise: the timing stream
// of the FFmpeg peers; --loop does the same for a clip). The noisy frames get
// one kind of noise, frame f seeded with seed-base + f: AWGN of --sigma (8-bit
// code values) in every plane, or Gaussian noise of variance a x + b (--noise-a,
// --noise-b; kernels/include/cudadenoise/noise.h), or the camera model's noise
// at one of its two light levels (--camera-noise; camera_noise.h: colour frames
// only; --camera-clean-out writes the camera pipeline's frames without noise,
// the reference its noisy frames are measured against, as the pipeline itself
// changes the frames: BT.709 limited-range gamut, 4:2:0 chroma). The JSON line
// says what was added and what it measures on the luma (noise_stats.h).
// --as-i420 turns
// GRAY8 frames into I420 ones with the same luma and neutral chroma (128), for
// a peer that takes no gray frames (the harness takes the luma back with --gray).
#include <cstdio>
#include <string>

#include "commands.h"
#include "convert.h"
#include "cudadenoise/camera_noise.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "flags.h"
#include "frame_ops.h"
#include "image_io.h"
#include "json.h"
#include "noise_stats.h"
#include "y4m.h"

namespace cdn::eval {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* range_name(Range r) { return r == Range::Full ? "full" : r == Range::Limited ? "limited" : "unknown"; }

// The noise of one condition (one kind at most; the flags' conflicts are usage errors).
struct NoiseChoice {
  enum Kind { None, Awgn, Signal, Camera } kind = None;
  double sigma = 0, a = 0, b = 0;
  std::string camera;  // bright or low
  CameraNoise camera_noise;
};

NoiseChoice noise_choice(const tools::FlagParser& flags, double sigma, double a, double b, const std::string& camera) {
  const bool signal = flags.was_set("--noise-a") || flags.was_set("--noise-b");
  const int kinds = (sigma > 0) + signal + !camera.empty();
  if (kinds > 1)
    throw tools::UsageError("give one kind of noise: --sigma (AWGN), --noise-a and --noise-b (variance a x + b) or "
                            "--camera-noise");
  if (signal && !(flags.was_set("--noise-a") && flags.was_set("--noise-b")))
    throw tools::UsageError("--noise-a and --noise-b go together (variance a x + b)");
  NoiseChoice n;
  n.sigma = sigma, n.a = a, n.b = b, n.camera = camera;
  if (signal) {
    if (a * 255 + b <= 0) throw tools::UsageError("--noise-a and --noise-b give no noise over 0..255");
    n.kind = NoiseChoice::Signal;
  } else if (!camera.empty()) {
    n.kind = NoiseChoice::Camera;
    n.camera_noise = camera_noise_for_shot(camera == "bright" ? kCameraShotBright : kCameraShotLowLight);
  } else if (sigma > 0) {
    n.kind = NoiseChoice::Awgn;
  }
  return n;
}

void add_noise(const NoiseChoice& n, const FrameView& f, std::uint64_t seed) {
  switch (n.kind) {
    case NoiseChoice::None: break;
    case NoiseChoice::Awgn: add_gaussian_noise(f, n.sigma, seed); break;
    case NoiseChoice::Signal: add_signal_dependent_noise(f, n.a, n.b, seed); break;
    case NoiseChoice::Camera: add_camera_noise(f, f, n.camera_noise, seed); break;
  }
}

// What was added, and what it measures on the luma (noise_stats.h) against `clean`
// (for the camera model: its frames without noise).
void describe_noise(const NoiseChoice& n, const std::vector<HostFrame>& clean, const std::vector<HostFrame>& noisy,
                    tools::Json& j) {
  static const char* const kNames[] = {"none", "awgn", "signal", "camera"};
  j["noise"] = kNames[n.kind];
  if (n.kind == NoiseChoice::None || noisy.empty()) return;
  if (n.kind == NoiseChoice::Signal) {
    j["noise_a"] = n.a, j["noise_b"] = n.b;
    j["true_sigma_luma"] = model_mean_sigma(clean, n.a, n.b);
  } else if (n.kind == NoiseChoice::Awgn) {
    j["true_sigma_luma"] = n.sigma;
  } else {
    j["camera_noise"] = n.camera, j["camera_shot"] = n.camera_noise.shot, j["camera_read"] = n.camera_noise.read;
  }
  const ResidualNoise r = residual_noise(clean, noisy);
  // the camera model has no sigma of its own: the residual's RMS is its true sigma
  if (n.kind == NoiseChoice::Camera) j["true_sigma_luma"] = r.rms;
  j["residual_rms_luma"] = r.rms;
  j["residual_fit_usable"] = r.fit.usable;
  j["residual_fit_a"] = r.fit.a, j["residual_fit_b"] = r.fit.b;
}

}  // namespace

int cmd_prepare(int argc, const char* const* argv) {
  tools::FlagParser flags;
  std::string input, crop, clean_out, noisy_out, camera, camera_clean_out;
  double sigma = 0, start = 0, frames = 0, noise_a = 0, noise_b = 0;
  std::uint64_t seed_base = 1;
  bool gray = false, as_i420 = false, loop = false, help = false;
  flags.add_string("--input", "PATH", "a PNG photo or a y4m clip", &input);
  flags.add_string("--crop", "WxH+X+Y", "keep this region", &crop);
  flags.add_switch("--gray", "keep the luma plane only", &gray);
  flags.add_switch("--loop", "a clip with fewer than --frames frames is repeated from its first frame", &loop);
  flags.add_switch("--as-i420", "GRAY8 -> I420 with the same luma and chroma 128", &as_i420);
  flags.add_number("--start", "N", "first frame of a clip (default 0)", 0, 1e9, &start);
  flags.add_number("--frames", "N", "frames: of a clip (default: all), copies of a photo (default 1)", 0, 1e9, &frames);
  flags.add_number("--sigma", "S", "AWGN std in 8-bit code values (default 0: none)", 0, 255, &sigma);
  flags.add_number("--noise-a", "A",
                   "instead of --sigma: Gaussian noise of variance A x + B (x the clean sample, 8-bit code values)",
                   0, 64, &noise_a);
  flags.add_number("--noise-b", "B", "with --noise-a", -4096, 65025, &noise_b);
  flags.add_choice("--camera-noise", {"bright", "low"},
                   "instead of --sigma: the camera model's noise (camera_noise.h) at its bright or low light level; "
                   "colour frames only",
                   &camera);
  flags.add_uint64("--seed-base", "B", "frame f gets seed B + f (default 1)", &seed_base);
  flags.add_string("--clean-out", "PATH", "write the clean frames (y4m)", &clean_out);
  flags.add_string("--noisy-out", "PATH", "write the noisy frames (y4m)", &noisy_out);
  flags.add_string("--camera-clean-out", "PATH",
                   "with --camera-noise: write the camera pipeline's frames without noise (y4m), the noisy frames' "
                   "reference",
                   &camera_clean_out);
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("prepare takes no positional arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval prepare --input PATH [options]\n\n%s", flags.help().c_str());
    return kOk;
  }
  if (input.empty()) throw tools::UsageError("--input is required");
  if (clean_out.empty() && noisy_out.empty()) throw tools::UsageError("give --clean-out and/or --noisy-out");
  const NoiseChoice noise = noise_choice(flags, sigma, noise_a, noise_b, camera);
  if (noise.kind != NoiseChoice::None && noisy_out.empty())
    throw tools::UsageError("noise is added to the --noisy-out frames: give --noisy-out");
  if (!camera_clean_out.empty() && noise.kind != NoiseChoice::Camera)
    throw tools::UsageError("--camera-clean-out goes with --camera-noise");

  Y4mInfo info;
  std::vector<HostFrame> clean;
  if (ends_with(input, ".png") || ends_with(input, ".PNG") || ends_with(input, ".pgm")) {
    const tools::Image img = tools::to_8bit(tools::read_image(input));
    HostFrame f = tools::image_to_frame(img);
    info.format = f.view().format;
    info.range = Range::Full;
    const int copies = frames > 0 ? static_cast<int>(frames) : 1;
    for (int i = 0; i < copies; ++i) clean.push_back(clone_frame(f.view()));
  } else {
    Y4mReader r(input);
    info = r.info();
    const int first = static_cast<int>(start), count = frames > 0 ? static_cast<int>(frames) : -1;
    for (int i = 0; count < 0 || static_cast<int>(clean.size()) < count; ++i) {
      HostFrame f(info.format, info.width, info.height);
      if (!r.read(f.view())) break;
      if (i >= first) clean.push_back(std::move(f));
    }
    for (std::size_t i = 0; loop && count > 0 && !clean.empty() && static_cast<int>(clean.size()) < count; ++i)
      clean.push_back(clone_frame(clean[i].view()));
    if (clean.empty() || (count > 0 && static_cast<int>(clean.size()) < count))
      throw Y4mError(input + ": has fewer than " + std::to_string(first + std::max(count, 1)) + " frames");
  }
  for (HostFrame& f : clean) {
    if (!crop.empty()) f = crop_frame(f.view(), parse_region("--crop", crop));
    if (gray) f = luma_frame(f.view());
    if (as_i420) f = gray_to_i420(f.view());
  }
  info.format = clean[0].view().format;
  info.width = clean[0].view().width;
  info.height = clean[0].view().height;
  if (noise.kind == NoiseChoice::Camera && info.format != PixelFormat::I420 && info.format != PixelFormat::NV12 &&
      info.format != PixelFormat::Y444)
    throw tools::UsageError(std::string("--camera-noise needs colour frames (I420, NV12 or Y444), not ") +
                            format_name(info.format));
  std::vector<HostFrame> noisy, camera_clean;
  if (!noisy_out.empty())
    for (std::size_t i = 0; i < clean.size(); ++i) {
      noisy.push_back(clone_frame(clean[i].view()));
      add_noise(noise, noisy.back().view(), seed_base + i);
    }
  if (noise.kind == NoiseChoice::Camera)
    for (const HostFrame& f : clean) {
      camera_clean.push_back(clone_frame(f.view()));
      add_camera_noise(f.view(), camera_clean.back().view(), CameraNoise{}, 0);
    }
  if (!clean_out.empty()) write_y4m(clean_out, info, clean);
  if (!camera_clean_out.empty()) write_y4m(camera_clean_out, info, camera_clean);
  if (!noisy_out.empty()) write_y4m(noisy_out, info, noisy);
  tools::Json j;
  j["width"] = info.width, j["height"] = info.height, j["format"] = format_name(info.format);
  j["frames"] = static_cast<int>(clean.size()), j["range"] = range_name(info.range);
  j["fps_num"] = info.fps_num, j["fps_den"] = info.fps_den, j["sigma"] = sigma;
  describe_noise(noise, noise.kind == NoiseChoice::Camera ? camera_clean : clean, noisy, j);
  if (noise.kind == NoiseChoice::Camera) {
    double m = 0;   // the camera pipeline without noise against the input, luma
    for (std::size_t i = 0; i < clean.size(); ++i)
      m += mse(components(clean[i].view())[0], components(camera_clean[i].view())[0]) / clean.size();
    j["camera_clean_psnr_luma"] = psnr_from_mse(m, 255);
  }
  std::printf("%s\n", tools::json_line(j).c_str());
  return kOk;
}

}  // namespace cdn::eval
