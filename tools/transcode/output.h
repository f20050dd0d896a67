// output.h: the muxer side. OUTPUT is written to a temporary file beside it
// (".NAME.partXXXXXX.EXT", same directory, so the final rename is atomic) and
// renamed over OUTPUT only by finish(); destroying an unfinished Output removes
// the temporary file. The container format is the one OUTPUT's name (or -f)
// asks for, passed to libavformat explicitly since the temporary name differs.
// OUTPUT is checked first by tools/common/output_path.h (never the input, -y,
// -n); a symlink is written through: the file it names is replaced.
//
// OUTPUT "-", "pipe:" or "pipe:1" is standard output: written directly (no
// temporary file), Matroska unless -f says otherwise; containers that must seek
// back (mp4, mov, avi) are refused there. -f yuv4mpegpipe writes the denoised
// frames raw (the only stream y4m holds; other streams are dropped with a note).
//
// With --range only the video stream is written (a piece of a longer job).
// Streams keep the input's order. The video stream gets the encoder's
// parameters (set_video) and the input's stream side data (display matrix,
// mastering display, ...); every other stream is a stream copy: same codec
// parameters, side data, metadata and disposition, packets untouched but for
// their timestamps, rescaled to the output stream's time base. An attached
// picture (cover art) is copied as such, and into Matroska as an attachment
// ("cover.png", image/png: what Matroska players show as cover art). Global
// metadata and chapters are copied. Copied packets read before the header can
// be written (it needs the video encoder, opened on the first frame) are queued.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "av_ptr.h"
#include "hdr_metadata.h"
#include "input.h"
#include "options.h"

namespace cdn::transcode {

class Output {
 public:
  // Throws Failure: kExitUsage (unknown container, OUTPUT is the input, a
  // container that cannot go to a pipe), kExitOutput (OUTPUT exists without
  // -y, directory missing or not writable).
  Output(const Input& input, const TranscodeOptions& o);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Whether the encoder must put its headers in extradata (mp4, mkv, ...).
  bool needs_global_header() const;
  const char* format_name() const;
  // Standard output (or another pipe): no temporary file, nothing to rename.
  bool is_pipe() const { return pipe_; }
  // The muxer takes raw frames (yuv4mpegpipe): the encoder is wrapped_avframe.
  bool raw_video() const;

  // Gives the video stream the encoder's parameters and the HDR metadata of the
  // first frame (where the input stream had none), and writes the header.
  void set_video(const AVCodecContext* encoder, const HdrMetadata& hdr);
  bool header_written() const { return header_written_; }

  // A packet of the video encoder (time base: encoder_tb).
  void write_video(AVPacket* pkt, AVRational encoder_tb);
  // A packet read from the input (its stream_index is the input's): copied,
  // or dropped if its stream is not in the output.
  void write_copy(AVPacket* pkt);

  // Trailer, close, rename to OUTPUT. Throws Failure(kExitOutput). `check`, if
  // given, reads the closed file (at the path it is given) before the rename:
  // what it throws leaves OUTPUT untouched.
  void finish(const std::function<void(const std::string& written)>& check = {});

  const std::string& target() const { return target_; }
  const std::string& temp_path() const { return temp_; }
  // Notes about dropped streams ("" if none).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void open(const TranscodeOptions& o);
  void create_temp_file();
  void add_streams();
  void write(AVPacket* pkt, int out_index, AVRational from_tb);
  void add_attachment(const AVStream* cover);  // cover art into Matroska
  void close_and_remove();  // what the destructor does; also when the constructor fails

  const Input& input_;
  std::string target_, temp_;
  std::string real_;  // the file finish() replaces: target_, or what the symlink target_ names
  bool pipe_ = false;
  bool video_only_ = false;  // --range: the video stream alone
  bool autorotate_ = false;  // the display matrix goes into the pixels, not the stream
  AVFormatContext* ctx_ = nullptr;
  std::vector<int> map_;  // input stream -> output stream, -1: dropped
  std::vector<PacketPtr> pending_;
  std::vector<std::string> notes_;
  bool header_written_ = false;
  bool io_open_ = false;
  bool finished_ = false;
};

}  // namespace cdn::transcode
