// ffmpeg_log.h: FFmpeg's own log. It stays off the terminal (our messages are
// one line each) unless --verbose; the last error it logged is kept so that a
// failure can quote it, e.g. "OpenEncodeSessionEx failed: unsupported device (2)".
#pragma once

#include <string>

namespace cdn::transcode {

// Routes av_log through us: verbose passes everything from AV_LOG_INFO up to
// stderr, otherwise nothing is printed.
void install_ffmpeg_log(bool verbose);

// The last message FFmpeg logged at AV_LOG_ERROR or worse since the last
// clear, without the "[component @ 0x...]" prefix and the newline ("" if none).
std::string last_ffmpeg_error();
void clear_ffmpeg_error();

}  // namespace cdn::transcode
