// encoder_options.cpp: quality flags per encoder (encoder_options.h).
#include "encoder_options.h"

#include <sstream>

namespace cdn::transcode {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

bool is_nvenc(const std::string& encoder) { return encoder.find("_nvenc") != std::string::npos; }

}  // namespace

double default_crf(const std::string& codec) { return codec == "hevc" ? 28 : 23; }

std::string nvenc_preset(const std::string& p) {
  static const std::map<std::string, std::string> kMap = {
      {"ultrafast", "p1"}, {"superfast", "p1"}, {"veryfast", "p2"}, {"faster", "p2"}, {"fast", "p3"},
      {"medium", "p4"},    {"slow", "p5"},      {"slower", "p6"},   {"veryslow", "p7"}, {"placebo", "p7"}};
  const auto it = kMap.find(p);
  return it == kMap.end() ? "p4" : it->second;
}

EncoderSettings encoder_settings(const std::string& encoder, const TranscodeOptions& o) {
  EncoderSettings s;
  const double crf = o.crf >= 0 ? o.crf : default_crf(o.codec);
  if (is_nvenc(encoder)) {
    s.options["preset"] = nvenc_preset(o.preset.empty() ? "medium" : o.preset);
    if (o.lossless) {
      s.options["tune"] = "lossless";
    } else if (o.bitrate > 0) {
      s.options["rc"] = "vbr";
      s.bit_rate = o.bitrate;
    } else {
      s.options["rc"] = "vbr";  // constant quality: VBR with a cq target and no bit rate
      s.options["cq"] = number(crf);
    }
    return s;
  }
  if (!o.preset.empty()) s.options["preset"] = o.preset;
  std::string x265_params = o.verbose ? "" : "log-level=error";  // x265 prints to stderr by itself
  if (o.lossless) {
    if (encoder == "libx265")
      x265_params += std::string(x265_params.empty() ? "" : ":") + "lossless=1";
    else
      s.options["qp"] = "0";  // lossless at any bit depth (crf 0 is not, at 10 bits)
  } else if (o.bitrate > 0) {
    s.bit_rate = o.bitrate;
  } else {
    s.options["crf"] = number(crf);
  }
  if (encoder == "libx265" && !x265_params.empty()) s.options["x265-params"] = x265_params;
  // A piece of a longer job (--range): headers that do not depend on the piece's
  // content, so that the pieces concatenate into one valid stream.
  if (encoder == "libx264" && o.has_range()) s.options["x264-params"] = "stitchable=1";
  return s;
}

}  // namespace cdn::transcode
