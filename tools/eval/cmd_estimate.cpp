// cmd_estimate.cpp: `cudadenoise-eval estimate`: the noise sigma of one frame
// of a y4m clip, per plane, with kernels/noise_estimate.h (8-bit code values):
// the noise level given to every method when a clip is denoised as it is.
#include <cstdio>
#include <string>

#include "commands.h"
#include "flags.h"
#include "json.h"
#include "noise_estimate.h"
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
  Y4mReader r(input);
  HostFrame f(r.info().format, r.info().width, r.info().height);
  for (int i = 0; i <= static_cast<int>(frame); ++i)
    if (!r.read(f.view())) throw Y4mError(input + ": has no frame " + std::to_string(static_cast<int>(frame)));
  std::string planes = "[";
  double luma = 0;
  for (const PlaneView& p : components(f.view())) {
    const double s = estimate_noise_sigma(p);
    if (planes.size() == 1) luma = s;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.4f", planes.size() > 1 ? "," : "", s);
    planes += buf;
  }
  planes += "]";
  tools::JsonLine j;
  j.add("input", input).add("frame", static_cast<int>(frame)).add("sigma_luma", luma);
  std::string line = j.str();
  line.insert(line.size() - 1, ",\"sigma_planes\":" + planes);
  std::printf("%s\n", line.c_str());
  return kOk;
}

}  // namespace cdn::eval
