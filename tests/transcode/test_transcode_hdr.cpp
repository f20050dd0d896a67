// test_transcode_hdr.cpp: HDR10 metadata through cudadenoise-transcode (issue
// 33, item 1): mastering display and content light level, whether they come as
// SEI in the bitstream (frame side data, what libx265's master-display /
// max-cll write) or as MP4 mdcv/clli boxes (stream side data), reach the
// output's container and its bitstream, for HEVC and H.264, in Matroska and
// MP4; what cannot be carried is said on stderr and in --json.
#include "clip_remux.h"
#include "clip_support.h"
#include "hdr10_values.h"

namespace {

using namespace cdn::transcode_test;

std::string g_skip;

// libx265's parameters for the HDR10 values (hdr10_values.h).
const std::string kX265Hdr10 = std::string(":master-display=") + kHdr10MasterDisplay + ":max-cll=" + kHdr10MaxCll;

class Hdr : public ::testing::Test {
 protected:
  // The clips are HEVC made by libx265 (HDR10 in its SEI).
  static void SetUpTestSuite() { have_ffmpeg_cli(&g_skip) && ffmpeg_can_encode("libx265", &g_skip); }

  void SetUp() override {
    if (!g_skip.empty()) GTEST_SKIP() << g_skip;
    dir_ = (fs::temp_directory_path() / ("cdn-transcode-hdr-" + std::to_string(::getpid())) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name())
               .string();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(fs::path(dir_).parent_path());
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // A short HEVC clip of `pix_fmt`, tagged BT.2020 PQ; `x265` adds to its x265-params.
  std::string hevc_clip(const std::string& name, const std::string& pix_fmt, const std::string& x265) {
    const std::string f = path(name);
    make_with_ffmpeg("-f lavfi -i testsrc2=size=128x96:rate=25 -frames:v 5 -pix_fmt " + pix_fmt +
                     " -c:v libx265 -x265-params " + quote("log-level=error" + x265) +
                     " -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc " + quote(f));
    return f;
  }

  std::string dir_;
};

// ffprobe's side data of the first frame (`frame`) or of the video stream, as
// "key=value" lines.
std::string side_data(const std::string& file, bool frame) {
  const std::string what = frame ? "-show_frames -read_intervals %+#1" : "-show_streams";
  return shell(quote(ffprobe()) + " -v error -select_streams v:0 " + what + " " + quote(file)).out;
}

// The value of `key` in ffprobe's "key=N" or "key=N/D" lines (NAN if absent).
double probed_value(const std::string& probed, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(probed, m, std::regex("(^|\n)" + key + "=(-?[0-9]+)(/([0-9]+))?"))) return NAN;
  return std::stod(m[2].str()) / (m[4].matched ? std::stod(m[4].str()) : 1.0);
}

// The HDR10 values (hdr10_values.h) as ffprobe shows them (containers may
// store the fractions reduced).
void expect_hdr10(const std::string& probed, const std::string& where) {
  EXPECT_NE(probed.find("side_data_type=Mastering display metadata"), std::string::npos) << where << "\n" << probed;
  EXPECT_NE(probed.find("side_data_type=Content light level metadata"), std::string::npos) << where << "\n" << probed;
  const std::pair<const char*, double> want[] = {
      {"red_x", 0.68},        {"red_y", 0.32},          {"green_x", 0.265},      {"green_y", 0.69},
      {"blue_x", 0.15},       {"blue_y", 0.06},         {"white_point_x", 0.3127}, {"white_point_y", 0.329},
      {"min_luminance", 0.0001}, {"max_luminance", 1000}, {"max_content", 1000},  {"max_average", 400}};
  for (const auto& [key, value] : want) EXPECT_DOUBLE_EQ(probed_value(probed, key), value) << where << ": " << key;
}

// The H.264/HEVC bitstream's SEI as FFmpeg's trace_headers reads them (FFmpeg
// 5.1's H.264 decoder does not export these SEI as frame side data).
std::string traced_headers(const std::string& file) {
  return shell(quote(ffmpeg()) + " -hide_banner -nostdin -v trace -i " + quote(file) +
               " -map 0:v:0 -c copy -bsf:v trace_headers -frames:v 1 -f null -").err;
}

void expect_hdr10_sei(const std::string& file) {
  const std::string t = traced_headers(file);
  EXPECT_TRUE(std::regex_search(t, std::regex("display_primaries_x\\[0\\] +[01]+ = 13250"))) << file;
  EXPECT_TRUE(std::regex_search(t, std::regex("max_display_mastering_luminance +[01]+ = 10000000"))) << file;
  EXPECT_TRUE(std::regex_search(t, std::regex("max_content_light_level +[01]+ = 1000"))) << file;
  EXPECT_TRUE(std::regex_search(t, std::regex("max_pic_average_light_level +[01]+ = 400"))) << file;
}

TEST_F(Hdr, SeiMetadataReachesContainerAndBitstream) {
  const std::string in = hevc_clip("hdr.mkv", "yuv420p10le", kX265Hdr10);
  expect_hdr10(side_data(in, true), "the input's frames");
  for (const std::string out : {"out.mkv", "out.mp4"}) {
    const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(path(out)) + " --codec hevc --mode pipd --backend cpu --json");
    ASSERT_EQ(r.code, 0) << r.all();
    EXPECT_EQ(r.out.find("\"notes\":[]"), r.out.find("\"notes\"")) << "nothing dropped: " << r.out;
    expect_hdr10(side_data(path(out), true), out + "'s frames (HEVC SEI)");
    expect_hdr10(side_data(path(out), false), out + "'s stream (the container)");
    expect_hdr10_sei(path(out));
  }
  const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(path("h264.mkv")) + " --codec h264 --mode pipd --backend cpu");
  ASSERT_EQ(r.code, 0) << r.all();
  expect_hdr10(side_data(path("h264.mkv"), false), "h264.mkv's stream (the container)");
  expect_hdr10_sei(path("h264.mkv"));
}

TEST_F(Hdr, Mp4BoxMetadataReachesContainerAndBitstream) {
  const std::string plain = hevc_clip("plain.mp4", "yuv420p10le", "");
  const std::string boxed = path("boxed.mp4");
  ASSERT_EQ(remux_with_hdr10(plain, boxed, hdr10_mastering(), hdr10_light_level()), "");
  expect_hdr10(side_data(boxed, false), "the input's mdcv/clli boxes");
  for (const std::string out : {"out.mp4", "out.mkv"}) {
    const ToolRun r = run_tool("-i " + quote(boxed) + " -o " + quote(path(out)) + " --codec hevc --mode pipd --backend cpu");
    ASSERT_EQ(r.code, 0) << r.all();
    expect_hdr10(side_data(path(out), false), out + "'s stream");
    expect_hdr10(side_data(path(out), true), out + "'s frames (HEVC SEI)");
  }
}

TEST_F(Hdr, WhatCannotBeCarriedIsSaid) {
  // y4m holds raw frames and no metadata.
  const std::string in = hevc_clip("hdr8.mkv", "yuv420p", kX265Hdr10);
  const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(path("o.y4m")) + " --mode pipd --backend cpu --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const std::string note = "mastering display and content light level metadata are dropped";
  EXPECT_NE(r.err.find(note), std::string::npos) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\"notes\":\\[\"[^\"]*" + note))) << r.out;
}

}  // namespace
