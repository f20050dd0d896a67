// y4m.h: YUV4MPEG2 (.y4m) files, the lossless frame container of the evaluation
// harness: every method reads its input from one and writes its output to one,
// so all of them see and are judged on identical samples.
//
// Colour spaces: Cmono (GRAY8), C420, C420jpeg, C420paldv, C420mpeg2 (I420) and
// C444 (Y444), 8 bits. XCOLORRANGE=FULL|LIMITED is read and written when known;
// it only matters for display (frame_rgb.h): metrics work on the samples.
// Failures throw Y4mError with the path and the reason.
#pragma once

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_frame.h"

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

// Parses a stream header line (without the newline); throws Y4mError.
Y4mInfo parse_y4m_header(const std::string& line);
// The header line for `info`, without the newline.
std::string y4m_header(const Y4mInfo& info);

class Y4mReader {
 public:
  explicit Y4mReader(const std::string& path);
  const Y4mInfo& info() const { return info_; }
  // Reads the next frame into `frame` (the file's format and size); false at the end.
  bool read(const FrameView& frame);

 private:
  std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  Y4mInfo info_;
};

class Y4mWriter {
 public:
  // Writes to a temporary file beside `path`, renamed over it by close().
  Y4mWriter(const std::string& path, const Y4mInfo& info);
  ~Y4mWriter();
  void write(const FrameView& frame);
  void close();

 private:
  std::string path_, tmp_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  Y4mInfo info_;
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
