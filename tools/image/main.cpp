// main.cpp: cudadenoise-image, denoises one image file (or the built-in test
// picture) and reports PSNR/SSIM against a clean reference and the time taken.
//
//   cudadenoise-image -o denoised.png                 # built-in picture, AWGN 25
//   cudadenoise-image noisy.png --reference clean.png --mode hybrid --json
//   cudadenoise-image noisy.png --mode nlm3d --sigma auto    # a one-frame stream
//
// Exit codes: 0 ok, 2 bad arguments, 3 unreadable input, 4 CUDA error,
// 5 output not writable. All the work is in kernels/ and tools/common/.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "convert.h"
#include "error.h"
#include "flags.h"
#include "image_io.h"
#include "json.h"
#include "metrics.h"
#include "noise.h"
#include "options.h"
#include "stream_pump.h"
#include "test_picture.h"

namespace {

using namespace cdn;
using namespace cdn::tools;

enum Exit { kOk = 0, kUsage = 2, kUnreadable = 3, kCuda = 4, kUnwritable = 5 };

struct Failure {
  int code;
  std::string message;
};

Image load(const std::string& path) {
  try {
    return read_image(path);
  } catch (const ImageError& e) {
    throw Failure{kUnreadable, e.what()};
  }
}

void save(const std::string& path, const Image& image) {
  try {
    write_image(path, image);
  } catch (const ImageError& e) {
    throw Failure{kUnwritable, e.what()};
  }
}

const char* describe(const Image& img) {
  static const char* kNames[] = {"gray", "gray+alpha", "RGB", "RGBA"};
  return kNames[img.channels - 1];
}

// Colour is filtered as 8-bit Y444: 16-bit colour images are reduced first.
Image prepare(Image img, const std::string& name, bool quiet) {
  if (img.is_colour() && img.bit_depth == 16) {
    if (!quiet) std::fprintf(stderr, "note: %s: 16-bit colour is filtered as 8-bit Y444\n", name.c_str());
    img = to_8bit(img);
  }
  return img;
}

int run(const ImageOptions& o) {
  const std::string name = o.input.empty() ? "builtin" : o.input;
  Image input = prepare(o.input.empty() ? make_test_picture() : load(o.input), name, o.json);

  // The clean reference: --reference, else the input itself when noise is added to it.
  bool have_reference = false;
  Image reference;
  if (!o.reference.empty()) {
    reference = prepare(load(o.reference), o.reference, o.json);
    if (reference.width != input.width || reference.height != input.height ||
        reference.colour_channels() != input.colour_channels() || reference.bit_depth != input.bit_depth)
      throw Failure{kUsage, "--reference " + o.reference + " does not match the input's size and format"};
    have_reference = true;
  } else if (o.noise_sigma > 0) {
    reference = input;
    have_reference = true;
  }

  Image noisy = input;
  if (o.noise_sigma > 0) add_gaussian_noise(noisy.colour_views(), o.noise_sigma, o.seed);
  if (!o.save_noisy.empty()) save(o.save_noisy, noisy);

  HostFrame in = image_to_frame(noisy);
  const FrameView& iv = in.view();
  HostFrame out(iv.format, iv.width, iv.height);
  // Every mode as a stream of one frame (a temporal mode's window holds just it).
  auto stream = StreamDenoiser::create(o.backend, o.settings, iv.format, iv.width, iv.height);
  const Backend used = stream->backend();
  int frames = 0;
  FunctionSink sink([&] { return out.view(); }, [&] { return ++frames > 0; });
  const auto t0 = std::chrono::steady_clock::now();
  feed(*stream, iv, sink);
  drain(*stream, sink);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (frames != 1) throw Error("the denoiser gave " + std::to_string(frames) + " frames for one");

  Image result = noisy;  // keeps alpha
  frame_to_image(out.view(), result);
  if (!o.output.empty()) save(o.output, result);

  Quality q_noisy{}, q_out{};
  if (have_reference) {
    q_noisy = quality(reference.colour_views(), noisy.colour_views());
    q_out = quality(reference.colour_views(), result.colour_views());
  }

  if (o.json) {
    Json j;
    j["input"] = name, j["mode"] = mode_name(o.settings.mode), j["backend"] = backend_name(used);
    j["width"] = input.width, j["height"] = input.height;
    j["psnr_noisy"] = j["psnr_out"] = j["ssim_noisy"] = j["ssim_out"] = nullptr;
    if (have_reference) {
      j["psnr_noisy"] = q_noisy.psnr, j["psnr_out"] = q_out.psnr;
      j["ssim_noisy"] = q_noisy.ssim, j["ssim_out"] = q_out.ssim;
    }
    j["ms"] = ms;
    std::printf("%s\n", json_line(j).c_str());
    return kOk;
  }
  std::printf("input:    %s, %dx%d %s %d-bit", name.c_str(), input.width, input.height, describe(input),
              input.bit_depth);
  if (o.noise_sigma > 0) std::printf(", AWGN sigma %g seed %llu", o.noise_sigma, (unsigned long long)o.seed);
  std::printf("\nfilter:   %s, planes %s, %s backend: %.2f ms\n", mode_name(o.settings.mode),
              planes_name(o.settings.planes), backend_name(used), ms);
  if (have_reference) {
    std::printf("noisy:    PSNR %6.2f dB  SSIM %.4f\n", q_noisy.psnr, q_noisy.ssim);
    std::printf("denoised: PSNR %6.2f dB  SSIM %.4f\n", q_out.psnr, q_out.ssim);
  } else {
    std::printf("no reference: give --reference CLEAN or --add-noise SIGMA for PSNR/SSIM\n");
  }
  if (!o.save_noisy.empty()) std::printf("wrote %s\n", o.save_noisy.c_str());
  if (!o.output.empty()) std::printf("wrote %s\n", o.output.c_str());
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  ImageOptions options;
  try {
    options = parse_image_options(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "cudadenoise-image: %s (see --help)\n", e.what());
    return kUsage;
  }
  if (options.help) {
    std::fputs(image_usage().c_str(), stdout);
    return kOk;
  }
  try {
    return run(options);
  } catch (const Failure& f) {
    std::fprintf(stderr, "cudadenoise-image: %s\n", f.message.c_str());
    return f.code;
  } catch (const InvalidArgument& e) {
    std::fprintf(stderr, "cudadenoise-image: %s\n", e.what());
    return kUsage;
  } catch (const Error& e) {  // CUDA failures, including --backend cuda without a device
    std::fprintf(stderr, "cudadenoise-image: %s\n", e.what());
    return kCuda;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-image: %s\n", e.what());
    return 1;
  }
}
