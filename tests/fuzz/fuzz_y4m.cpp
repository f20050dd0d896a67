// fuzz_y4m.cpp: libFuzzer target for the y4m reader of the evaluation harness
// (tools/eval/y4m.cpp, through libavformat's yuv4mpegpipe demuxer): open, then
// read up to a few frames, as read_y4m does. Bad input must throw Y4mError; an
// accepted header must announce no more than the file holds (so that no one
// allocates frames for a size the file cannot have).
#include <cstddef>
#include <cstdint>

extern "C" {
#include <libavutil/log.h>
}

#include "cudadenoise/frame.h"
#include "cudadenoise/host_frame.h"
#include "fuzz_support.h"
#include "y4m.h"

namespace {

constexpr int kMaxFrames = 4;

std::size_t frame_bytes(const cdn::eval::Y4mInfo& info) {
  std::size_t n = 0;
  for (int p = 0; p < cdn::format_info(info.format).planes; ++p)
    n += static_cast<std::size_t>(cdn::plane_row_bytes(info.format, info.width, p)) *
         static_cast<std::size_t>(cdn::plane_height(info.format, info.height, p));
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  av_log_set_level(AV_LOG_QUIET);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using cdn::fuzz::fuzz_fail;
  static cdn::fuzz::MemFile file;
  file.set(data, size);
  try {
    cdn::eval::Y4mReader reader(file.path());
    const cdn::eval::Y4mInfo info = reader.info();
    if (info.width <= 0 || info.height <= 0 || info.fps_num <= 0 || info.fps_den <= 0)
      fuzz_fail("the reader accepted a bad header");
    if (frame_bytes(info) > size) fuzz_fail("accepted a header that announces more than the file holds");
    cdn::HostFrame frame(info.format, info.width, info.height);
    for (int i = 0; i < kMaxFrames && reader.read(frame.view()); ++i) {
    }
  } catch (const cdn::eval::Y4mError&) {
  }
  return 0;
}
