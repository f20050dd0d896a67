// test_transcode_unusual.cpp: cudadenoise-transcode on bad and unusual input
// (issue 13), on the CPU path, each with clips made here: a rotated phone clip
// keeps its display matrix; RGB, full-range and BT.709 input keep their
// colours, levels and tags; decode errors in a damaged file are counted,
// reported and can fail the run; pipes in and out; interlaced input is
// filtered field by field and keeps its field order; cover art is not taken
// for the video and is copied; symlinked and linked outputs; --json on
// failure; media_seconds; the progress line's ETA for the temporal mode.
#include <fcntl.h>

#include <cstdint>
#include <cstdio>

#include "clip_remux.h"
#include "clip_support.h"
#include "cudadenoise/interlace.h"

namespace {

using namespace cdn::transcode_test;

std::string g_skip;

class Unusual : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { have_ffmpeg_cli(&g_skip); }

  void SetUp() override {
    if (!g_skip.empty()) GTEST_SKIP() << g_skip;
    dir_ = (fs::temp_directory_path() / ("cdn-transcode-unusual-" + std::to_string(::getpid())) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name())
               .string();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(fs::path(dir_).parent_path());
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // A run in the test's directory (so stray files named "-" or "pipe:1" would show).
  // `args` may redirect the tool's stdin and stdout (a shell runs it).
  ToolRun run_here(const std::string& args) const {
    return shell("sh -c " + quote("cd " + quote(dir_) + " && " + quote(tool()) + " " + args));
  }

  std::string dir_;
};

// Pixel (x, y) of the first frame of `file`, decoded to RGB by ffmpeg (which
// reads the stream's colour tags).
struct Rgb {
  int r, g, b;
};
Rgb pixel(const std::string& file, int w, int x, int y) {
  const auto rgb = decode_raw(file, "rgb24");
  const std::size_t i = (static_cast<std::size_t>(y) * w + x) * 3;
  if (rgb.size() < i + 3) return {-1, -1, -1};
  return {rgb[i], rgb[i + 1], rgb[i + 2]};
}
void expect_rgb_near(const Rgb& got, const Rgb& want, int tolerance, const std::string& what) {
  EXPECT_NEAR(got.r, want.r, tolerance) << what;
  EXPECT_NEAR(got.g, want.g, tolerance) << what;
  EXPECT_NEAR(got.b, want.b, tolerance) << what;
}

// Three bars, black, pure red, white, each 32 wide: the colours a wrong matrix
// or range shows at once (black lifted to 13+, red losing saturation).
const char* kBars =
    "color=black:s=32x48:r=10,format=rgb24[a];color=red:s=32x48:r=10,format=rgb24[b];"
    "color=white:s=32x48:r=10,format=rgb24[c];[a][b][c]hstack=3";

std::string colour_tags(const std::string& file) {
  return probe_one(file, "-select_streams v:0 -show_entries stream=color_range,color_space,color_primaries,color_transfer");
}

TEST_F(Unusual, RotatedPhoneClipKeepsItsDisplayMatrix) {
  const std::string plain = path("plain.mp4"), rotated = path("rotated.mp4");
  make_with_ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 5 -c:v libx264 -preset ultrafast " + quote(plain));
  ASSERT_EQ(remux_with_rotation(plain, rotated, 90), "");  // clockwise: ffprobe says -90
  const std::string rotation = "-select_streams v:0 -show_entries stream_side_data=rotation";
  ASSERT_EQ(probe_one(rotated, rotation), "-90") << "the test clip";

  const ToolRun r = run_tool("-i " + quote(rotated) + " -o " + quote(path("out.mp4")) + " --backend cpu --quiet");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(probe_one(path("out.mp4"), rotation), "-90") << "the output plays sideways without it";
  // Matroska (FFmpeg 5.1) cannot store it: said, not silently lost.
  const ToolRun mkv = run_tool("-i " + quote(rotated) + " -o " + quote(path("out.mkv")) + " --backend cpu");
  ASSERT_EQ(mkv.code, 0) << mkv.all();
  EXPECT_NE(mkv.err.find("displayed rotated by 90 degrees, but matroska cannot store that"), std::string::npos)
      << mkv.err;
}

// --autorotate turns the pixels as ffmpeg's autorotate does and drops the matrix.
TEST_F(Unusual, AutorotateTurnsThePictureUpright) {
  const std::string plain = path("box.mp4"), rotated = path("box-rotated.mp4"), out = path("upright.mkv");
  make_with_ffmpeg("-f lavfi -i \"color=black:s=64x48:r=10,drawbox=x=0:y=0:w=16:h=12:color=white:t=fill\" "
                   "-frames:v 3 -c:v libx264 -preset ultrafast " + quote(plain));
  ASSERT_EQ(remux_with_rotation(plain, rotated, 90), "");
  const ToolRun r = run_tool("-i " + quote(rotated) + " -o " + quote(out) + " --backend cpu --autorotate --no-denoise --lossless");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_NE(r.err.find("--autorotate: the picture is turned 90 degrees clockwise"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("cannot store"), std::string::npos) << r.err;
  EXPECT_EQ(probe_one(out, "-select_streams v:0 -show_entries stream=width,height"), "48,64");
  EXPECT_EQ(probe_one(out, "-select_streams v:0 -show_entries stream_side_data=rotation"), "") << "the matrix is applied";
  // Pixel for pixel what ffmpeg shows for the rotated input (its decoder autorotates).
  EXPECT_EQ(decode_raw(out, "gray"), decode_raw(rotated, "gray"));
  const auto y = decode_raw(out, "gray");
  ASSERT_GE(y.size(), 48u * 64u);
  EXPECT_GT(y[4 * 48 + 44], 200) << "the top-left box is now top right";
  EXPECT_LT(y[4 * 48 + 4], 50);
}

TEST_F(Unusual, RgbInputKeepsItsColours) {
  // bgr0 (FFV1), gbrp (FFV1) and rgb24 (PNG in Matroska): converted to
  // BT.601 limited-range 4:4:4 (an SD size) and tagged so.
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"bgr0", "-c:v ffv1 -pix_fmt bgr0"}, {"gbrp", "-c:v ffv1 -pix_fmt gbrp"}, {"rgb24", "-c:v png -pix_fmt rgb24"}};
  for (const auto& [name, codec] : inputs) {
    SCOPED_TRACE(name);
    const std::string in = path(name + ".mkv");
    make_with_ffmpeg("-f lavfi -i \"" + std::string(kBars) + "\" -frames:v 3 " + codec + " " + quote(in));
    for (const std::string extra : {"--no-denoise --lossless", "--lossless"}) {
      SCOPED_TRACE(extra);
      const std::string out = path(name + "-out.mkv");
      const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(out) + " --backend cpu --quiet -y " + extra);
      ASSERT_EQ(r.code, 0) << r.all();
      EXPECT_EQ(probe_one(out, "-select_streams v:0 -show_entries stream=pix_fmt"), "yuv444p");
      EXPECT_EQ(colour_tags(out), "tv,smpte170m,unknown,unknown");
      expect_rgb_near(pixel(out, 96, 16, 24), {0, 0, 0}, 2, "black");
      expect_rgb_near(pixel(out, 96, 48, 24), {255, 0, 0}, 3, "red");
      expect_rgb_near(pixel(out, 96, 80, 24), {255, 255, 255}, 2, "white");
      if (extra.find("--no-denoise") != std::string::npos) {  // near-exact: 4:4:4, only rounding
        const auto a = decode_raw(in, "rgb24"), b = decode_raw(out, "rgb24");
        ASSERT_EQ(a.size(), b.size());
        int worst = 0;
        for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(int(a[i]) - int(b[i])));
        EXPECT_LE(worst, 3) << "largest difference in any sample";
      }
    }
  }
}

