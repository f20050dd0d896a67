// test_interlace.cpp: interlaced video, decided once in the library
// (cudadenoise/interlace.h): which modes filter the fields apart and which
// refuse (and the words of the refusal), which heights split into fields, and
// the field views (every other line of each plane, no copy).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/interlace.h"

namespace cdn {
namespace {

TEST(Interlace, PerFrameModesFilterFieldsTemporalModesRefuse) {
  EXPECT_EQ(interlaced_input(Mode::Pipd), InterlacedInput::FilterFields);
  EXPECT_EQ(interlaced_input(Mode::Hybrid), InterlacedInput::FilterFields);
  EXPECT_EQ(interlaced_input(Mode::Bm3d), InterlacedInput::FilterFields);
  EXPECT_EQ(interlaced_input(Mode::Nlm3d), InterlacedInput::Refuse);
  EXPECT_EQ(interlaced_input(Mode::Vbm3d), InterlacedInput::Refuse);
  for (Mode m : all_modes()) {
    SCOPED_TRACE(mode_name(m));
    const std::string why = interlaced_refusal(m, "e.g. bwdif");
    if (interlaced_input(m) == InterlacedInput::FilterFields) {
      EXPECT_EQ(why, "");
      continue;
    }
    // Says the mode, why, what to do (with the caller's deinterlacer) and the modes that take fields.
    EXPECT_EQ(why.rfind(std::string(mode_name(m)) + " filters whole frames", 0), 0u) << why;
    EXPECT_NE(why.find("would mix their two fields"), std::string::npos) << why;
    EXPECT_NE(why.find("deinterlace it first (e.g. bwdif)"), std::string::npos) << why;
    EXPECT_NE(why.find("per-frame mode (pipd, hybrid, bm3d)"), std::string::npos) << why;
    EXPECT_EQ(interlaced_refusal(m).find("()"), std::string::npos) << "no empty hint";
  }
}

TEST(Interlace, FieldsFitWhenEveryPlaneSplitsEvenly) {
  EXPECT_TRUE(fields_fit(PixelFormat::I420, 72));
  EXPECT_TRUE(fields_fit(PixelFormat::NV12, 1080));
  EXPECT_FALSE(fields_fit(PixelFormat::I420, 54));  // 27 chroma lines
  EXPECT_FALSE(fields_fit(PixelFormat::NV12, 54));
  EXPECT_TRUE(fields_fit(PixelFormat::Y444, 54));
  EXPECT_TRUE(fields_fit(PixelFormat::GRAY8, 54));
  EXPECT_FALSE(fields_fit(PixelFormat::GRAY8, 55));
  EXPECT_FALSE(fields_fit(PixelFormat::GRAY8, 0));
  EXPECT_EQ(fields_misfit(PixelFormat::I420, 72), "");
  EXPECT_EQ(fields_misfit(PixelFormat::I420, 54), "a height (54) whose chroma lines do not split evenly into two fields");
  EXPECT_EQ(fields_misfit(PixelFormat::GRAY8, 55), "a height (55) whose lines do not split evenly into two fields");
}

// Every sample of an I420 frame holds its plane and row; each field holds the
// rows of its parity, at half the height, in the frame's own memory.
TEST(Interlace, FieldViewIsEveryOtherLineOfEachPlane) {
  const int w = 8, h = 12;
  HostFrame frame(PixelFormat::I420, w, h);
  const FrameView& v = frame.view();
  for (int p = 0; p < 3; ++p)
    for (int y = 0; y < plane_height(v.format, h, p); ++y)
      for (int x = 0; x < plane_row_bytes(v.format, w, p); ++x)
        static_cast<std::uint8_t*>(v.data[p])[y * v.pitch[p] + x] = static_cast<std::uint8_t>(p * 64 + y);
  for (int parity = 0; parity < 2; ++parity) {
    SCOPED_TRACE(parity);
    const FrameView f = field_view(v, parity);
    EXPECT_EQ(f.format, v.format);
    EXPECT_EQ(f.width, w);
    EXPECT_EQ(f.height, h / 2);
    EXPECT_NO_THROW(validate_frame(f));
    for (int p = 0; p < 3; ++p) {
      EXPECT_EQ(f.pitch[p], 2 * v.pitch[p]);
      ASSERT_EQ(plane_height(f.format, f.height, p), plane_height(v.format, h, p) / 2);
      for (int y = 0; y < plane_height(f.format, f.height, p); ++y)
        for (int x = 0; x < plane_row_bytes(f.format, w, p); ++x)
          ASSERT_EQ(static_cast<const std::uint8_t*>(f.data[p])[y * f.pitch[p] + x], p * 64 + 2 * y + parity)
              << "plane " << p << " row " << y << " column " << x;
    }
  }
  HostFrame odd(PixelFormat::I420, 8, 10);  // 5 chroma lines
  EXPECT_THROW(field_view(odd.view(), 0), InvalidArgument);
  EXPECT_THROW(field_view(v, 2), InvalidArgument);
}

}  // namespace
}  // namespace cdn
