// encoder_options.h: the user's quality flags (--crf, --bitrate, --lossless,
// --preset) in each encoder's own terms: libx264/libx265 crf/qp/preset, NVENC
// cq/tune/p1..p7. Kept apart so the mapping can be read (and tested) in one place.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "options.h"

namespace cdn::transcode {

struct EncoderSettings {
  std::map<std::string, std::string> options;  // av_opt name -> value, for avcodec_open2
  std::int64_t bit_rate = 0;                   // AVCodecContext.bit_rate (0: unset)
};

// `encoder` is an FFmpeg encoder name: "libx264", "libx265", "h264_nvenc", "hevc_nvenc".
EncoderSettings encoder_settings(const std::string& encoder, const TranscodeOptions& o);

// The default --crf of --codec (what x264 and x265 use by themselves): 23 / 28.
double default_crf(const std::string& codec);

// NVENC's preset for an x264 preset name (p1 fastest .. p7 slowest).
std::string nvenc_preset(const std::string& x264_preset);

}  // namespace cdn::transcode