TEST_F(Unusual, HdRgbInputGetsBt709) {
  const std::string in = path("hd.mkv"), out = path("hd-out.mkv");
  make_with_ffmpeg("-f lavfi -i color=red:s=1280x720:r=10 -frames:v 1 -c:v ffv1 -pix_fmt bgr0 " + quote(in));
  const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(out) + " --backend cpu --quiet --no-denoise --lossless");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(colour_tags(out), "tv,bt709,unknown,unknown");
  expect_rgb_near(pixel(out, 1280, 640, 360), {255, 0, 0}, 3, "red");
}

TEST_F(Unusual, YuvRangeMatrixPrimariesAndTransferAreKept) {
  struct Case {
    std::string name, range, tag, matrix, expected_tags;
    int black_y;         // the Y code of black in the output's own range
    std::string stored;  // the output's pix_fmt: decoded to it, the samples are as stored
    std::string format = "yuv420p";  // the input's (4:2:2 is converted to 4:2:0 for cdn)
  };
  const std::vector<Case> cases = {
      {"full-709", "full", "pc", "bt709", "pc,bt709,bt709,bt709", 0, "yuvj420p"},
      {"limited-601", "limited", "tv", "smpte170m", "tv,smpte170m,smpte170m,smpte170m", 16, "yuv420p"},
      {"full-709-422", "full", "pc", "bt709", "pc,bt709,bt709,bt709", 0, "yuvj420p", "yuv422p"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string in = path(c.name + ".mkv"), out = path(c.name + "-out.mkv");
    const std::string matrix = c.matrix == "bt709" ? "bt709" : "bt601";
    make_with_ffmpeg("-f lavfi -i \"" + std::string(kBars) + ",scale=out_range=" + c.range + ":out_color_matrix=" +
                     matrix + ",format=" + c.format + "\" -frames:v 3 -c:v libx264 -qp 0 -preset ultrafast -color_range " +
                     c.tag + " -colorspace " + c.matrix + " -color_primaries " + c.matrix + " -color_trc " + c.matrix +
                     " " + quote(in));
    ASSERT_EQ(colour_tags(in), c.expected_tags) << "the test clip";
    const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(out) + " --backend cpu --quiet --lossless");
    ASSERT_EQ(r.code, 0) << r.all();
    EXPECT_EQ(colour_tags(out), c.expected_tags);
    EXPECT_EQ(probe_one(out, "-select_streams v:0 -show_entries stream=pix_fmt"), c.stored);
    const auto yuv = decode_raw(out, c.stored);
    ASSERT_GE(yuv.size(), 96u * 48u);
    EXPECT_NEAR(yuv[24 * 96 + 16], c.black_y, 2) << "black's Y";
    expect_rgb_near(pixel(out, 96, 16, 24), {0, 0, 0}, 3, "black");
    expect_rgb_near(pixel(out, 96, 48, 24), {255, 0, 0}, 6, "red");
    expect_rgb_near(pixel(out, 96, 80, 24), {255, 255, 255}, 3, "white");
  }
}

