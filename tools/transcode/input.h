// input.h: the demuxer side: opens INPUT ("-" or "pipe:0": standard input),
// picks the video stream, reads packets, and keeps what it needs to tell a
// complete file from a truncated one.
//
// The video stream is FFmpeg's best video stream that is a real video: an
// attached picture (cover art, AV_DISPOSITION_ATTACHED_PIC) is never taken for
// it; if FFmpeg's choice is one, the first real video stream is used. Attached
// pictures are copied like any other stream (output.h).
#pragma once

#include <string>
#include <vector>

extern "C" {
#include <libavformat/avformat.h>
}

namespace cdn::transcode {

class Input {
 public:
  // Throws Failure: kExitInput (missing, unreadable, not a media file, no
  // video stream, only cover art), kExitCodec (a video stream FFmpeg has no
  // decoder for).
  explicit Input(const std::string& path);
  ~Input();
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  AVFormatContext* format() const { return ctx_; }
  AVStream* video() const { return ctx_->streams[video_index_]; }
  int video_index() const { return video_index_; }
  const std::string& path() const { return path_; }
  // Reading standard input (or another pipe): nothing to stat, nothing to seek.
  bool is_pipe() const { return pipe_; }

  // The next packet; false at the end of the file. Throws Failure(kExitInput)
  // on read errors (and the interrupt failure after Ctrl-C).
  bool read(AVPacket* pkt);

  // Back to the start of the file (after a scan); throws Failure(kExitInput).
  void rewind();
  // Seconds from the start to the end of the last packet read, over all streams.
  double read_seconds() const { return read_end_; }
  // The duration the container's header announces, or a negative number when
  // it has none or FFmpeg estimated it (from the bit rate or the file's end).
  double announced_seconds() const;
  // The container's duration however FFmpeg got it (for progress), or < 0.
  double duration_seconds() const;

 private:
  std::string path_;
  AVFormatContext* ctx_ = nullptr;
  // Closes ctx_ when the constructor throws after opening it (no video stream,
  // no decoder, unreadable stream parameters): ~Input() does not run then. After
  // ~Input() it finds ctx_ null and does nothing.
  struct CloseOnThrow {
    AVFormatContext** ctx;
    ~CloseOnThrow() { avformat_close_input(ctx); }
  } close_on_throw_{&ctx_};
  int video_index_ = -1;
  double read_end_ = 0;
  bool pipe_ = false;
};

}  // namespace cdn::transcode
