// piece_manifest.h: --manifest FILE, what a written video holds, checked by
// reading the file back once it is closed, before it gets its name: each video
// packet's MD5 as written, and each frame's as decoding the file gives it (a
// software decoder of its codec), taken over its pixels packed as ffmpeg's
// framemd5 muxer packs them (av_image_copy_to_buffer, alignment 1). So the
// manifest says what decoding OUTPUT gives, frame by frame, whatever the
// encoder's losses, and anyone can check a file with `ffmpeg -i F -map 0:v:0
// -f framemd5 -` (frames) or `... -c copy -f framemd5 -` (packets, no decode);
// cudadenoise-farm checks a concatenation of pieces by its packets. One JSON line:
//   {"input":..,"output":..,"range":[A,B],"context":[C,D],"frames":N,
//    "time_base":[num,den],"first_pts":..,"last_pts":..,"end_pts":..,
//    "pix_fmt":..,"width":..,"height":..,"codec":..,"extradata_md5":..,
//    "frame_md5":[..],"packet_md5":[..],"md5":..,"decode_errors":..}
// The timestamps are the encoder's (its time base, the input video's: exact,
// where a container's own time base would round them); `extradata_md5` is the
// file's stream headers' (pieces with equal ones concatenate); `md5` the MD5 of
// the frames' packed pixels one after the other; `decode_errors` the input's
// decode errors (decoder.h) the piece is responsible for (with a range: those
// timestamped in its written span).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "av_ptr.h"

namespace cdn::transcode {

class PieceManifest {
 public:
  // `encoder`: the opened encoder whose packets add() receives (its time base
  // and codec). Throws Failure(kExitCodec) without a decoder for it.
  explicit PieceManifest(const AVCodecContext* encoder);
  // A packet as the encoder gave it (before the muxer rescales it): its timestamps.
  void add(const AVPacket* pkt);
  // The closed file at `path` (OUTPUT before its rename): its packets and frames.
  // Throws Failure when it cannot be read or decoded.
  void read_back(const std::string& path);
  long long frames() const { return static_cast<long long>(frame_md5_.size()); }

  // Writes the line to `path` (through a temporary file renamed over it).
  // `range`/`context`: [A, B) written and [C, D) decoded, or empty for a whole run.
  void write(const std::string& path, const std::string& input, const std::string& output,
             const std::vector<std::int64_t>& range, const std::vector<std::int64_t>& context,
             std::int64_t end_pts, long long decode_errors) const;

 private:
  AVRational time_base_;
  std::string codec_, extradata_md5_, whole_md5_;
  std::vector<std::string> frame_md5_, packet_md5_;
  std::int64_t first_pts_ = AV_NOPTS_VALUE, last_pts_ = AV_NOPTS_VALUE;
  int width_ = 0, height_ = 0, pix_fmt_ = -1;
};

}  // namespace cdn::transcode
