// options.cpp: cudadenoise-image's flags (options.h). The parameter flags come
// from cdn::param_specs() through FlagParser::add_param_flags, one heading per
// ParamGroup (the modes it applies to).
#include "options.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/presets.h"
#include "flags.h"

namespace cdn::tools {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Output names say what is written: .png or .pgm, nothing else (a .jpg holding PNG data would mislead).
void check_image_name(const std::string& flag, const std::string& path) {
  if (path.empty()) return;
  if (is_pipe_name(path))
    throw UsageError(flag + " " + path + ": writing to standard output is not supported; give a .png or .pgm file");
  const std::string l = lower(path);
  const auto dot = l.rfind('.'), slash = l.rfind('/');
  const std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : l.substr(dot);
  if (ext != ".png" && ext != ".pgm")
    throw UsageError(flag + " " + path + ": the image tool writes PNG (.png) or binary PGM (.pgm) only" +
                     (ext.empty() ? "" : ", not " + ext));
}

struct Parser {
  FlagParser flags;
  ImageOptions o;
  bool builtin = false, yes = false, no = false;
  std::string mode = mode_name(SettingsChoice().resolve().mode), backend = "auto",
              planes = planes_name(DenoiseSettings{}.planes), preset = default_preset_name();

  Parser() {
    flags.add_string("-o,--output", "PATH", "write the denoised image (PNG; PGM for a .pgm name)", &o.output);
    std::vector<std::string> modes;
    std::string mode_help = "denoising algorithm:";
    for (Mode m : all_modes()) {
      modes.push_back(mode_name(m));
      mode_help += std::string(modes.size() > 1 ? ";" : "") + " " + mode_name(m) + " = " + mode_description(m);
    }
    flags.add_preset_flag(&preset);
    flags.add_choice("--mode", modes, mode_help + " (overrides the preset's)", &mode);
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
    flags.add_string("--save-noise-profile", "OUT.json",
                     "measure instead of denoising: the noise model var = a x + b (and its curve) of each component "
                     "of the input (after --add-noise), written as a noise profile for --noise-profile and the "
                     "element's noise-profile (docs/NOISE.md); measure once on a flat, evenly lit shot",
                     &o.save_noise_profile);
    flags.add_switch("--builtin", "use the built-in 512x512 test picture (the default without INPUT)", &builtin);
    flags.add_switch("-y", "overwrite OUTPUT (and --save-noisy's file) if it exists", &yes);
    flags.add_switch("-n", "never overwrite: fail if an output exists (the default without -y)", &no);
    flags.add_switch("--json", "print one JSON line instead of text (on failure: {\"error\":..., \"code\":...})",
                     &o.json);
    flags.add_switch("-h,--help", "show this help", &o.help);
    // The parameter flags last, under one heading per group (in the table's order).
    std::vector<ParamGroup> groups;
    for (const ParamSpec& p : param_specs())
      if (std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
    for (ParamGroup g : groups) {
      flags.add_heading(param_group_title(g));
      flags.add_param_flags(&o.settings, g);
      if (g == find_param("noise-model")->group) flags.add_noise_profile_flag(&o.settings);
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
    if (!o.save_noise_profile.empty() && (!o.output.empty() || !o.reference.empty()))
      throw UsageError("--save-noise-profile measures the input and denoises nothing: not with -o or --reference");
    if (is_pipe_name(o.save_noise_profile))
      throw UsageError("--save-noise-profile " + o.save_noise_profile + ": give a file, not standard output");
    if (o.input == "-" || o.input.rfind("pipe:", 0) == 0)
      throw UsageError("INPUT " + o.input + ": reading standard input is not supported; give a .png or .pgm file");
    check_image_name("-o", o.output);
    check_image_name("--save-noisy", o.save_noisy);
    if (yes && no) throw UsageError("-y and -n exclude each other");
    o.overwrite = yes ? Overwrite::Yes : (no ? Overwrite::No : Overwrite::Refuse);
    parse_mode(mode, &o.settings.mode);
    parse_backend(backend, &o.backend);
    parse_planes(planes, &o.settings.planes);
    o.preset = preset;
    o.settings = settings_with_preset(flags, preset, o.settings);
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
         "Denoises a PNG or binary PGM image with one of the library's modes (--mode) and\n"
         "prints the PSNR and SSIM of the noisy input and of the output against a clean\n"
         "reference and the time of the denoising call. Gray images are filtered as GRAY8\n"
         "or GRAY16_LE, colour images as Y444 (BT.601 full-range YCbCr). Without INPUT the\n"
         "built-in test picture is used with --add-noise 25 --seed 1. A temporal mode\n"
         "filters the image as a stream of one frame (pushed, finished and popped): its\n"
         "window shrinks to the image (nlm3d is then 2D non-local means). Each mode reads\n"
         "only its own parameter flags. With --save-noise-profile it measures the noise\n"
         "of each component instead and writes it as a noise profile, to give back with\n"
         "--noise-profile (and --noise-model signal or curve) here, to cudadenoise-transcode\n"
         "or to the element.\n"
         "\n"
         "Options:\n" +
         Parser().flags.help() +
         "\n"
         "Outputs are .png or .pgm (gray only) files. Like ffmpeg, an existing output is\n"
         "replaced only with -y, and an output that is the input file is refused; a symlink\n"
         "is written through. Each file appears under its name only once it is complete.\n"
         "\n"
         "Exit codes: 0 success, 2 bad arguments (an output that is the input, a name that\n"
         "is not .png/.pgm, a colour image for a .pgm), 3 unreadable input or reference\n"
         "(also a header larger than the limits: 65535 pixels a side, 2^28 in all),\n"
         "5 output exists (without -y) or not writable, 6 CUDA error or, with --backend\n"
         "cuda, no CUDA device (as cudadenoise-transcode; 4 is no longer used),\n"
         "1 anything else (out of memory, say).\n";
}

}  // namespace cdn::tools
