// test_image_io.cpp: PNG and PGM round trips, error reporting, size limits on
// crafted headers, writing through symlinks, and reading the real test images
// when scripts/fetch-test-data.sh has fetched them.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "image_io.h"
#include "test_picture.h"

#if defined(__SANITIZE_ADDRESS__)
#define CDN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CDN_TEST_ASAN 1
#endif
#endif
#ifndef CDN_TEST_ASAN
#define CDN_TEST_ASAN 0
#endif

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

// ---- crafted headers: sizes are checked before anything is allocated -------

std::uint32_t crc32(const std::string& bytes) {
  std::uint32_t c = 0xffffffffu;
  for (unsigned char b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

std::string be32(std::uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
}

std::string png_chunk(const std::string& type, const std::string& data) {
  return be32(static_cast<std::uint32_t>(data.size())) + type + data + be32(crc32(type + data));
}

// A PNG of a few dozen bytes whose header claims w x h (8-bit RGB, or 16-bit RGBA).
std::string crafted_png(std::uint32_t w, std::uint32_t h, bool deep) {
  std::string ihdr = be32(w) + be32(h);
  ihdr += deep ? std::string("\x10\x06\x00\x00\x00", 5) : std::string("\x08\x02\x00\x00\x00", 5);
  const std::string idat("\x78\x9c\x03\x00\x00\x00\x00\x01", 8);  // an empty zlib stream
  return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + png_chunk("IDAT", idat) +
         png_chunk("IEND", "");
}

// In a child limited to 1 GiB of address space (an unchecked header would
// allocate gigabytes): exits 0 when read_image throws ImageError whose message
// contains `want`, 1 for another error, 2 for no error.
// Under AddressSanitizer (scripts/sanitize.sh) no address-space limit can be
// set: its shadow memory alone maps terabytes. There the child runs unlimited
// and only the error is checked; the allocation itself is policed by the
// fuzz-image-io target (libFuzzer's 2 GiB malloc limit), which found the
// unchecked header in the first place.
[[noreturn]] void read_with_little_memory(const std::string& file, const std::string& want) {
#if !CDN_TEST_ASAN
  rlimit lim;
  lim.rlim_cur = lim.rlim_max = 1ull << 30;
  ::setrlimit(RLIMIT_AS, &lim);
#endif
  try {
    cdn::tools::read_image(file);
  } catch (const ImageError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(std::strstr(e.what(), want.c_str()) ? 0 : 1);
  } catch (...) {
    std::exit(1);
  }
  std::exit(2);
}

void expect_refused_cheaply(const std::string& file, const std::string& want) {
  EXPECT_EXIT(read_with_little_memory(file, want), ::testing::ExitedWithCode(0), "") << want;
}

TEST_F(ImageIo, CraftedPngHeadersAreRefusedBeforeAllocating) {
  const std::string huge = crafted_png(100000, 100000, false);
  EXPECT_LT(huge.size(), 80u);
  std::ofstream(path("huge.png"), std::ios::binary) << huge;
  expect_refused_cheaply(path("huge.png"), "image too large: 100000x100000");
  // Within the side limit but more pixels than allowed.
  std::ofstream(path("many.png"), std::ios::binary) << crafted_png(60000, 60000, false);
  expect_refused_cheaply(path("many.png"), "image too large: 60000x60000");
  // Within the limits (about 1.9 GB decoded), but the file cannot hold it.
  std::ofstream(path("small.png"), std::ios::binary) << crafted_png(16000, 15000, true);
  expect_refused_cheaply(path("small.png"), "cannot fit in");
}

TEST_F(ImageIo, CraftedPgmHeadersAreRefusedBeforeAllocating) {
  std::ofstream(path("huge.pgm"), std::ios::binary) << "P5\n60000 60000\n65535\n";
  expect_refused_cheaply(path("huge.pgm"), "image too large");
  std::ofstream(path("short.pgm"), std::ios::binary) << "P5\n16000 16000\n65535\n" << std::string(100, 'x');
  expect_refused_cheaply(path("short.pgm"), "truncated PGM data: a 16000x16000 image needs 512000000 bytes");
}

TEST_F(ImageIo, WritingThroughASymlinkKeepsTheLink) {
  fs::create_directories(dir_ / "real");
  const Image first = pattern(8, 8, 1, 8), second = pattern(9, 5, 3, 8);
  cdn::tools::write_image(path("real/x.png"), first);
  fs::create_symlink("real/x.png", dir_ / "link.png");  // relative to the link's directory
  cdn::tools::write_image(path("link.png"), second);
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.png"));
  expect_same(cdn::tools::read_image(path("real/x.png")), second);
  // A dangling link: the file it names is created.
  fs::create_symlink("real/new.png", dir_ / "dangling.png");
  cdn::tools::write_image(path("dangling.png"), first);
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.png"));
  expect_same(cdn::tools::read_image(path("real/new.png")), first);
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
