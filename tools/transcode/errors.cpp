// errors.cpp: FFmpeg error text for Failure messages (errors.h).
#include "errors.h"

#include <cstdio>

#include "ffmpeg_log.h"

extern "C" {
#include <libavutil/error.h>
}

namespace cdn::transcode {

std::string av_error(int averror) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {0};
  if (av_strerror(averror, text, sizeof text) < 0) std::snprintf(text, sizeof text, "error %d", averror);
  std::string out = text;
  const std::string detail = last_ffmpeg_error();
  if (!detail.empty() && detail != out) out += " (" + detail + ")";
  clear_ffmpeg_error();
  return out;
}

}  // namespace cdn::transcode
