// test_y4m.cpp: YUV4MPEG2 reading and writing (tools/eval/y4m.h, through
// libavformat): headers as FFmpeg writes them, what we cannot hold refused,
// exact round trips of every format (odd sizes included) with the header they
// need, and the errors a broken file must give.
#include <gtest/gtest.h>

#include "eval_test_support.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "cudadenoise/noise.h"
#include "frame_ops.h"
#include "y4m.h"

namespace {

using namespace cdn;
using namespace cdn::eval;
namespace fs = std::filesystem;

class Y4m : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cdn-y4m-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& n) const { return (dir_ / n).string(); }
  fs::path dir_;
};

HostFrame random_frame(PixelFormat f, int w, int h, std::uint64_t seed) {
  HostFrame fr(f, w, h);
  for (const PlaneView& p : components(fr.view()))
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) p.set(x, y, 128);
  add_gaussian_noise(fr.view(), 60, seed);
  return fr;
}

using eval_test::same;

// A file with `header` and `frames` frames of `bytes` samples each (value 7 + frame).
void write_raw(const std::string& path, const std::string& header, int frames, std::size_t bytes) {
  std::ofstream f(path, std::ios::binary);
  f << header << "\n";
  for (int i = 0; i < frames; ++i) f << "FRAME\n" << std::string(bytes, static_cast<char>(7 + i));
}

TEST_F(Y4m, ReadsFfmpegHeaders) {
  write_raw(path("a.y4m"), "YUV4MPEG2 W8 H6 F10:1 Ip A0:0 C420jpeg XYSCSS=420JPEG", 2, 8 * 6 + 2 * 4 * 3);
  Clip c = read_y4m(path("a.y4m"));
  EXPECT_EQ(c.info.format, PixelFormat::I420);
  EXPECT_EQ(c.info.width, 8);
  EXPECT_EQ(c.info.height, 6);
  EXPECT_EQ(c.info.fps_num, 10);
  EXPECT_EQ(c.info.fps_den, 1);
  EXPECT_EQ(c.info.range, Range::Unknown);
  ASSERT_EQ(c.frames.size(), 2u);
  EXPECT_EQ(components(c.frames[1].view())[2].get(3, 2), 8);  // the last sample of the second frame
  write_raw(path("b.y4m"), "YUV4MPEG2 W8 H6 F26777:1000 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=LIMITED", 1,
            8 * 6 + 2 * 4 * 3);
  c = read_y4m(path("b.y4m"));
  EXPECT_EQ(c.info.format, PixelFormat::I420);
  EXPECT_EQ(c.info.fps_num, 26777);
  EXPECT_EQ(c.info.fps_den, 1000);
  EXPECT_EQ(c.info.range, Range::Limited);
  write_raw(path("c.y4m"), "YUV4MPEG2 W8 H8 F25:1 Cmono XCOLORRANGE=FULL", 1, 64);
  c = read_y4m(path("c.y4m"));
  EXPECT_EQ(c.info.format, PixelFormat::GRAY8);
  EXPECT_EQ(c.info.range, Range::Full);
  write_raw(path("d.y4m"), "YUV4MPEG2 W8 H8 F25:1 C444 XYSCSS=444", 1, 3 * 64);
  EXPECT_EQ(read_y4m(path("d.y4m")).info.format, PixelFormat::Y444);
  // No C tag: 4:2:0 by the format's definition.
  write_raw(path("e.y4m"), "YUV4MPEG2 W8 H8 F25:1", 1, 64 + 2 * 16);
  EXPECT_EQ(read_y4m(path("e.y4m")).info.format, PixelFormat::I420);
}

TEST_F(Y4m, RefusesWhatItCannotHold) {
  const std::pair<const char*, std::size_t> bad[] = {
      {"YUV4MPEG W8 H8 F25:1", 96},             // not the magic
      {"YUV4MPEG2 W8 H8 F25:1 It C420jpeg", 96},  // interlaced
      {"YUV4MPEG2 W8 H8 F25:1 C422", 128},      // 4:2:2
      {"YUV4MPEG2 W8 H8 F25:1 C420p10", 192},   // 10 bits
      {"YUV4MPEG2 W0 H8 F25:1 Cmono", 0},
  };
  for (const auto& [header, bytes] : bad) {
    write_raw(path("r.y4m"), header, 1, bytes);
    EXPECT_THROW(read_y4m(path("r.y4m")), Y4mError) << header;
  }
}

