// main.cpp: cudadenoise-eval, the pixel-level half of the evaluation harness
// (tools/eval/report.py is the other half). Each subcommand does one job on
// YUV4MPEG2 files and prints JSON lines; the harness chains them.
//
//   cudadenoise-eval info                                 modes, backends, GPU
//   cudadenoise-eval prepare --input photo.png --sigma 25 --clean-out c.y4m --noisy-out n.y4m
//   cudadenoise-eval pan --photo astronaut.png --size 96x64 --frames 9 -o pan.y4m
//   cudadenoise-eval denoise --input n.y4m --modes all --backends cuda,cpu --out-dir out/
//   cudadenoise-eval measure --clean c.y4m [--frames 4-6] [--sigma 25] out/*.y4m
//   cudadenoise-eval estimate --input clip.y4m
//   cudadenoise-eval crop --input out.y4m --frame 8 --region 128x128+340+180 -o crop.png
//
// Exit codes (commands.h): 0 ok, 2 bad arguments, 3 unreadable input or
// unwritable output, 4 CUDA error, 1 anything else.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.h"
#include "cudadenoise/error.h"
#include "flags.h"
#include "image_io.h"
#include "y4m.h"

namespace {

using namespace cdn::eval;

struct Command {
  const char* name;
  int (*run)(int, const char* const*);
  const char* help;
};

const Command kCommands[] = {
    {"info", cmd_info, "modes (from cdn::all_modes), backends, GPU and CPU, as one JSON line"},
    {"prepare", cmd_prepare, "a photo (PNG) or clip (y4m) -> clean and noisy y4m (AWGN, fixed seeds)"},
    {"pan", cmd_pan, "a clip panning across a photo -> y4m"},
    {"denoise", cmd_denoise, "run cudadenoise modes on a y4m, timed; one JSON line per run"},
    {"measure", cmd_measure, "PSNR/SSIM per plane of y4m files against the clean one"},
    {"estimate", cmd_estimate, "noise sigma estimate of a y4m frame, per plane"},
    {"crop", cmd_crop, "a region of a y4m frame as an RGB PNG (for the report's crops figure)"},
};

void usage(std::FILE* out) {
  std::fputs("Usage: cudadenoise-eval COMMAND [options]   (COMMAND --help for its options)\n\nCommands:\n", out);
  for (const Command& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.help);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? kUsage : kOk;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    const std::string who = std::string("cudadenoise-eval ") + c.name;
    try {
      return c.run(argc - 1, argv + 1);
    } catch (const cdn::tools::UsageError& e) {
      std::fprintf(stderr, "%s: %s (see --help)\n", who.c_str(), e.what());
      return kUsage;
    } catch (const cdn::InvalidArgument& e) {
      std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
      return kUsage;
    } catch (const Y4mError& e) {
      std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
      return kUnreadable;
    } catch (const cdn::tools::ImageError& e) {
      std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
      return kUnreadable;
    } catch (const cdn::Error& e) {
      std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
      return kCuda;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
      return kFailed;
    }
  }
  std::fprintf(stderr, "cudadenoise-eval: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return kUsage;
}
