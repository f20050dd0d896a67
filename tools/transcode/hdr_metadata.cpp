// hdr_metadata.cpp: HDR10 metadata, input to output (hdr_metadata.h).
#include "hdr_metadata.h"

#include <cstring>
#include <new>

namespace cdn::transcode {

namespace {

// x265's and x264's units: chromaticities in 1/50000, luminance in 1/10000 cd/m2.
long long scaled(AVRational r, int unit) { return r.den ? av_rescale(r.num, unit, r.den) : 0; }

std::string mastering_text(const AVMasteringDisplayMetadata& m) {
  // The encoders' order: green, blue, red (the metadata's is red, green, blue).
  const int order[3] = {1, 2, 0};
  std::string s;
  const char* names[3] = {"G", "B", "R"};
  for (int i = 0; i < 3; ++i)
    s += std::string(names[i]) + "(" + std::to_string(scaled(m.display_primaries[order[i]][0], 50000)) + "," +
         std::to_string(scaled(m.display_primaries[order[i]][1], 50000)) + ")";
  s += "WP(" + std::to_string(scaled(m.white_point[0], 50000)) + "," + std::to_string(scaled(m.white_point[1], 50000)) + ")";
  s += "L(" + std::to_string(scaled(m.max_luminance, 10000)) + "," + std::to_string(scaled(m.min_luminance, 10000)) + ")";
  return s;
}

bool stores_hdr_side_data(const std::string& container) {
  for (const char* n : {"matroska", "webm", "mp4", "mov"})
    if (container.find(n) != std::string::npos) return true;
  return false;
}

}  // namespace

HdrMetadata hdr_metadata_of(const AVFrame* first, const AVStream* in) {
  HdrMetadata m;
  if (const AVFrameSideData* sd = av_frame_get_side_data(first, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)) {
    std::memcpy(&m.mastering, sd->data, sizeof m.mastering);
    m.has_mastering = true;
  } else if (const uint8_t* d = av_stream_get_side_data(in, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, nullptr)) {
    std::memcpy(&m.mastering, d, sizeof m.mastering);
    m.has_mastering = true;
  }
  if (const AVFrameSideData* sd = av_frame_get_side_data(first, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)) {
    std::memcpy(&m.light_level, sd->data, sizeof m.light_level);
    m.has_light_level = true;
  } else if (const uint8_t* d = av_stream_get_side_data(in, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, nullptr)) {
    std::memcpy(&m.light_level, d, sizeof m.light_level);
    m.has_light_level = true;
  }
  m.has_dynamic = av_frame_get_side_data(first, AV_FRAME_DATA_DYNAMIC_HDR_PLUS) != nullptr;
  return m;
}

std::string hdr_encoder_params(const std::string& encoder, const HdrMetadata& m) {
  const bool x265 = encoder == "libx265", x264 = encoder == "libx264";
  if (!x265 && !x264) return "";
  std::string s;
  if (m.has_mastering && m.mastering.has_primaries && m.mastering.has_luminance)
    s += std::string(x265 ? "master-display=" : "mastering-display=") + mastering_text(m.mastering);
  if (m.has_light_level)
    s += std::string(s.empty() ? "" : ":") + (x265 ? "max-cll=" : "cll=") + std::to_string(m.light_level.MaxCLL) +
         "," + std::to_string(m.light_level.MaxFALL);
  return s;
}

void add_hdr_stream_side_data(const HdrMetadata& m, AVStream* out) {
  if (m.has_mastering && !av_stream_get_side_data(out, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, nullptr)) {
    uint8_t* d = av_stream_new_side_data(out, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, sizeof m.mastering);
    if (!d) throw std::bad_alloc();
    std::memcpy(d, &m.mastering, sizeof m.mastering);
  }
  if (m.has_light_level && !av_stream_get_side_data(out, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, nullptr)) {
    uint8_t* d = av_stream_new_side_data(out, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, sizeof m.light_level);
    if (!d) throw std::bad_alloc();
    std::memcpy(d, &m.light_level, sizeof m.light_level);
  }
}

std::string hdr_dropped_note(const HdrMetadata& m, const std::string& encoder, const std::string& container) {
  std::string lost;
  const bool has_static = m.has_mastering || m.has_light_level;
  const bool in_bitstream = !hdr_encoder_params(encoder, m).empty();
  const bool in_container = stores_hdr_side_data(container);
  if (has_static && !in_bitstream && !in_container)
    lost = "the mastering display and content light level metadata are dropped (" + encoder + " does not write them "
           "and " + container + " cannot store them)";
  else if (has_static && !in_bitstream && encoder != "wrapped_avframe")
    lost = "the mastering display and content light level metadata are kept in the " + container +
           " container only: " + encoder + " does not write them into the bitstream";
  if (m.has_dynamic)
    lost += std::string(lost.empty() ? "" : "; ") + "the HDR10+ dynamic metadata is dropped (no encoder here takes it)";
  return lost;
}

}  // namespace cdn::transcode
