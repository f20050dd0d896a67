// cmd_prepare.cpp: `cudadenoise-eval prepare`: the clean and the noisy input of
// one condition. A PNG photo becomes a GRAY8 or Y444 (BT.601 full range) frame
// as cudadenoise-image makes it; a y4m clip is read as it is. Optionally cut to
// a region, to luma only, to frames [start, start + frames). For a photo,
// --frames N repeats it N times (each copy gets its own noise: the timing stream
// of the FFmpeg peers; --loop does the same for a clip). AWGN of --sigma (8-bit
// code values) is added to every plane with kernels/include/cudadenoise/noise.h, frame f seeded with
// seed-base + f. --as-i420 turns
// GRAY8 frames into I420 ones with the same luma and neutral chroma (128), for
// a peer that takes no gray frames (the harness takes the luma back with --gray).
#include <cstdio>
#include <string>

#include "commands.h"
#include "convert.h"
#include "cudadenoise/noise.h"
#include "flags.h"
#include "frame_ops.h"
#include "image_io.h"
#include "json.h"
#include "y4m.h"

namespace cdn::eval {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* range_name(Range r) { return r == Range::Full ? "full" : r == Range::Limited ? "limited" : "unknown"; }

}  // namespace

int cmd_prepare(int argc, const char* const* argv) {
  tools::FlagParser flags;
  std::string input, crop, clean_out, noisy_out;
  double sigma = 0, start = 0, frames = 0;
  std::uint64_t seed_base = 1;
  bool gray = false, as_i420 = false, loop = false, help = false;
  flags.add_string("--input", "PATH", "a PNG photo or a y4m clip", &input);
  flags.add_string("--crop", "WxH+X+Y", "keep this region", &crop);
  flags.add_switch("--gray", "keep the luma plane only", &gray);
  flags.add_switch("--loop", "a clip with fewer than --frames frames is repeated from its first frame", &loop);
  flags.add_switch("--as-i420", "GRAY8 -> I420 with the same luma and chroma 128", &as_i420);
  flags.add_number("--start", "N", "first frame of a clip (default 0)", 0, 1e9, &start);
  flags.add_number("--frames", "N", "frames: of a clip (default: all), copies of a photo (default 1)", 0, 1e9, &frames);
  flags.add_number("--sigma", "S", "AWGN std in 8-bit code values (default 0: none)", 0, 255, &sigma);
  flags.add_uint64("--seed-base", "B", "frame f gets seed B + f (default 1)", &seed_base);
  flags.add_string("--clean-out", "PATH", "write the clean frames (y4m)", &clean_out);
  flags.add_string("--noisy-out", "PATH", "write the noisy frames (y4m)", &noisy_out);
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("prepare takes no positional arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval prepare --input PATH [options]\n\n%s", flags.help().c_str());
    return kOk;
  }
  if (input.empty()) throw tools::UsageError("--input is required");
  if (clean_out.empty() && noisy_out.empty()) throw tools::UsageError("give --clean-out and/or --noisy-out");

  Y4mInfo info;
  std::vector<HostFrame> clean;
  if (ends_with(input, ".png") || ends_with(input, ".PNG") || ends_with(input, ".pgm")) {
    const tools::Image img = tools::to_8bit(tools::read_image(input));
    HostFrame f = tools::image_to_frame(img);
    info.format = f.view().format;
    info.range = Range::Full;
    const int copies = frames > 0 ? static_cast<int>(frames) : 1;
    for (int i = 0; i < copies; ++i) clean.push_back(clone_frame(f.view()));
  } else {
    Y4mReader r(input);
    info = r.info();
    const int first = static_cast<int>(start), count = frames > 0 ? static_cast<int>(frames) : -1;
    for (int i = 0; count < 0 || static_cast<int>(clean.size()) < count; ++i) {
      HostFrame f(info.format, info.width, info.height);
      if (!r.read(f.view())) break;
      if (i >= first) clean.push_back(std::move(f));
    }
    for (std::size_t i = 0; loop && count > 0 && !clean.empty() && static_cast<int>(clean.size()) < count; ++i)
      clean.push_back(clone_frame(clean[i].view()));
    if (clean.empty() || (count > 0 && static_cast<int>(clean.size()) < count))
      throw Y4mError(input + ": has fewer than " + std::to_string(first + std::max(count, 1)) + " frames");
  }
  for (HostFrame& f : clean) {
    if (!crop.empty()) f = crop_frame(f.view(), parse_region("--crop", crop));
    if (gray) f = luma_frame(f.view());
    if (as_i420) f = gray_to_i420(f.view());
  }
  info.format = clean[0].view().format;
  info.width = clean[0].view().width;
  info.height = clean[0].view().height;
  if (!clean_out.empty()) write_y4m(clean_out, info, clean);
  if (!noisy_out.empty()) {
    std::vector<HostFrame> noisy;
    for (std::size_t i = 0; i < clean.size(); ++i) {
      noisy.push_back(clone_frame(clean[i].view()));
      if (sigma > 0) add_gaussian_noise(noisy.back().view(), sigma, seed_base + i);
    }
    write_y4m(noisy_out, info, noisy);
  }
  tools::Json j;
  j["width"] = info.width, j["height"] = info.height, j["format"] = format_name(info.format);
  j["frames"] = static_cast<int>(clean.size()), j["range"] = range_name(info.range);
  j["fps_num"] = info.fps_num, j["fps_den"] = info.fps_den, j["sigma"] = sigma;
  std::printf("%s\n", tools::json_line(j).c_str());
  return kOk;
}

}  // namespace cdn::eval
