// ffmpeg_log.cpp: the av_log callback (ffmpeg_log.h). FFmpeg may log from its
// decoder and encoder threads, so the kept message is behind a mutex.
#include "ffmpeg_log.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

extern "C" {
#include <libavutil/log.h>
}

namespace cdn::transcode {

namespace {

std::mutex g_mutex;
std::string g_last_error;
bool g_verbose = false;

void log_callback(void* avcl, int level, const char* fmt, va_list args) {
  if (level > av_log_get_level()) return;
  if (g_verbose) {
    va_list copy;
    va_copy(copy, args);
    av_log_default_callback(avcl, level, fmt, copy);
    va_end(copy);
  }
  if (level > AV_LOG_ERROR) return;
  char line[1024];
  int print_prefix = 0;  // the message alone, without "[h264 @ 0x...] "
  av_log_format_line2(nullptr, level, fmt, args, line, sizeof line, &print_prefix);
  std::string text = line;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_last_error = text;
}

}  // namespace

void install_ffmpeg_log(bool verbose) {
  g_verbose = verbose;
  av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_ERROR);
  av_log_set_callback(log_callback);
}

std::string last_ffmpeg_error() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_last_error;
}

void clear_ffmpeg_error() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_last_error.clear();
}

}  // namespace cdn::transcode
