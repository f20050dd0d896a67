// clip_remux.h: a stream copy of a clip with side data added to its video
// stream, made with libavformat (FFmpeg 5.1's ffmpeg program has no option
// that writes it): a display matrix ("-metadata rotate" is gone,
// -display_rotation came in 6.0; what phones write: MP4 with a rotation of 90
// degrees), or HDR10's mastering display and content light level (MP4's
// mdcv/clli boxes, Matroska's Colour element).
#pragma once

#include <cstring>
#include <functional>
#include <string>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/mastering_display_metadata.h>
}

namespace cdn::transcode_test {

// Copies every stream of `in` into `out` (container from its name); `add`
// gives the video stream its side data (returns false if it cannot). Returns
// "" or what failed.
inline std::string remux_with_side_data(const std::string& in, const std::string& out,
                                        const std::function<bool(AVStream*)>& add) {
  AVFormatContext* ic = nullptr;
  AVFormatContext* oc = nullptr;
  AVPacket* pkt = av_packet_alloc();
  std::string error;
  auto fail = [&](const std::string& what) {
    if (error.empty()) error = what;
  };
  if (!pkt || avformat_open_input(&ic, in.c_str(), nullptr, nullptr) < 0) fail("cannot open " + in);
  if (error.empty() && avformat_find_stream_info(ic, nullptr) < 0) fail("no stream info in " + in);
  if (error.empty() && avformat_alloc_output_context2(&oc, nullptr, nullptr, out.c_str()) < 0) fail("no muxer for " + out);
  for (unsigned i = 0; error.empty() && i < ic->nb_streams; ++i) {
    AVStream* os = avformat_new_stream(oc, nullptr);
    if (!os || avcodec_parameters_copy(os->codecpar, ic->streams[i]->codecpar) < 0) fail("cannot add a stream");
    if (!os) break;
    os->codecpar->codec_tag = 0;
    os->time_base = ic->streams[i]->time_base;
    if (ic->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) {
      if (!add(os)) fail("cannot add the side data");
    }
  }
  if (error.empty() && avio_open(&oc->pb, out.c_str(), AVIO_FLAG_WRITE) < 0) fail("cannot write " + out);
  if (error.empty() && avformat_write_header(oc, nullptr) < 0) fail("cannot write the header of " + out);
  while (error.empty() && av_read_frame(ic, pkt) >= 0) {
    av_packet_rescale_ts(pkt, ic->streams[pkt->stream_index]->time_base, oc->streams[pkt->stream_index]->time_base);
    pkt->pos = -1;
    if (av_interleaved_write_frame(oc, pkt) < 0) fail("cannot write a packet");
  }
  if (error.empty() && av_write_trailer(oc) < 0) fail("cannot finish " + out);
  if (oc && oc->pb) avio_closep(&oc->pb);
  avformat_free_context(oc);
  avformat_close_input(&ic);
  av_packet_free(&pkt);
  return error;
}

// The video stream carrying a display matrix that turns it by `degrees`
// (counterclockwise, as av_display_rotation_set).
inline std::string remux_with_rotation(const std::string& in, const std::string& out, double degrees) {
  return remux_with_side_data(in, out, [degrees](AVStream* os) {
    auto* m = reinterpret_cast<int32_t*>(av_stream_new_side_data(os, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t)));
    if (m) av_display_rotation_set(m, degrees);
    return m != nullptr;
  });
}

// The video stream carrying mastering display and content light level
// metadata as stream side data (what MP4's mdcv/clli boxes hold).
inline std::string remux_with_hdr10(const std::string& in, const std::string& out,
                                    const AVMasteringDisplayMetadata& mastering, const AVContentLightMetadata& light) {
  return remux_with_side_data(in, out, [&](AVStream* os) {
    uint8_t* m = av_stream_new_side_data(os, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, sizeof mastering);
    uint8_t* l = av_stream_new_side_data(os, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, sizeof light);
    if (m) std::memcpy(m, &mastering, sizeof mastering);
    if (l) std::memcpy(l, &light, sizeof light);
    return m && l;
  });
}

}  // namespace cdn::transcode_test