TEST_F(Unusual, DecodeErrorsAreCountedReportedAndCanFail) {
  const std::string clean = path("clean.mkv"), damaged = path("damaged.mkv");
  make_with_ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 50 -c:v libx264 -preset ultrafast -g 25 " +
                   quote(clean));
  std::string bytes = read_file(clean);
  for (std::size_t i = 0; i < 200; ++i) bytes[bytes.size() / 2 + i] ^= 0xff;  // 200 bytes flipped mid-file
  std::ofstream(damaged, std::ios::binary) << bytes;

  ToolRun r = run_tool("-i " + quote(clean) + " -o " + quote(path("c.mkv")) + " --backend cpu --no-denoise --json");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(json_string(r.out, "decode_errors"), "0");

  r = run_tool("-i " + quote(damaged) + " -o " + quote(path("d.mkv")) + " --backend cpu --no-denoise --json");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_GE(json_number(r.out, "decode_errors"), 1) << r.out;
  EXPECT_NE(r.err.find("damaged.mkv: decode error: "), std::string::npos) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("[0-9]+ decode errors? \\(damaged packets or frames\\)"))) << r.err;

  for (const char* flag : {"--fail-on-decode-error", "-xerror"}) {
    r = run_tool("-i " + quote(damaged) + " -o " + quote(path("x.mkv")) + " --backend cpu --no-denoise --json " + flag);
    EXPECT_EQ(r.code, 3) << flag << "\n" << r.all();
    EXPECT_NE(r.err.find("decode error"), std::string::npos) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\{"error":"[^"]*decode error[^"]*","code":3\})"))) << r.out;
    EXPECT_FALSE(fs::exists(path("x.mkv")));
    EXPECT_TRUE(files_containing(dir_, ".part").empty());
  }
}

