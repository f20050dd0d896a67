// output.h: the muxer side. OUTPUT is written to a temporary file beside it
// (".NAME.partXXXXXX.EXT", same directory, so the final rename is atomic) and
// renamed over OUTPUT only by finish(); destroying an unfinished Output removes
// the temporary file. The container format is the one OUTPUT's name (or -f)
// asks for, passed to libavformat explicitly since the temporary name differs.
//
// Streams keep the input's order. The video stream gets the encoder's
// parameters (set_video); every other stream is a stream copy: same codec
// parameters, metadata and disposition, packets untouched but for their
// timestamps, rescaled to the output stream's time base. Global metadata and
// chapters are copied. Copied packets read before the header can be written
// (it needs the video encoder, opened on the first frame) are queued.
#pragma once

#include <string>
#include <vector>

#include "av_ptr.h"
#include "input.h"
#include "options.h"

namespace cdn::transcode {

class Output {
 public:
  // Throws Failure: kExitUsage (unknown container, OUTPUT is the input),
  // kExitOutput (OUTPUT exists without -y, directory missing or not writable).
  Output(const Input& input, const TranscodeOptions& o);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Whether the encoder must put its headers in extradata (mp4, mkv, ...).
  bool needs_global_header() const;
  const char* format_name() const;

  // Gives the video stream the encoder's parameters and writes the header.
  void set_video(const AVCodecContext* encoder);
  bool header_written() const { return header_written_; }

  // A packet of the video encoder (time base: encoder_tb).
  void write_video(AVPacket* pkt, AVRational encoder_tb);
  // A packet read from the input (its stream_index is the input's): copied,
  // or dropped if its stream is not in the output.
  void write_copy(AVPacket* pkt);

  // Trailer, close, rename to OUTPUT. Throws Failure(kExitOutput).
  void finish();

  const std::string& target() const { return target_; }
  const std::string& temp_path() const { return temp_; }
  // Notes about dropped streams ("" if none).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void open(const TranscodeOptions& o);
  void create_temp_file();
  void add_streams();
  void write(AVPacket* pkt, int out_index, AVRational from_tb);
  void close_and_remove();  // what the destructor does; also when the constructor fails

  const Input& input_;
  std::string target_, temp_;
  AVFormatContext* ctx_ = nullptr;
  std::vector<int> map_;  // input stream -> output stream, -1: dropped
  std::vector<PacketPtr> pending_;
  std::vector<std::string> notes_;
  bool header_written_ = false;
  bool io_open_ = false;
  bool finished_ = false;
};

}  // namespace cdn::transcode
