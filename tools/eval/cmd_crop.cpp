// cmd_crop.cpp: `cudadenoise-eval crop`: a region of one frame of a y4m clip as
// an 8-bit RGB PNG (frame_rgb.h: BT.601, limited range expanded unless the file
// says full), for the report's crops figure, which harness/figures.py draws.
#include <cstdio>
#include <string>

#include "commands.h"
#include "flags.h"
#include "image_io.h"
#include "json.h"
#include "y4m.h"

namespace cdn::eval {

int cmd_crop(int argc, const char* const* argv) {
  tools::FlagParser flags;
  std::string input, region_text, out;
  double frame = 0;
  bool help = false;
  flags.add_string("--input", "Y4M", "the clip", &input);
  flags.add_number("--frame", "N", "which frame (default 0)", 0, 1e9, &frame);
  flags.add_string("--region", "WxH+X+Y", "the region (default: the whole frame)", &region_text);
  flags.add_string("-o,--output", "PNG", "the crop, 8-bit RGB", &out);
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("crop takes no positional arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval crop --input Y4M [--frame N] [--region WxH+X+Y] -o PNG\n\n%s",
                flags.help().c_str());
    return kOk;
  }
  if (input.empty() || out.empty()) throw tools::UsageError("--input and --output are required");
  Y4mInfo info;
  const HostFrame f = read_y4m_frame(input, static_cast<int>(frame), &info);
  const Region region = region_text.empty() ? Region{0, 0, info.width, info.height} : parse_region("--region", region_text);
  if (region.x + region.width > info.width || region.y + region.height > info.height)
    throw tools::UsageError("--region " + region_text + " is not inside the " + std::to_string(info.width) + "x" +
                            std::to_string(info.height) + " frame");
  tools::write_png(out, frame_region_rgb(f.view(), info.range, region));
  tools::Json j;
  j["input"] = input, j["frame"] = static_cast<int>(frame), j["output"] = out;
  j["width"] = region.width, j["height"] = region.height;
  std::printf("%s\n", tools::json_line(j).c_str());
  return kOk;
}

}  // namespace cdn::eval
