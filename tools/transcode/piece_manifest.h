// piece_manifest.h: --manifest FILE, what a written video holds, checked by
// decoding it: every packet the encoder writes is decoded again here (a
// software decoder of the encoder's codec), and each decoded frame's MD5 is
// taken over its pixels packed as ffmpeg's framemd5 muxer packs them
// (av_image_copy_to_buffer, alignment 1). So the manifest says what decoding
// OUTPUT gives, frame by frame, whatever the encoder's losses, and anyone can
// check a file, or a concatenation of pieces, with `ffmpeg -i F -map 0:v:0 -f
// framemd5 -` (cudadenoise-farm does). One JSON line:
//   {"input":..,"output":..,"range":[A,B],"context":[C,D],"frames":N,
//    "time_base":[num,den],"first_pts":..,"last_pts":..,"end_pts":..,
//    "pix_fmt":..,"width":..,"height":..,"codec":..,"extradata_md5":..,
//    "frame_md5":[..],"md5":..,"decode_errors":..}
// `md5` is the MD5 of the frames' packed pixels one after the other;
// `decode_errors` the input's decode errors (decoder.h) the piece is
// responsible for (with a range: those timestamped in its written span).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "av_ptr.h"

struct AVMD5;

namespace cdn::transcode {

class PieceManifest {
 public:
  // `encoder`: the opened encoder whose packets add() receives (its time base,
  // codec and extradata). Throws Failure(kExitCodec) without a decoder for it.
  explicit PieceManifest(const AVCodecContext* encoder);
  // A packet as the encoder gave it (before the muxer rescales it).
  void add(const AVPacket* pkt);
  // After the encoder's last packet: drains the decoder.
  void finish();
  long long frames() const { return static_cast<long long>(md5_.size()); }

  // Writes the line to `path` (through a temporary file renamed over it).
  // `range`/`context`: [A, B) written and [C, D) decoded, or empty for a whole run.
  void write(const std::string& path, const std::string& input, const std::string& output,
             const std::vector<std::int64_t>& range, const std::vector<std::int64_t>& context,
             std::int64_t end_pts, long long decode_errors) const;

 private:
  void drain();
  CodecPtr ctx_;
  AVRational time_base_;
  std::string codec_, extradata_md5_;
  FramePtr frame_;
  std::vector<std::string> md5_;
  std::vector<std::uint8_t> packed_;
  AVMD5* whole_ = nullptr;
  std::int64_t first_pts_ = AV_NOPTS_VALUE, last_pts_ = AV_NOPTS_VALUE;
  int width_ = 0, height_ = 0, pix_fmt_ = -1;

 public:
  ~PieceManifest();
  PieceManifest(const PieceManifest&) = delete;
  PieceManifest& operator=(const PieceManifest&) = delete;
};

}  // namespace cdn::transcode