TEST_F(Unusual, PipesInAndOut) {
  const std::string in = path("in.mkv");
  make_with_ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -f lavfi -i sine=duration=1 -frames:v 10 -c:v libx264 "
                   "-preset ultrafast -c:a aac -shortest " + quote(in));
  // -o -: Matroska on stdout, audio copied, the --json line on stderr.
  ToolRun r = run_here("-i " + quote(in) + " -o - --backend cpu --quiet --json > out.mkv");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(json_string(r.err, "frames"), "10") << r.err;
  EXPECT_EQ(probe(path("out.mkv"), "-show_entries stream=codec_type"), (std::vector<std::string>{"video", "audio"}));
  EXPECT_EQ(count_video_frames(path("out.mkv")), 10);
  // pipe:1 the same; -i - reads stdin.
  r = run_here("-i - -o pipe:1 --backend cpu --quiet < " + quote(in) + " > piped.mkv");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(count_video_frames(path("piped.mkv")), 10);
  // Raw frames for another program: y4m with the frame rate and size.
  r = run_here("-i " + quote(in) + " -f yuv4mpegpipe -o - --backend cpu --quiet > out.y4m");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(read_file(path("out.y4m")).rfind("YUV4MPEG2 W64 H48 F10:1", 0), 0u);
  EXPECT_EQ(count_video_frames(path("out.y4m")), 10);
  // A container that must seek back cannot go to a pipe: said before anything is written.
  r = run_here("-i " + quote(in) + " -f mp4 -o - --backend cpu");
  EXPECT_EQ(r.code, 2) << r.all();
  EXPECT_NE(r.err.find("mp4 cannot be written to a pipe"), std::string::npos) << r.err;
  for (const char* stray : {"-", "pipe:1", "pipe:"}) EXPECT_FALSE(fs::exists(path(stray))) << stray;
}

TEST_F(Unusual, InterlacedInputIsFilteredFieldByFieldAndKeepsItsFieldOrder) {
  // The top field is 60 and the bottom field 180, each with its own noise:
  // filtering the woven frame as one picture pulls them together.
  const std::string in = path("fields.mkv");
  make_with_ffmpeg("-f lavfi -i \"color=gray:s=96x72:r=25,format=gray,geq=lum='if(mod(Y\\,2)\\,180\\,60)',"
                   "noise=alls=12:allf=t,format=yuv420p\" -frames:v 6 -vf setfield=tff -c:v libx264 -qp 0 "
                   "-preset ultrafast -flags +ildct+ilme -x264opts tff=1 " + quote(in));
  const std::string order = probe_one(in, "-select_streams v:0 -show_entries stream=field_order");
  ASSERT_TRUE(order == "tt" || order == "tb") << order;
  const std::string out = path("out.mkv");
  const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(out) + " --backend cpu --lossless --mode hybrid");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_NE(r.err.find("the input is interlaced (field order " + order + "): each field is filtered on its own"),
            std::string::npos) << r.err;
  EXPECT_EQ(probe_one(out, "-select_streams v:0 -show_entries stream=field_order"), order) << "never relabelled";
  const auto y = decode_raw(out, "gray");
  const int w = 96, h = 72;
  ASSERT_EQ(y.size(), std::size_t(w) * h * 6);
  for (int parity = 0; parity < 2; ++parity) {
    double sum = 0, sq = 0;
    long n = 0;
    for (std::size_t f = 0; f < 6; ++f)
      for (int row = parity; row < h; row += 2)
        for (int x = 0; x < w; ++x) {
          const double v = y[f * w * h + row * w + x];
          sum += v, sq += v * v, ++n;
        }
    const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, parity ? 180 : 60, 3) << "field " << parity << ": the fields were mixed";
    EXPECT_LT(sd, 8) << "field " << parity << " (noise 12 in): mixed or not denoised";
  }
  // The temporal mode takes whole frames: it refuses, saying what to do.
  ToolRun t = run_tool("-i " + quote(in) + " -o " + quote(path("t.mkv")) + " --backend cpu --mode nlm3d");
  EXPECT_EQ(t.code, 2) << t.all();
  EXPECT_NE(t.err.find("is interlaced (field order " + order + "): --mode nlm3d filters whole frames"),
            std::string::npos) << t.err;
  // Every temporal mode, in the library's words (cudadenoise/interlace.h), which the element shares.
  t = run_tool("-i " + quote(in) + " -o " + quote(path("t.mkv")) + " --backend cpu --mode vbm3d");
  EXPECT_EQ(t.code, 2) << t.all();
  EXPECT_NE(t.err.find("--mode " + cdn::interlaced_refusal(cdn::Mode::Vbm3d, "e.g. ffmpeg -vf bwdif")),
            std::string::npos) << t.err;
  EXPECT_NE(t.err.find("or use a per-frame mode (pipd, hybrid, bm3d)"), std::string::npos) << t.err;
  // HEVC cannot keep the fields (where libx265 can encode at all: the GPU host's
  // runtime bundle ships it as a stub, which the tool's early encoder check meets first).
  std::string why;
  if (ffmpeg_can_encode("libx265", &why)) {
    t = run_tool("-i " + quote(in) + " -o " + quote(path("t.mkv")) + " --backend cpu --codec hevc");
    EXPECT_EQ(t.code, 2) << t.all();
    EXPECT_FALSE(fs::exists(path("t.mkv")));
  } else {
    std::printf("not checked: --codec hevc on interlaced input (%s)\n", why.c_str());
  }
  // A format converted for denoising (4:2:2 -> 4:2:0) is cut into fields in the
  // converted layout: 54 lines do not split 4:2:0 chroma evenly (the bottom
  // field's chroma would run past the plane), refused before any filtering.
  const std::string odd = path("fields422.mkv");
  make_with_ffmpeg("-f lavfi -i \"color=gray:s=64x54:r=25,format=gray,geq=lum='if(mod(Y\\,2)\\,180\\,60)',"
                   "format=yuv422p\" -frames:v 2 -vf setfield=tff -c:v libx264 -qp 0 -preset ultrafast "
                   "-flags +ildct+ilme -x264opts tff=1 " + quote(odd));
  t = run_tool("-i " + quote(odd) + " -f null -o - --backend cpu --mode pipd");
  EXPECT_EQ(t.code, 3) << t.all();
  EXPECT_NE(t.err.find("is interlaced with a height (54) whose chroma lines do not split evenly into two fields"),
            std::string::npos) << t.err;
}

