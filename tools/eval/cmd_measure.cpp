// cmd_measure.cpp: `cudadenoise-eval measure`: PSNR and SSIM of each given y4m
// against the clean one, per plane and over all planes (clip_quality.h), one
// JSON line per file; per plane also frame_psnr, the mean of the frames' PSNRs
// (the convention of BM3D.md's clip tables). With --sigma, also the PSNR a noisy input with that sigma
// should have (expected_noise.h). Identical files give "psnr": null (infinite).
#include <cstdio>
#include <string>

#include "clip_quality.h"
#include "commands.h"
#include "flags.h"
#include "json.h"
#include "y4m.h"

namespace cdn::eval {

namespace {

tools::Json score_json(const PlaneScore& p, bool expected, bool plane = false) {
  tools::Json j;
  j["psnr"] = p.psnr, j["ssim"] = p.ssim, j["mse"] = p.mse;
  if (plane) j["frame_psnr"] = p.frame_psnr;
  if (expected) j["expected_noisy_psnr"] = p.expected_noisy_psnr;
  return j;
}

}  // namespace

int cmd_measure(int argc, const char* const* argv) {
  tools::FlagParser flags;
  std::string clean_path, frame_text;
  double sigma = -1;
  bool help = false;
  flags.add_string("--clean", "Y4M", "the clean reference", &clean_path);
  flags.add_string("--frames", "LIST", "frames to measure, e.g. 4-6 or 0,3 (default: all)", &frame_text);
  flags.add_number("--sigma", "S", "also give the PSNR expected of a noisy input with this sigma", 0, 255, &sigma);
  flags.add_switch("-h,--help", "show this help", &help);
  const std::vector<std::string> files = flags.parse(argc, argv);
  if (help) {
    std::printf("Usage: cudadenoise-eval measure --clean Y4M [options] FILE.y4m...\n\n%s", flags.help().c_str());
    return kOk;
  }
  if (clean_path.empty() || files.empty()) throw tools::UsageError("--clean and at least one file are required");
  const std::vector<int> frames = parse_frame_list("--frames", frame_text);
  const Clip clean = read_y4m(clean_path);
  for (const std::string& f : files) {
    const Clip test = read_y4m(f);
    const ClipScore s = score_clip(clean.frames, test.frames, frames, sigma);
    tools::Json j;
    j["file"] = f, j["frames"] = s.frames, j["planes"] = tools::Json::array();
    for (const PlaneScore& p : s.planes) j["planes"].push_back(score_json(p, sigma >= 0, true));
    j["all"] = score_json(s.all, sigma >= 0);
    std::printf("%s\n", tools::json_line(j).c_str());
  }
  return kOk;
}

}  // namespace cdn::eval
