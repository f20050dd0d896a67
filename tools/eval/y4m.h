// y4m.h: YUV4MPEG2 (.y4m) files, the lossless frame container of the evaluation
// harness: every method reads its input from one and writes its output to one,
// so all of them see and are judged on identical samples. Read and written
// through FFmpeg's libavformat (yuv4mpegpipe), as FFmpeg's own peers do.
//
// Pixel formats: mono (GRAY8), 4:2:0 of any chroma siting (I420) and 4:4:4
// (Y444), 8 bits, progressive. XCOLORRANGE=FULL|LIMITED is read and written
// when known; it only matters for display (frame_rgb.h): metrics work on the
// samples. Failures throw Y4mError with the path and the reason.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudadenoise/host_frame.h"

struct AVCodecContext;
struct AVFormatContext;
struct AVFrame;
struct AVPacket;

namespace cdn::eval {

class Y4mError : public std::runtime_error {
 public:
  explicit Y4mError(const std::string& what) : std::runtime_error(what) {}
};

enum class Range { Unknown, Full, Limited };

struct Y4mInfo {
  PixelFormat format = PixelFormat::I420;
  int width = 0;
  int height = 0;
  int fps_num = 25;
  int fps_den = 1;
  Range range = Range::Unknown;
};

class Y4mReader {
 public:
  explicit Y4mReader(const std::string& path);
  ~Y4mReader();
  const Y4mInfo& info() const { return info_; }
  // Reads the next frame into `frame` (the file's format and size); false at the end.
  bool read(const FrameView& frame);

 private:
  struct Close {
    void operator()(AVFormatContext* c) const;
    void operator()(AVPacket* p) const;
  };
  std::string path_;
  std::unique_ptr<AVFormatContext, Close> format_;
  std::unique_ptr<AVPacket, Close> packet_;
  Y4mInfo info_;
  int frame_bytes_ = 0;
  std::int64_t end_ = 0;  // the file offset after the last whole frame read
};

class Y4mWriter {
 public:
  // Writes to a temporary file beside `path`, renamed over it by close().
  Y4mWriter(const std::string& path, const Y4mInfo& info);
  ~Y4mWriter();
  void write(const FrameView& frame);
  void close();

 private:
  struct Close {
    void operator()(AVFormatContext* c) const;
    void operator()(AVCodecContext* c) const;
    void operator()(AVPacket* p) const;
    void operator()(AVFrame* f) const;
  };
  std::string path_, tmp_;
  Y4mInfo info_;
  std::unique_ptr<AVFormatContext, Close> format_;  // null once closed
  std::unique_ptr<AVCodecContext, Close> encoder_;  // wrapped_avframe: FFmpeg 5.1's muxer takes AVFrames
  std::unique_ptr<AVPacket, Close> packet_;
  std::unique_ptr<AVFrame, Close> frame_;
  std::int64_t frames_ = 0;
};

struct Clip {
  Y4mInfo info;
  std::vector<HostFrame> frames;
};

Clip read_y4m(const std::string& path);
// Frame `index` (from 0) of a clip, and its stream info through `info` if given.
HostFrame read_y4m_frame(const std::string& path, int index, Y4mInfo* info = nullptr);
void write_y4m(const std::string& path, const Y4mInfo& info, const std::vector<HostFrame>& frames);

}  // namespace cdn::eval