TEST_F(Unusual, CoverArtIsNotTheVideoAndIsCopied) {
  const std::string video = path("v.mp4"), cover = path("cover.png"), with_cover = path("with-cover.mp4");
  make_with_ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -f lavfi -i sine=duration=1 -frames:v 10 -c:v libx264 "
                   "-preset ultrafast -c:a aac -shortest " + quote(video));
  make_with_ffmpeg("-f lavfi -i color=blue:s=32x32 -frames:v 1 " + quote(cover));
  make_with_ffmpeg("-i " + quote(video) + " -i " + quote(cover) +
                   " -map 0 -map 1 -c copy -disposition:v:1 attached_pic " + quote(with_cover));
  const std::string streams = "-show_entries stream=codec_name:stream_disposition=attached_pic";
  ASSERT_EQ(probe(with_cover, streams), (std::vector<std::string>{"h264,0", "aac,0", "png,1"})) << "the test clip";

  // MP4 keeps it as an attached picture; Matroska as the attachment players show as cover art.
  ToolRun r = run_tool("-i " + quote(with_cover) + " -o " + quote(path("out.mp4")) + " --backend cpu --json --quiet");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(json_string(r.out, "frames"), "10") << "the video, not the picture";
  EXPECT_EQ(probe(path("out.mp4"), streams), (std::vector<std::string>{"h264,0", "aac,0", "png,1"}));
  r = run_tool("-i " + quote(with_cover) + " -o " + quote(path("out.mkv")) + " --backend cpu --json --quiet");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(json_string(r.out, "frames"), "10");
  EXPECT_EQ(probe_one(path("out.mkv"), "-select_streams v:1 -show_entries stream_tags=filename,mimetype"),
            "cover.png,image/png");
  make_with_ffmpeg("-i " + quote(path("out.mkv")) + " -map 0:v:1 -c copy -f image2pipe " + quote(path("back.png")));
  EXPECT_EQ(read_file(path("back.png")), read_file(cover)) << "the picture, byte for byte";
  // Matroska cover art in, as its reader gives it (an attached picture after the tracks).
  r = run_tool("-i " + quote(path("out.mkv")) + " -o " + quote(path("again.mkv")) + " --backend cpu --json --quiet");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(json_string(r.out, "frames"), "10");
}

