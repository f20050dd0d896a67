// test_frames.cpp: formats, components of frames, and the front door's CPU
// backend on every format (planes filtered or copied as selected).
#include <gtest/gtest.h>

#include "cudadenoise/error.h"
#include "cudadenoise/frame.h"
#include "cudadenoise/host_frame.h"
#include "pipd/pipd_reference.h"
#include "test_support.h"

namespace cdn {
namespace {


void fill_frame(const FrameView& f, std::uint64_t seed) {
  int i = 0;
  for (const auto& c : components(f)) test::fill_random(c, seed + 101 * i++);
}

TEST(Frames, ComponentsOfEveryFormat) {
  for (PixelFormat f : all_formats()) {
    HostFrame frame(f, 17, 11);
    const auto comps = components(frame.view());
    const FormatInfo fi = format_info(f);
    ASSERT_EQ(static_cast<int>(comps.size()), fi.components) << format_name(f);
    EXPECT_EQ(comps[0].width, 17);
    EXPECT_EQ(comps[0].height, 11);
    for (std::size_t c = 1; c < comps.size(); ++c) {
      EXPECT_EQ(comps[c].width, fi.chroma_shift_x ? 9 : 17) << format_name(f);
      EXPECT_EQ(comps[c].height, fi.chroma_shift_y ? 6 : 11) << format_name(f);
      EXPECT_EQ(comps[c].pixel_stride, fi.interleaved_uv ? 2 : 1);
    }
    EXPECT_EQ(comps[0].shift, f == PixelFormat::P010_10LE ? 6 : 0);
    PixelFormat parsed;
    EXPECT_TRUE(parse_format(format_name(f), &parsed));
    EXPECT_EQ(parsed, f);
  }
}

TEST(Frames, InterleavedChromaComponentsDoNotOverlap) {
  HostFrame frame(PixelFormat::NV12, 8, 4);
  const auto c = components(frame.view());
  c[1].set(3, 1, 11);
  c[2].set(3, 1, 22);
  EXPECT_EQ(c[1].get(3, 1), 11);
  EXPECT_EQ(c[2].get(3, 1), 22);
  const auto* row = static_cast<unsigned char*>(frame.view().data[1]) + frame.view().pitch[1];
  EXPECT_EQ(row[6], 11);
  EXPECT_EQ(row[7], 22);
}

TEST(Frames, P010KeepsPaddingBitsZero) {
  HostFrame frame(PixelFormat::P010_10LE, 4, 2);
  const auto c = components(frame.view());
  c[0].set(1, 0, 1023);
  EXPECT_EQ(static_cast<std::uint16_t*>(frame.view().data[0])[1], 1023 << 6);
  EXPECT_EQ(c[0].get(1, 0), 1023);
  EXPECT_EQ(c[0].max_value(), 1023);
}

TEST(Frames, ValidationNamesTheProblem) {
  HostFrame frame(PixelFormat::I420, 16, 16);
  FrameView v = frame.view();
  v.pitch[2] = 3;
  EXPECT_THROW(validate_frame(v), InvalidArgument);
  v = frame.view();
  v.width = 0;
  EXPECT_THROW(validate_frame(v), InvalidArgument);
}

class CpuDenoiserFormats : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(CpuDenoiserFormats, FiltersEachComponentLikeTheReference) {
  const PixelFormat f = GetParam();
  for (PlaneSelection sel : {PlaneSelection::All, PlaneSelection::Luma}) {
    HostFrame in(f, 33, 21), out(f, 33, 21);
    fill_frame(in.view(), 5);
    DenoiseSettings s;
    s.mode = Mode::Hybrid;
    s.planes = sel;
    auto den = StreamDenoiser::create(Backend::Cpu, s, f, 33, 21);
    den->process(in.view(), out.view());
    const auto ic = components(in.view()), oc = components(out.view());
    for (std::size_t c = 0; c < ic.size(); ++c) {
      const bool filtered = c == 0 || sel == PlaneSelection::All;
      test::HostPlane want(ic[c].width, ic[c].height, ic[c].bytes_per_sample, ic[c].bit_depth);
      want.view.shift = ic[c].shift;
      if (filtered) pipd_reference(ic[c], want.view, Mode::Hybrid, s.pipd, 1);
      for (int y = 0; y < ic[c].height; ++y)
        for (int x = 0; x < ic[c].width; ++x)
          ASSERT_EQ(oc[c].get(x, y), filtered ? want.view.get(x, y) : ic[c].get(x, y))
              << format_name(f) << " component " << c << " at " << x << "," << y;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, CpuDenoiserFormats, ::testing::ValuesIn(all_formats()),
                         [](const auto& info) { return std::string(format_name(info.param)); });

TEST(CpuDenoiser, RejectsMismatchedOrAliasedFrames) {
  HostFrame a(PixelFormat::NV12, 16, 16), b(PixelFormat::NV12, 18, 16);
  auto den = StreamDenoiser::create(Backend::Cpu, DenoiseSettings(), PixelFormat::NV12, 16, 16);
  EXPECT_THROW(den->process(a.view(), b.view()), InvalidArgument);
  EXPECT_THROW(den->process(b.view(), a.view()), InvalidArgument);  // not the stream's size
  EXPECT_THROW(den->process(a.view(), a.view()), InvalidArgument);
  FrameView dev = a.view();
  dev.memory = MemoryKind::Device;
  HostFrame c(PixelFormat::NV12, 16, 16);
  EXPECT_THROW(den->process(dev, c.view()), InvalidArgument);
}

TEST(CpuDenoiser, SettingsChangeBetweenFramesAndBadOnesAreRefused) {
  auto den = StreamDenoiser::create(Backend::Cpu, DenoiseSettings(), PixelFormat::GRAY8, 8, 8);
  DenoiseSettings s;
  s.pipd.segment_length = 99;
  EXPECT_THROW(den->set_settings(s), InvalidArgument);
  EXPECT_EQ(den->settings().pipd.segment_length, 5);
  s = DenoiseSettings();
  s.mode = Mode::Hybrid;
  den->set_settings(s);
  EXPECT_EQ(den->settings().mode, Mode::Hybrid);
  EXPECT_EQ(den->backend(), Backend::Cpu);
}

TEST(Backends, AutoFallsBackToCpuWithoutAGpu) {
  std::string why;
  if (cuda_available(&why)) GTEST_SKIP() << "a GPU is present; this checks the no-GPU fallback";
  EXPECT_EQ(resolve_backend(Backend::Auto), Backend::Cpu);
  EXPECT_THROW(resolve_backend(Backend::Cuda), Error);
  EXPECT_FALSE(why.empty());
}

TEST(Backends, DeviceListsParseOrSayWhatIsWrong) {
  std::vector<int> list = {9};
  std::string why;
  ASSERT_TRUE(parse_cuda_device_list("", &list, &why));
  EXPECT_TRUE(list.empty());
  ASSERT_TRUE(parse_cuda_device_list("1,0,1", &list, &why));
  EXPECT_EQ(list, (std::vector<int>{1, 0, 1}));
  ASSERT_TRUE(parse_cuda_device_list("63", &list, &why));
  EXPECT_EQ(list, std::vector<int>{63});
  for (const char* bad : {"64", "0,", ",1", "0,,1", "a", "-1", "0 1", "1.5", "100"}) {
    list = {7};
    why.clear();
    EXPECT_FALSE(parse_cuda_device_list(bad, &list, &why)) << bad;
    EXPECT_NE(why.find("is not a CUDA device index"), std::string::npos) << bad << ": " << why;
    EXPECT_EQ(list, std::vector<int>{7}) << bad << ": the list is left as it was";
  }
}

}  // namespace
}  // namespace cdn
