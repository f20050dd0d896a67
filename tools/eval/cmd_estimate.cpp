// cmd_estimate.cpp: `cudadenoise-eval estimate`: the noise sigma of one frame
// of a y4m clip, per plane, with kernels/include/cudadenoise/noise_estimate.h (8-bit code values):
// the noise level given to every method when a clip is denoised as it is.
#include <cstdio>
#include <string>

#include "commands.h"
#include "cudadenoise/noise_estimate.h"
#include "flags.h"
#include "json.h"
#include "y4m.h"

namespace cdn::eval {

int cmd_estimate(int argc, const char* const* argv) {
  tools::FlagParser flags;
  std::string input;
  double frame = 0;
  bool help = false;
  flags.add_string("--input", "Y4M", "the clip", &input);
  flags.add_number("--frame", "N", "which frame (default 0)", 0, 1e9, &frame);
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("estimate takes no positional arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval estimate --input Y4M [--frame N]\n\n%s", flags.help().c_str());
    return kOk;
  }
  if (input.empty()) throw tools::UsageError("--input is required");
  const HostFrame f = read_y4m_frame(input, static_cast<int>(frame));
  tools::Json j;
  j["input"] = input, j["frame"] = static_cast<int>(frame), j["sigma_luma"] = nullptr;
  for (const PlaneView& p : components(f.view())) j["sigma_planes"].push_back(estimate_noise_sigma(p));
  j["sigma_luma"] = j["sigma_planes"][0];
  std::printf("%s\n", tools::json_line(j).c_str());
  return kOk;
}

}  // namespace cdn::eval