TEST_F(Unusual, OutputsThroughLinksAndNeverOverTheInput) {
  const std::string in = path("in.mkv");
  make_with_ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 3 -c:v libx264 -preset ultrafast " + quote(in));
  const std::string before = read_file(in);
  fs::create_symlink(in, path("sym.mkv"));
  fs::create_hard_link(in, path("hard.mkv"));
  for (const char* other : {"sym.mkv", "hard.mkv"}) {
    const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(path(other)) + " --backend cpu -y");
    EXPECT_EQ(r.code, 2) << other << "\n" << r.all();
    EXPECT_NE(r.err.find("the output is the input file"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_file(in), before);
  // A symlink output is written through: the link stays, the file it names is replaced.
  fs::create_directories(path("real"));
  { std::ofstream(path("real/old.mkv")) << "old"; }
  fs::create_symlink("real/old.mkv", path("link.mkv"));
  const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(path("link.mkv")) + " --backend cpu -y --quiet");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_TRUE(fs::is_symlink(path("link.mkv")));
  EXPECT_EQ(count_video_frames(path("real/old.mkv")), 3);
  EXPECT_TRUE(files_containing(path("real"), ".part").empty());
}

TEST_F(Unusual, JsonSaysWhatFailedAndMediaSecondsIsTheDuration) {
  ToolRun r = run_tool("-i " + quote(path("missing.mkv")) + " -o " + quote(path("o.mkv")) + " --json");
  EXPECT_EQ(r.code, 3);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^\{"error":"[^"]*missing\.mkv: No such file or directory","code":3\}\n$)")))
      << r.out;
  r = run_tool("--tmax 500 -i x -o y.mkv --json");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\{"error":"--tmax: [^"]*","code":2\})"))) << r.out;

  const std::string in = path("ten.mkv");
  make_with_ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 10 -c:v libx264 -preset ultrafast " + quote(in));
  r = run_tool("-i " + quote(in) + " -f null --backend cpu --json --quiet");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_NEAR(json_number(r.out, "media_seconds"), 1.0, 1e-6) << "10 frames at 10 fps: 1 s, not the last pts (0.9)";
}

// The progress line on a terminal (util-linux `script` gives it one): drawn at
// once, while nlm3d fills its window, and its ETA never many times the time
// the run actually still took (it showed 8 minutes for a 10 s job, drawn at
// the first frame of a chunk).
TEST_F(Unusual, ProgressEtaOfTheTemporalModeIsSane) {
  if (shell("script --version").code != 0) GTEST_SKIP() << "no `script` program to give the tool a terminal";
  const std::string in = path("n48.mkv");
  make_with_ffmpeg("-f lavfi -i testsrc2=size=96x72:rate=30,noise=alls=20:allf=t -frames:v 48 -c:v libx264 "
                   "-preset ultrafast " + quote(in));
  const std::string cmd = quote(tool()) + " -i " + quote(in) +
                          " -f null --backend cpu --mode nlm3d --chunk-size 8 --search-radius 2 --temporal-radius 1 --json";
  const ToolRun r = shell("script -qfec " + quote(cmd) + " /dev/null");
  ASSERT_EQ(r.code, 0) << r.all();
  const double total = json_number(r.out, "seconds");
  ASSERT_GT(total, 0) << r.out;
  const std::regex line(R"(frame=\s*(\d+)(?: in=\s*(\d+))? fps=.*elapsed=(\d+):(\d\d):(\d\d) eta=(\?|(\d+):(\d\d):(\d\d)))");
  int lines = 0;
  bool saw_window = false;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    ++lines;
    if (m[1] == "0" && m[2].matched) saw_window = true;
    if (m[6] == "?") continue;
    const double elapsed = std::stoi(m[3]) * 3600 + std::stoi(m[4]) * 60 + std::stoi(m[5]);
    const double eta = std::stoi(m[7]) * 3600 + std::stoi(m[8]) * 60 + std::stoi(m[9]);
    EXPECT_LE(eta, 2.5 * std::max(0.0, total - elapsed) + 1.5) << m[0] << " (the run took " << total << " s)";
  }
  EXPECT_GT(lines, 0) << r.out;
  EXPECT_TRUE(saw_window) << "no line while the window filled:\n" << r.out;
}

}  // namespace

