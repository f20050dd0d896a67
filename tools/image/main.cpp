// main.cpp: cudadenoise-image, denoises one image file (or the built-in test
// picture) and reports PSNR/SSIM against a clean reference and the time taken.
//
//   cudadenoise-image -o denoised.png                 # built-in picture, AWGN 25
//   cudadenoise-image noisy.png --reference clean.png --mode hybrid --json
//   cudadenoise-image noisy.png --mode nlm3d --sigma auto    # a one-frame stream
//   cudadenoise-image flat.png --save-noise-profile camera.json   # measure the noise model
//   cudadenoise-image noisy.png --noise-model signal --noise-profile camera.json -o out.png
//
// Exit codes: the Exit enum below, described in --help (image_usage() in
// options.cpp); 6 is shared with the other tools (exit_codes.h). All the work
// is in kernels/ and tools/common/.
// Outputs follow tools/common/output_path.h, as the transcode tool's do.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "convert.h"
#include "exit_codes.h"
#include "cudadenoise/error.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/noise_profile.h"
#include "cudadenoise/stream_pump.h"
#include "flags.h"
#include "image_io.h"
#include "json.h"
#include "noise_model_report.h"
#include "options.h"
#include "output_path.h"
#include "test_picture.h"

namespace {

using namespace cdn;
using namespace cdn::tools;

enum Exit { kOk = 0, kFailure = 1, kUsage = 2, kUnreadable = 3, kUnwritable = 5, kGpu = kExitGpu };

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

bool is_pgm_name(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".pgm";
}

// Before any work: no output may be an input, replace a file without -y, or be
// a directory; -o and --save-noisy must be different files.
void check_outputs(const ImageOptions& o) {
  const std::vector<std::string> inputs = {o.input, o.reference};
  for (const std::string& out : {o.output, o.save_noisy, o.save_noise_profile}) {
    if (out.empty()) continue;
    const OutputCheck c = check_output(out, inputs, o.overwrite);
    if (!c) throw Failure{c.problem == OutputProblem::IsInput ? kUsage : kUnwritable, c.message};
  }
  if (!o.output.empty() && !o.save_noisy.empty() &&
      (o.output == o.save_noisy || same_file(o.output, o.save_noisy)))
    throw Failure{kUsage, "-o and --save-noisy name the same file: " + o.output};
}

// PGM holds gray only: say so before denoising, as a usage error.
void check_pgm_outputs(const ImageOptions& o, const Image& input) {
  if (!input.is_colour()) return;
  for (const std::string& out : {o.output, o.save_noisy})
    if (is_pgm_name(out))
      throw Failure{kUsage, out + ": PGM holds gray images only and the input is colour; use a .png name"};
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

// --save-noise-profile: each component's noise model (kernels' estimate_noise_model)
// of the frame the tool would denoise, written as a noise profile.
int measure(const ImageOptions& o, const std::string& name, const Image& noisy) {
  HostFrame in = image_to_frame(noisy);
  NoiseProfile profile;
  const char* const kNames[] = {"Y", "Cb", "Cr"};
  const std::vector<PlaneView> planes = components(in.view());
  for (std::size_t c = 0; c < planes.size(); ++c) {
    const NoiseModel m = estimate_noise_model(planes[c]);
    if (!m.usable)
      throw Failure{kFailure, name + ": component " + (planes.size() > 1 ? kNames[c] : "Y") +
                                  ": too few flat patches at two intensities to measure its noise; measure a larger "
                                  "or flatter, evenly lit picture"};
    profile.planes.push_back(m);
  }
  try {
    save_noise_profile(profile, o.save_noise_profile);
  } catch (const InvalidArgument& e) {
    throw Failure{kUnwritable, e.what()};
  }
  if (o.json) {
    Json j;
    j["input"] = name, j["width"] = noisy.width, j["height"] = noisy.height;
    j["noise_profile"] = o.save_noise_profile;
    j["planes"] = noise_models_json(profile.planes);
    std::printf("%s\n", json_line(j).c_str());
    return kOk;
  }
  std::printf("input:    %s, %dx%d %s %d-bit", name.c_str(), noisy.width, noisy.height, describe(noisy),
              noisy.bit_depth);
  if (o.noise_sigma > 0) std::printf(", AWGN sigma %g seed %llu", o.noise_sigma, (unsigned long long)o.seed);
  std::printf("\n");
  for (std::size_t c = 0; c < profile.planes.size(); ++c)
    std::printf("noise:    %-2s var = %.4f x + %.4f (8-bit code values)\n", planes.size() > 1 ? kNames[c] : "Y",
                profile.planes[c].a, profile.planes[c].b);
  std::printf("wrote %s\n", o.save_noise_profile.c_str());
  return kOk;
}

int run(const ImageOptions& o) {
  const std::string name = o.input.empty() ? "builtin" : o.input;
  check_outputs(o);
  Image input = prepare(o.input.empty() ? make_test_picture() : load(o.input), name, o.json);
  check_pgm_outputs(o, input);

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
  if (!o.save_noise_profile.empty()) return measure(o, name, noisy);

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
  // With a signal or curve model, the model of each component the image was
  // filtered with; else per component the sigma, 8-bit code values, before
  // strength: given, or estimated on the image.
  const std::vector<NoiseModel> models = stream->noise_models();
  const std::vector<double> sigma = models.empty() ? stream->noise_sigma() : std::vector<double>{};

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
    j["preset"] = o.preset, j["strength"] = o.settings.strength;
    j["sigma"] = sigma.empty() ? Json() : Json(sigma);
    j["sigma_estimated"] = !sigma.empty() && o.settings.sigma == 0;
    j["noise_model"] = models.empty() ? Json() : Json(noise_model_name(o.settings.noise_model));
    j["noise_model_source"] = models.empty() ? Json() : Json(noise_model_source(o.settings));
    j["noise_models"] = models.empty() ? Json() : noise_models_json(models);
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
  std::printf("\nfilter:   %s (preset %s), planes %s, %s backend: %.2f ms\n", mode_name(o.settings.mode),
              o.preset.c_str(), planes_name(o.settings.planes), backend_name(used), ms);
  if (!sigma.empty()) {
    std::printf("noise:    sigma");
    for (double v : sigma) std::printf(" %.2f", v);
    std::printf(" (%s, 8-bit code values per component), strength %g\n", o.settings.sigma == 0 ? "estimated" : "given",
                o.settings.strength);
  }
  if (!models.empty())
    std::printf("noise:    model %s (%s; var = a x + b per component, 8-bit code values), strength %g\n",
                noise_models_text(o.settings.noise_model, models).c_str(), noise_model_source(o.settings),
                o.settings.strength);
  if (have_reference) {
    std::printf("noisy:    PSNR %6.2f dB  SSIM %.4f\n", q_noisy.psnr, q_noisy.ssim);
    std::printf("denoised: PSNR %6.2f dB  SSIM %.4f\n", q_out.psnr, q_out.ssim);
    std::printf("gain:     %+.2f dB\n", q_out.psnr - q_noisy.psnr);
  } else {
    std::printf("no reference: give --reference CLEAN or --add-noise SIGMA for PSNR/SSIM\n");
  }
  if (!o.save_noisy.empty()) std::printf("wrote %s\n", o.save_noisy.c_str());
  if (!o.output.empty()) std::printf("wrote %s\n", o.output.c_str());
  return kOk;
}

// One line on stderr; with --json also {"error":...,"code":...} on stdout, so a
// script reading stdout always gets one JSON object.
int fail(bool json, int code, const std::string& message) {
  std::fprintf(stderr, "cudadenoise-image: %s\n", message.c_str());
  if (json) std::printf("%s\n", json_line(Json{{"error", message}, {"code", code}}).c_str());
  return code;
}

// Whether --json is among the arguments (for a failure before parsing completes).
bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--json") return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  ImageOptions options;
  try {
    options = parse_image_options(argc, argv);
  } catch (const UsageError& e) {
    return fail(wants_json(argc, argv), kUsage, std::string(e.what()) + " (see --help)");
  }
  if (options.help) {
    std::fputs(image_usage().c_str(), stdout);
    return kOk;
  }
  try {
    return run(options);
  } catch (const Failure& f) {
    return fail(options.json, f.code, f.message);
  } catch (const InvalidArgument& e) {
    return fail(options.json, kUsage, e.what());
  } catch (const NoCudaDevice& e) {
    return fail(options.json, kGpu, std::string("--backend cuda: ") + e.what());
  } catch (const Error& e) {  // CUDA failures
    return fail(options.json, kGpu, e.what());
  } catch (const std::exception& e) {
    return fail(options.json, kFailure, e.what());
  }
}
