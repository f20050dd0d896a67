// hdr_metadata.h: HDR10 metadata from the input to the output. FFmpeg 5.1's
// decoders give mastering display colour volume and content light level as
// side data of each decoded frame (from the bitstream's SEI), its demuxers as
// stream side data (mp4 mdcv/clli, Matroska's Colour element). Both are read
// here (the frame's first) and carried twice: into the output stream's side
// data (Matroska, MP4 and MOV write it in their headers), and into the
// bitstream through the encoder's own options (libx265 master-display /
// max-cll, libx264 mastering-display / cll), since FFmpeg 5.1's libx264 and
// libx265 wrappers ignore the frames' side data. What cannot be carried (HDR10+
// dynamic metadata, which no encoder here takes from frames; SEI with NVENC;
// a raw y4m output) is named by dropped_note().
#pragma once

#include <string>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/mastering_display_metadata.h>
}

namespace cdn::transcode {

struct HdrMetadata {
  bool has_mastering = false;
  AVMasteringDisplayMetadata mastering{};
  bool has_light_level = false;
  AVContentLightMetadata light_level{};
  bool has_dynamic = false;  // HDR10+ (SMPTE ST 2094-40) on the frames
  bool any() const { return has_mastering || has_light_level || has_dynamic; }
};

// The metadata of `first` (a decoded frame), else of the input stream's side data.
HdrMetadata hdr_metadata_of(const AVFrame* first, const AVStream* in);

// The encoder's own parameter string for `m` ("" if the encoder takes none or
// `m` has no static metadata): "master-display=G(..)B(..)R(..)WP(..)L(..):max-cll=N,M"
// for libx265, "mastering-display=...:cll=N,M" for libx264.
std::string hdr_encoder_params(const std::string& encoder, const HdrMetadata& m);

// Adds `m`'s static metadata to `out`'s side data, where the stream has none yet.
void add_hdr_stream_side_data(const HdrMetadata& m, AVStream* out);

// What of `m` the output loses, or "" when nothing: `encoder` the FFmpeg
// encoder's name, `container` the muxer's name.
std::string hdr_dropped_note(const HdrMetadata& m, const std::string& encoder, const std::string& container);

}  // namespace cdn::transcode