// Issue 33, item 7: a size the encoder cannot take (odd, for 4:2:0) is refused
// before any frame is decoded (no "path:" line, which the first decoded frame
// prints, and no filtering), with exit 2 and what to do; raw y4m output of
// such a size works.
TEST_F(Unusual, OddSizesAreRefusedBeforeDecodingWithWhatToDo) {
  for (const std::string size : {"161x121", "17x9", "3x5", "1x1"}) {
    const std::string in = path("odd" + size + ".mkv");
    // nullsrc keeps an odd size in yuv420p (testsrc2 and color are cut to an even one).
    make_with_ffmpeg("-f lavfi -i " + quote("nullsrc=s=" + size + ":r=10,format=yuv420p,geq=lum=X*7+Y*3:cb=128:cr=128,"
                                             "noise=alls=20:allf=t") + " -frames:v 3 -c:v ffv1 " + quote(in));
    ASSERT_EQ(probe_one(in, "-select_streams v:0 -show_entries stream=width,height,pix_fmt"),
              std::regex_replace(size, std::regex("x"), ",") + ",yuv420p");
    for (const std::string codec : {"h264", "hevc"}) {
      const std::string out = path("o.mkv");
      const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(out) + " --codec " + codec +
                                 " --mode nlm3d --sigma 10 --backend cpu");
      EXPECT_EQ(r.code, 2) << size << " " << codec << "\n" << r.all();
      EXPECT_NE(r.err.find("the video is " + size + ": --codec " + codec + " cannot encode it as yuv420p, which needs "
                           "an even width and height"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("crop or pad"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("-f yuv4mpegpipe"), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("path:"), std::string::npos) << "decoding started: " << r.err;
      EXPECT_FALSE(fs::exists(out));
    }
  }
  const std::string y4m = path("odd.y4m");
  const ToolRun r = run_tool("-i " + quote(path("odd161x121.mkv")) + " -o " + quote(y4m) + " --mode pipd --backend cpu");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(probe_one(y4m, "-select_streams v:0 -show_entries stream=width,height,pix_fmt"), "161,121,yuv420p");
  EXPECT_EQ(count_video_frames(y4m), 3);
}

// An even size below libx265's smallest picture was filtered in full and then
// refused when the encoder opened (exit 4); it is found before decoding too.
TEST_F(Unusual, SizesTheEncoderRefusesAreRefusedBeforeDecoding) {
  std::string why;
  if (!ffmpeg_can_encode("libx265", &why)) GTEST_SKIP() << why;
  for (const std::string size : {"8x8", "16x8", "2x2"}) {
    const std::string in = path("small" + size + ".mkv");
    make_with_ffmpeg("-f lavfi -i " + quote("nullsrc=s=" + size + ":r=10,format=yuv420p,noise=alls=20:allf=t") +
                     " -frames:v 3 -c:v ffv1 " + quote(in));
    const std::string out = path("o.mkv");
    const ToolRun r = run_tool("-i " + quote(in) + " -o " + quote(out) + " --codec hevc --mode nlm3d --sigma 10 --backend cpu");
    EXPECT_EQ(r.code, 2) << size << "\n" << r.all();
    EXPECT_NE(r.err.find("the video is " + size + ": --codec hevc cannot encode it (libx265: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("pad it"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("-f yuv4mpegpipe"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("path:"), std::string::npos) << "decoding started: " << r.err;
    EXPECT_FALSE(fs::exists(out));
    // libx264 takes these sizes: nothing is refused that an encoder can take.
    const ToolRun h = run_tool("-i " + quote(in) + " -o " + quote(out) + " --codec h264 --mode nlm3d --sigma 10 --backend cpu");
    ASSERT_EQ(h.code, 0) << size << "\n" << h.all();
    EXPECT_EQ(count_video_frames(out), 3);
    fs::remove(out);
  }
}
