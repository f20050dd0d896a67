// test_image_io.cpp: PNG and PGM round trips, error reporting, and reading the
// real test images when scripts/fetch-test-data.sh has fetched them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "image_io.h"
#include "test_picture.h"

namespace {

namespace fs = std::filesystem;
using cdn::tools::Image;
using cdn::tools::ImageError;

class ImageIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cdn-image-io-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// Every sample distinct-ish and, for 16 bits, using the high byte.
Image pattern(int w, int h, int channels, int depth) {
  Image img(w, h, channels, depth);
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int v = (x * 7 + y * 13 + c * 51) % 256;
        img.channel(c).set(x, y, depth == 16 ? v * 257 - (x % 3) : v);
      }
  return img;
}

void expect_same(const Image& a, const Image& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  EXPECT_EQ(a.channels, b.channels);
  EXPECT_EQ(a.bit_depth, b.bit_depth);
  EXPECT_TRUE(a.data == b.data);
}

TEST_F(ImageIo, PngRoundTripsEveryLayout) {
  for (int depth : {8, 16})
    for (int channels : {1, 2, 3, 4}) {
      SCOPED_TRACE("depth " + std::to_string(depth) + " channels " + std::to_string(channels));
      const Image img = pattern(37, 21, channels, depth);
      cdn::tools::write_image(path("x.png"), img);
      expect_same(cdn::tools::read_image(path("x.png")), img);
    }
}

TEST_F(ImageIo, PgmRoundTrips8And16Bit) {
  for (int depth : {8, 16}) {
    const Image img = pattern(19, 33, 1, depth);
    cdn::tools::write_image(path("x.pgm"), img);
    expect_same(cdn::tools::read_image(path("x.pgm")), img);
  }
}

TEST_F(ImageIo, PgmWithOtherMaxvalIsRescaledAndCommentsAreSkipped) {
  {
    std::ofstream f(path("ten.pgm"), std::ios::binary);
    f << "P5\n# a comment\n2 1\n1023\n";
    const unsigned char px[] = {0x03, 0xff, 0x02, 0x00};  // 1023, 512 big-endian
    f.write(reinterpret_cast<const char*>(px), sizeof px);
  }
  const Image img = cdn::tools::read_image(path("ten.pgm"));
  ASSERT_EQ(img.bit_depth, 16);
  EXPECT_EQ(img.channel(0).get(0, 0), 65535);
  EXPECT_EQ(img.channel(0).get(1, 0), (512 * 65535 + 511) / 1023);
}

TEST_F(ImageIo, ErrorsNameTheFileAndLeaveNoTemporaries) {
  EXPECT_THROW(cdn::tools::read_image(path("missing.png")), ImageError);
  {
    std::ofstream f(path("junk.png"));
    f << "not an image";
  }
  EXPECT_THROW(cdn::tools::read_image(path("junk.png")), ImageError);
  {  // a PNG signature with nothing after it
    std::ofstream f(path("cut.png"), std::ios::binary);
    f << "\x89PNG\r\n\x1a\n";
  }
  try {
    cdn::tools::read_image(path("cut.png"));
    ADD_FAILURE() << "no error";
  } catch (const ImageError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.png"), std::string::npos) << e.what();
  }
  const Image img = pattern(8, 8, 3, 8);
  EXPECT_THROW(cdn::tools::write_image(path("no/such/dir/x.png"), img), ImageError);
  EXPECT_THROW(cdn::tools::write_image(path("rgb.pgm"), img), ImageError);  // PGM is gray only
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST_F(ImageIo, WritingReplacesAnExistingFile) {
  cdn::tools::write_image(path("x.png"), pattern(8, 8, 1, 8));
  const Image second = pattern(9, 5, 3, 8);
  cdn::tools::write_image(path("x.png"), second);
  expect_same(cdn::tools::read_image(path("x.png")), second);
}

TEST(TestPicture, IsDeterministicAndNotFlat) {
  const Image a = cdn::tools::make_test_picture(), b = cdn::tools::make_test_picture();
  EXPECT_EQ(a.width, 512);
  EXPECT_EQ(a.channels, 3);
  EXPECT_TRUE(a.data == b.data);
  int histogram[256] = {};
  for (int y = 0; y < 512; ++y)
    for (int x = 0; x < 512; ++x) histogram[a.channel(1).get(x, y)]++;
  int used = 0;
  for (int n : histogram) used += n > 0;
  EXPECT_GT(used, 150);  // many grey levels: gradients, shading
}

TEST(RealImages, CameraIsA512GrayPngWhenFetched) {
  const char* dir = std::getenv("CDN_TEST_DATA");
  const std::string file = std::string(dir ? dir : ".testdata") + "/camera.png";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not fetched (scripts/fetch-test-data.sh)";
  const Image img = cdn::tools::read_image(file);
  EXPECT_EQ(img.width, 512);
  EXPECT_EQ(img.height, 512);
  EXPECT_EQ(img.channels, 1);
  EXPECT_EQ(img.bit_depth, 8);
}

}  // namespace
