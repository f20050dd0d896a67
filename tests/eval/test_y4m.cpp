// test_y4m.cpp: YUV4MPEG2 reading and writing (tools/eval/y4m.h): headers as
// FFmpeg writes them, exact round trips of every format (odd sizes included),
// and the errors a broken file must give.
#include <gtest/gtest.h>

#include "eval_test_support.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "frame_ops.h"
#include "noise.h"
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

TEST_F(Y4m, ParsesFfmpegHeaders) {
  Y4mInfo i = parse_y4m_header("YUV4MPEG2 W768 H576 F10:1 Ip A0:0 C420jpeg XYSCSS=420JPEG");
  EXPECT_EQ(i.format, PixelFormat::I420);
  EXPECT_EQ(i.width, 768);
  EXPECT_EQ(i.height, 576);
  EXPECT_EQ(i.fps_num, 10);
  EXPECT_EQ(i.range, Range::Unknown);
  i = parse_y4m_header("YUV4MPEG2 W640 H480 F26777:1000 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=LIMITED");
  EXPECT_EQ(i.format, PixelFormat::I420);
  EXPECT_EQ(i.fps_den, 1000);
  EXPECT_EQ(i.range, Range::Limited);
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W8 H8 F25:1 Cmono XCOLORRANGE=FULL").format, PixelFormat::GRAY8);
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W8 H8 F25:1 C444 XYSCSS=444").format, PixelFormat::Y444);
  // No C tag: 4:2:0 by the format's definition.
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W8 H8 F25:1").format, PixelFormat::I420);
}

TEST_F(Y4m, RefusesWhatItCannotHold) {
  EXPECT_THROW(parse_y4m_header("YUV4MPEG W8 H8"), Y4mError);
  EXPECT_THROW(parse_y4m_header("YUV4MPEG2 W8 H8 It C420jpeg"), Y4mError);
  EXPECT_THROW(parse_y4m_header("YUV4MPEG2 W8 H8 C422"), Y4mError);
  EXPECT_THROW(parse_y4m_header("YUV4MPEG2 W0 H8"), Y4mError);
  EXPECT_THROW(parse_y4m_header("YUV4MPEG2 W8 H8 F0:1"), Y4mError);
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
    write_y4m(path("a.y4m"), info, frames);
    const Clip c = read_y4m(path("a.y4m"));
    EXPECT_EQ(c.info.format, f);
    EXPECT_EQ(c.info.range, Range::Full);
    ASSERT_EQ(c.frames.size(), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(same(c.frames[i].view(), frames[i].view())) << format_name(f) << " " << i;
    // The file is exactly header + 3 x (FRAME + samples).
    const std::size_t samples = f == PixelFormat::GRAY8 ? 37 * 23 : f == PixelFormat::I420 ? 37 * 23 + 2 * 19 * 12 : 3 * 37 * 23;
    EXPECT_EQ(fs::file_size(path("a.y4m")), y4m_header(info).size() + 1 + 3 * (6 + samples));
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
