// options.cpp: cudadenoise-image's flags (options.h). The parameter flags come
// from cdn::param_specs() through FlagParser::add_param_flags, one heading per
// ParamGroup (the modes it applies to).
#include "options.h"

#include <algorithm>
#include <vector>

#include "error.h"
#include "flags.h"

namespace cdn::tools {

namespace {

struct Parser {
  FlagParser flags;
  ImageOptions o;
  bool builtin = false;
  std::string mode = "pipd", backend = "auto", planes = planes_name(DenoiseSettings{}.planes);

  Parser() {
    flags.add_string("-o,--output", "PATH", "write the denoised image (PNG; PGM for a .pgm name)", &o.output);
    std::vector<std::string> modes;
    std::string mode_help = "denoising algorithm:";
    for (Mode m : all_modes()) {
      modes.push_back(mode_name(m));
      mode_help += std::string(modes.size() > 1 ? ";" : "") + " " + mode_name(m) + " = " + mode_description(m);
    }
    flags.add_choice("--mode", modes, mode_help, &mode);
    flags.add_choice("--planes", {"luma", "all"}, "components to filter (colour: Y or Y, Cb, Cr)", &planes);
    flags.add_choice("--backend", {"auto", "cuda", "cpu"}, "auto: CUDA when a device is usable, else CPU",
                     &backend);
    flags.add_number("--add-noise", "SIGMA",
                     "add Gaussian noise of std SIGMA (8-bit code values) to the input first; the input is "
                     "then the clean reference",
                     0, 255, &o.noise_sigma);
    flags.add_uint64("--seed", "N", "seed of the added noise (default 1)", &o.seed);
    flags.add_string("--save-noisy", "PATH", "write the noisy input (with --add-noise)", &o.save_noisy);
    flags.add_string("--reference", "CLEAN", "clean image to measure PSNR/SSIM against", &o.reference);
    flags.add_switch("--builtin", "use the built-in 512x512 test picture (the default without INPUT)", &builtin);
    flags.add_switch("--json", "print one JSON line instead of text", &o.json);
    flags.add_switch("-h,--help", "show this help", &o.help);
    // The parameter flags last, under one heading per group (in the table's order).
    std::vector<ParamGroup> groups;
    for (const ParamSpec& p : param_specs())
      if (std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
    for (ParamGroup g : groups) {
      flags.add_heading(param_group_title(g));
      flags.add_param_flags(&o.settings, g);
    }
  }

  void parse(int argc, const char* const* argv) {
    const std::vector<std::string> positional = flags.parse(argc, argv);
    if (o.help) return;
    if (positional.size() > 1) throw UsageError("expected one INPUT, got " + std::to_string(positional.size()));
    if (!positional.empty()) {
      if (builtin) throw UsageError("--builtin and an INPUT file exclude each other");
      o.input = positional[0];
    } else if (!flags.was_set("--add-noise")) {
      o.noise_sigma = 25;  // the built-in picture is clean: make the demo denoise something
    }
    if (!o.save_noisy.empty() && o.noise_sigma <= 0) throw UsageError("--save-noisy needs --add-noise");
    parse_mode(mode, &o.settings.mode);
    parse_backend(backend, &o.backend);
    parse_planes(planes, &o.settings.planes);
    try {
      validate(o.settings);
    } catch (const InvalidArgument& e) {
      throw UsageError(e.what());
    }
  }
};

}  // namespace

ImageOptions parse_image_options(int argc, const char* const* argv) {
  Parser p;
  p.parse(argc, argv);
  return p.o;
}

std::string image_usage() {
  return "Usage: cudadenoise-image [INPUT] [-o OUTPUT] [options]\n"
         "\n"
         "Denoises a PNG or binary PGM image with PI-PD, hybrid PI-PD, NLM-3D or BM3D and\n"
         "prints the PSNR and SSIM of the noisy input and of the output against a clean\n"
         "reference and the time of the denoising call. Gray images are filtered as GRAY8\n"
         "or GRAY16_LE, colour images as Y444 (BT.601 full-range YCbCr). Without INPUT the\n"
         "built-in test picture is used with --add-noise 25 --seed 1. --mode nlm3d, the\n"
         "video mode, filters the image as a stream of one frame (pushed, finished and\n"
         "popped): its window shrinks to the image, so it is 2D non-local means. Each\n"
         "mode reads only its own parameter flags.\n"
         "\n"
         "Options:\n" +
         Parser().flags.help() +
         "\n"
         "Exit codes: 0 success, 2 bad arguments, 3 unreadable input or reference,\n"
         "4 CUDA error, 5 output not writable.\n";
}

}  // namespace cdn::tools
