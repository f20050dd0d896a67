// y4m.cpp: YUV4MPEG2 reading and writing (y4m.h).
#include "y4m.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <unistd.h>

namespace cdn::eval {

namespace {

constexpr const char* kMagic = "YUV4MPEG2";

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw Y4mError(path + ": " + why); }

// Reads one line (up to '\n', which is consumed and not returned); false at EOF.
bool read_line(std::FILE* f, std::string* line, std::size_t max) {
  line->clear();
  for (int c; (c = std::fgetc(f)) != EOF;) {
    if (c == '\n') return true;
    line->push_back(static_cast<char>(c));
    if (line->size() > max) return true;
  }
  return !line->empty();
}

}  // namespace

Y4mInfo parse_y4m_header(const std::string& line) {
  std::istringstream in(line);
  std::string tok;
  if (!(in >> tok) || tok != kMagic) throw Y4mError("not a YUV4MPEG2 stream");
  Y4mInfo info;
  std::string colour = "420jpeg";
  while (in >> tok) {
    const char key = tok[0];
    const std::string val = tok.substr(1);
    if (key == 'W') info.width = std::atoi(val.c_str());
    else if (key == 'H') info.height = std::atoi(val.c_str());
    else if (key == 'C') colour = val;
    else if (key == 'F') {
      if (std::sscanf(val.c_str(), "%d:%d", &info.fps_num, &info.fps_den) != 2 || info.fps_num <= 0 ||
          info.fps_den <= 0)
        throw Y4mError("bad frame rate " + val);
    } else if (key == 'I') {
      if (val != "p" && val != "?") throw Y4mError("interlaced streams are not supported (I" + val + ")");
    } else if (key == 'X') {
      if (val == "COLORRANGE=FULL") info.range = Range::Full;
      else if (val == "COLORRANGE=LIMITED") info.range = Range::Limited;
    }
  }
  if (info.width <= 0 || info.height <= 0) throw Y4mError("missing or bad W/H");
  if (colour == "mono") info.format = PixelFormat::GRAY8;
  else if (colour == "420" || colour == "420jpeg" || colour == "420paldv" || colour == "420mpeg2")
    info.format = PixelFormat::I420;
  else if (colour == "444") info.format = PixelFormat::Y444;
  else throw Y4mError("colour space C" + colour + " is not supported (mono, 420*, 444)");
  return info;
}

std::string y4m_header(const Y4mInfo& info) {
  std::ostringstream o;
  o << kMagic << " W" << info.width << " H" << info.height << " F" << info.fps_num << ":" << info.fps_den
    << " Ip A1:1 C";
  switch (info.format) {
    case PixelFormat::GRAY8: o << "mono"; break;
    case PixelFormat::I420: o << "420jpeg XYSCSS=420JPEG"; break;
    case PixelFormat::Y444: o << "444 XYSCSS=444"; break;
    default: throw Y4mError(std::string("y4m cannot hold ") + format_name(info.format));
  }
  if (info.range == Range::Full) o << " XCOLORRANGE=FULL";
  if (info.range == Range::Limited) o << " XCOLORRANGE=LIMITED";
  return o.str();
}

Y4mReader::Y4mReader(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "rb"), &std::fclose) {
  if (!file_) fail(path, std::strerror(errno));
  std::string line;
  if (!read_line(file_.get(), &line, 4096)) fail(path, "empty file");
  try {
    info_ = parse_y4m_header(line);
  } catch (const Y4mError& e) {
    fail(path, e.what());
  }
}

bool Y4mReader::read(const FrameView& frame) {
  if (frame.format != info_.format || frame.width != info_.width || frame.height != info_.height)
    fail(path_, "frame does not match the stream's format and size");
  std::string line;
  if (!read_line(file_.get(), &line, 4096)) return false;
  if (line.compare(0, 5, "FRAME") != 0) fail(path_, "expected FRAME, got '" + line.substr(0, 16) + "'");
  for (int p = 0; p < format_info(frame.format).planes; ++p) {
    const std::size_t row = plane_row_bytes(frame.format, frame.width, p);
    auto* base = static_cast<unsigned char*>(frame.data[p]);
    for (int y = 0; y < plane_height(frame.format, frame.height, p); ++y)
      if (std::fread(base + y * frame.pitch[p], 1, row, file_.get()) != row) fail(path_, "truncated frame");
  }
  return true;
}

Y4mWriter::Y4mWriter(const std::string& path, const Y4mInfo& info)
    : path_(path), tmp_(path + ".part"), file_(std::fopen(tmp_.c_str(), "wb"), &std::fclose), info_(info) {
  if (!file_) fail(tmp_, std::strerror(errno));
  const std::string h = y4m_header(info) + "\n";
  if (std::fwrite(h.data(), 1, h.size(), file_.get()) != h.size()) fail(tmp_, "write failed");
}

Y4mWriter::~Y4mWriter() {
  if (file_) {
    file_.reset();
    ::unlink(tmp_.c_str());
  }
}

void Y4mWriter::write(const FrameView& frame) {
  if (frame.format != info_.format || frame.width != info_.width || frame.height != info_.height)
    fail(path_, "frame does not match the stream's format and size");
  std::fputs("FRAME\n", file_.get());
  for (int p = 0; p < format_info(frame.format).planes; ++p) {
    const std::size_t row = plane_row_bytes(frame.format, frame.width, p);
    const auto* base = static_cast<const unsigned char*>(frame.data[p]);
    for (int y = 0; y < plane_height(frame.format, frame.height, p); ++y)
      if (std::fwrite(base + y * frame.pitch[p], 1, row, file_.get()) != row) fail(tmp_, "write failed");
  }
}

void Y4mWriter::close() {
  if (!file_) return;
  const bool ok = std::fflush(file_.get()) == 0;
  std::FILE* f = file_.release();
  if (std::fclose(f) != 0 || !ok) fail(tmp_, "write failed");
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail(path_, std::strerror(errno));
}

Clip read_y4m(const std::string& path) {
  Y4mReader r(path);
  Clip c;
  c.info = r.info();
  for (;;) {
    HostFrame f(c.info.format, c.info.width, c.info.height);
    if (!r.read(f.view())) break;
    c.frames.push_back(std::move(f));
  }
  if (c.frames.empty()) fail(path, "no frames");
  return c;
}

HostFrame read_y4m_frame(const std::string& path, int index, Y4mInfo* info) {
  Y4mReader r(path);
  HostFrame f(r.info().format, r.info().width, r.info().height);
  for (int i = 0; i <= index; ++i)
    if (!r.read(f.view())) fail(path, "has no frame " + std::to_string(index));
  if (info) *info = r.info();
  return f;
}

void write_y4m(const std::string& path, const Y4mInfo& info, const std::vector<HostFrame>& frames) {
  Y4mWriter w(path, info);
  for (const HostFrame& f : frames) w.write(f.view());
  w.close();
}

}  // namespace cdn::eval