TEST_F(Y4m, HeaderAnnouncingMoreThanTheFileHoldsFailsAtOnce) {
  // 16000x16000 4:2:0 is 384 MB a frame: refused when opened, before anyone
  // allocates a frame of that size for the 10 bytes that follow.
  write_raw(path("big.y4m"), "YUV4MPEG2 W16000 H16000 F25:1 C420jpeg", 1, 10);
  try {
    Y4mReader r(path("big.y4m"));
    ADD_FAILURE() << "opened a file that holds no whole frame";
  } catch (const Y4mError& e) {
    EXPECT_NE(std::string(e.what()).find("no whole frame"), std::string::npos) << e.what();
  }
  // A header alone (no frame) is refused the same way; one whole frame is enough.
  write_raw(path("none.y4m"), "YUV4MPEG2 W8 H8 F25:1 Cmono", 0, 0);
  EXPECT_THROW(Y4mReader(path("none.y4m")), Y4mError);
  write_raw(path("one.y4m"), "YUV4MPEG2 W8 H8 F25:1 Cmono", 1, 64);
  EXPECT_EQ(read_y4m(path("one.y4m")).frames.size(), 1u);
}

TEST_F(Y4m, RoundTripsEveryFormatExactly) {
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::I420, PixelFormat::Y444}) {
    Y4mInfo info;
    info.format = f;
    info.width = 37;  // odd: 4:2:0 chroma is 19x12
    info.height = 23;
    info.range = Range::Full;
    std::vector<HostFrame> frames;
    for (int i = 0; i < 3; ++i) frames.push_back(random_frame(f, 37, 23, 10 + i));
    info.fps_num = 30000, info.fps_den = 1001;
    write_y4m(path("a.y4m"), info, frames);
    const Clip c = read_y4m(path("a.y4m"));
    EXPECT_EQ(c.info.format, f);
    EXPECT_EQ(c.info.range, Range::Full);
    EXPECT_EQ(c.info.fps_num, 30000);
    EXPECT_EQ(c.info.fps_den, 1001);
    ASSERT_EQ(c.frames.size(), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(same(c.frames[i].view(), frames[i].view())) << format_name(f) << " " << i;
    // The header says what the frames are, and the file is exactly header + 3 x (FRAME + samples).
    std::string header;
    std::getline(std::ifstream(path("a.y4m")), header);
    EXPECT_EQ(header.rfind("YUV4MPEG2 W37 H23 F30000:1001 Ip ", 0), 0u) << header;
    EXPECT_NE(header.find(f == PixelFormat::GRAY8 ? " Cmono" : f == PixelFormat::I420 ? " C420jpeg" : " C444"),
              std::string::npos) << header;
    EXPECT_NE(header.find(" XCOLORRANGE=FULL"), std::string::npos) << header;
    const std::size_t samples = f == PixelFormat::GRAY8 ? 37 * 23 : f == PixelFormat::I420 ? 37 * 23 + 2 * 19 * 12 : 3 * 37 * 23;
    EXPECT_EQ(fs::file_size(path("a.y4m")), header.size() + 1 + 3 * (6 + samples));
  }
}

TEST_F(Y4m, TruncatedAndForeignFilesThrow) {
  Y4mInfo info;
  info.format = PixelFormat::GRAY8;
  info.width = info.height = 16;
  std::vector<HostFrame> one;
  one.push_back(random_frame(PixelFormat::GRAY8, 16, 16, 1));
  write_y4m(path("t.y4m"), info, one);
  fs::resize_file(path("t.y4m"), fs::file_size(path("t.y4m")) - 5);
  EXPECT_THROW(read_y4m(path("t.y4m")), Y4mError);
  std::ofstream(path("x.y4m")) << "P5\n16 16\n255\n";
  EXPECT_THROW(read_y4m(path("x.y4m")), Y4mError);
  EXPECT_THROW(read_y4m(path("missing.y4m")), Y4mError);
}

TEST_F(Y4m, AWriterThatIsNotClosedLeavesNoFile) {
  Y4mInfo info;
  info.format = PixelFormat::GRAY8;
  info.width = info.height = 8;
  {
    Y4mWriter w(path("p.y4m"), info);
    w.write(random_frame(PixelFormat::GRAY8, 8, 8, 2).view());
  }
  EXPECT_FALSE(fs::exists(path("p.y4m")));
  EXPECT_FALSE(fs::exists(path("p.y4m.part")));
}

}  // namespace
