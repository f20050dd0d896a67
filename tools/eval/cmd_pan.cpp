// cmd_pan.cpp: `cudadenoise-eval pan`: a clip panning across a real photo
// (pan.h), written as y4m, for runs without a real video clip.
#include <cstdio>
#include <string>

#include "commands.h"
#include "flags.h"
#include "image_io.h"
#include "json.h"
#include "pan.h"
#include "y4m.h"

namespace cdn::eval {

int cmd_pan(int argc, const char* const* argv) {
  tools::FlagParser flags;
  std::string photo, size = "96x64", start = "0,0", step = "2,1", out;
  double frames = 9, fps = 25;
  bool help = false;
  flags.add_string("--photo", "PNG", "the photo to pan across", &photo);
  flags.add_string("--size", "WxH", "frame size (default 96x64; even for colour)", &size);
  flags.add_number("--frames", "N", "frames (default 9)", 1, 100000, &frames);
  flags.add_string("--start", "X,Y", "top-left corner of the first frame (default 0,0)", &start);
  flags.add_string("--step", "DX,DY", "motion per frame in pixels (default 2,1)", &step);
  flags.add_number("--fps", "N", "frame rate written to the file (default 25)", 1, 1000, &fps);
  flags.add_string("-o,--output", "PATH", "the clip (y4m)", &out);
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("pan takes no positional arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval pan --photo PNG -o clip.y4m [options]\n\n%s", flags.help().c_str());
    return kOk;
  }
  if (photo.empty() || out.empty()) throw tools::UsageError("--photo and --output are required");
  PanSpec s;
  const Region r = parse_region("--size", size);
  s.width = r.width, s.height = r.height, s.frames = static_cast<int>(frames);
  if (std::sscanf(start.c_str(), "%d,%d", &s.x0, &s.y0) != 2) throw tools::UsageError("--start: expected X,Y");
  if (std::sscanf(step.c_str(), "%d,%d", &s.dx, &s.dy) != 2) throw tools::UsageError("--step: expected DX,DY");
  std::vector<HostFrame> clip;
  try {
    clip = make_pan(tools::read_image(photo), s);
  } catch (const std::invalid_argument& e) {
    throw tools::UsageError(e.what());
  }
  Y4mInfo info;
  info.format = clip[0].view().format;
  info.width = s.width, info.height = s.height;
  info.fps_num = static_cast<int>(fps), info.fps_den = 1;
  info.range = Range::Full;
  write_y4m(out, info, clip);
  tools::Json j;
  j["width"] = s.width, j["height"] = s.height, j["format"] = format_name(info.format), j["frames"] = s.frames;
  std::printf("%s\n", tools::json_line(j).c_str());
  return kOk;
}

}  // namespace cdn::eval
