// cmd_denoise.cpp: `cudadenoise-eval denoise`: every requested cudadenoise mode
// on every requested backend over one y4m clip, in one process (one CUDA
// start-up), each timed by mode_runner.h; writes OUT_DIR/MODE-BACKEND.y4m and
// prints one JSON line per run (an "error" line when a backend is unusable).
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>

#include "commands.h"
#include "cudadenoise/backend.h"
#include "cudadenoise/error.h"
#include "cudadenoise/named_sets.h"
#include "flags.h"
#include "json.h"
#include "mode_runner.h"
#include "mode_settings.h"
#include "y4m.h"

namespace cdn::eval {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// The named set `set` of mode `m` with the parameters given explicitly (flags) on top.
DenoiseSettings with_set(Mode m, const std::string& set, const DenoiseSettings& given, const tools::FlagParser& flags) {
  DenoiseSettings s;
  try {
    s = named_set_settings(mode_name(m), set);
  } catch (const InvalidArgument& e) {
    throw tools::UsageError(std::string("--set: ") + e.what());
  }
  for (const ParamSpec& spec : param_specs())
    if (flags.was_set(std::string("--") + spec.name)) spec.set(s, spec.get(given));
  s.noise_profile = given.noise_profile;  // --noise-profile (not in the table)
  return s;
}

}  // namespace

int cmd_denoise(int argc, const char* const* argv) {
  tools::FlagParser flags;
  std::string input, out_dir, modes = "all", backends = "auto", tag, set;
  double sigma = 0, warmup = 2, repeat = 5, timing_frames = 0, max_seconds = 0;
  bool help = false;
  DenoiseSettings base;
  flags.add_string("--input", "Y4M", "the noisy clip", &input);
  flags.add_string("--out-dir", "DIR", "where MODE-BACKEND.y4m (MODE-TAG-BACKEND.y4m) go", &out_dir);
  flags.add_string("--tag", "NAME", "names these settings in the output files and the JSON lines (default: none)",
                   &tag);
  flags.add_string("--modes", "LIST", "comma-separated modes, or all (default)", &modes);
  flags.add_string("--set", "NAME",
                   "start from each mode's named set NAME (named_sets.h; `info` lists them) instead of the defaults; "
                   "parameter flags override it",
                   &set);
  flags.add_string("--backends", "LIST", "comma-separated: cuda, cpu, auto (default auto)", &backends);
  flags.add_number("--noise-sigma", "S",
                   "the noise level, given to every sigma parameter of a mode (0: the modes' defaults)", 0, 255,
                   &sigma);
  flags.add_number("--warmup", "N", "untimed runs first (default 2)", 0, 1000, &warmup);
  flags.add_number("--repeat", "N", "timed samples (default 5; per-frame modes: at least one per frame)", 1, 1000,
                   &repeat);
  flags.add_number("--timing-frames", "N",
                   "temporal modes: time a stream of N frames, the clip played back and forth (default 0: the clip)",
                   0, 100000, &timing_frames);
  flags.add_number("--max-seconds", "S",
                   "stop sampling a run after S seconds (at least one sample per frame; default 0: no limit)", 0, 1e6,
                   &max_seconds);
  flags.add_switch("-h,--help", "show this help", &help);
  flags.add_heading("Mode parameters (override the defaults)");
  flags.add_param_flags(&base);
  flags.add_noise_profile_flag(&base);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("denoise takes no positional arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval denoise --input Y4M --out-dir DIR [options]\n\n%s", flags.help().c_str());
    return kOk;
  }
  if (input.empty() || out_dir.empty()) throw tools::UsageError("--input and --out-dir are required");
  std::vector<Mode> mode_list;
  for (const std::string& m : split_commas(modes)) {
    if (m == "all") {
      for (Mode a : all_modes()) mode_list.push_back(a);
      continue;
    }
    Mode parsed;
    if (!parse_mode(m, &parsed)) throw tools::UsageError("--modes: unknown mode '" + m + "'");
    mode_list.push_back(parsed);
  }
  std::vector<Backend> backend_list;
  for (const std::string& b : split_commas(backends)) {
    Backend parsed;
    if (!parse_backend(b, &parsed)) throw tools::UsageError("--backends: unknown backend '" + b + "'");
    backend_list.push_back(parsed);
  }
  const Clip clip = read_y4m(input);
  const FrameView& f0 = clip.frames[0].view();
  for (Backend b : backend_list)
    for (Mode m : mode_list) {
      tools::Json j;
      j["mode"] = mode_name(m), j["tag"] = tag, j["requested_backend"] = backend_name(b);
      j["frames"] = static_cast<int>(clip.frames.size()), j["width"] = f0.width, j["height"] = f0.height;
      j["format"] = format_name(f0.format), j["temporal"] = is_temporal(m);
      std::string why;
      if (b == Backend::Cuda && !cuda_available(&why)) {
        j["error"] = "cuda backend unusable: " + why;
        std::printf("%s\n", tools::json_line(j).c_str());
        std::fflush(stdout);
        continue;
      }
      const DenoiseSettings s = settings_for(m, sigma, set.empty() ? base : with_set(m, set, base, flags));
      const ModeRun r = run_mode(clip.frames, b, s, static_cast<int>(warmup), static_cast<int>(repeat),
                                 static_cast<int>(timing_frames), max_seconds);
      const std::string out =
          out_dir + "/" + mode_name(m) + (tag.empty() ? "" : "-" + tag) + "-" + backend_name(r.backend) + ".y4m";
      write_y4m(out, clip.info, r.output);
      j["backend"] = backend_name(r.backend), j["output"] = out;
      j["e2e_ms"] = r.e2e_ms, j["e2e_samples"] = r.e2e_samples;
      j["timing_frames"] =
          is_temporal(m) ? static_cast<int>(ping_pong(clip.frames, static_cast<int>(timing_frames)).size()) : 1;
      j["device_ms"] = nullptr;
      if (r.device_ms >= 0) j["device_ms"] = r.device_ms, j["device_samples"] = r.device_samples;
      j["sigma_given"] = sigma_given(s);
      j["threads"] = r.backend == Backend::Cpu ? static_cast<int>(std::thread::hardware_concurrency()) : 0;
      std::printf("%s\n", tools::json_line(j).c_str());
      std::fflush(stdout);
    }
  return kOk;
}

}  // namespace cdn::eval
