// test_transcode_gpu.cpp: cudadenoise-transcode on a GPU host: the NVDEC path
// hands CUDA frames straight to the CUDA denoiser (no host copies), its output
// equals the CPU path's (bit-exact for pipd and hybrid, within the kernels'
// tolerance of 1 code value for nlm3d: tests/kernels/test_gpu_nlm3d.cpp), the
// NVENC fallback (H100/H200 have no NVENC) is announced once, and codecs NVDEC
// cannot take are decoded in software and uploaded. Outputs are compared
// losslessly encoded (--lossless), decoded to raw yuv420p. Skipped without a
// usable CUDA device or without the ffmpeg CLI.
#include "clip_support.h"
#include "cudadenoise/backend.h"

namespace {

using namespace cdn::transcode_test;

Clips g_clips;
std::string g_skip;

struct Diff {
  std::size_t differing = 0;
  int max = 0;
};

Diff compare(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  Diff d;
  EXPECT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const int v = std::abs(int(a[i]) - int(b[i]));
    d.max = std::max(d.max, v);
    d.differing += v != 0;
  }
  return d;
}

class TranscodeGpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    if (!cdn::cuda_available(&why)) {
      g_skip = "no usable CUDA device: " + why;
      return;
    }
    if (!have_ffmpeg_cli(&g_skip)) return;
    g_clips.make();
  }
  static void TearDownTestSuite() { g_clips.remove(); }
  void SetUp() override {
    if (!g_skip.empty()) GTEST_SKIP() << g_skip;
  }
  std::string out(const std::string& name) const { return g_clips.dir + "/" + name; }

  // Runs the same transcode on the GPU and the CPU; returns the GPU run and
  // leaves both outputs decoded in *gpu / *cpu (and the CPU run in *cpu_run).
  ToolRun both(const std::string& input, const std::string& args, std::vector<std::uint8_t>* gpu,
           std::vector<std::uint8_t>* cpu, ToolRun* cpu_run = nullptr) {
    const std::string og = out("gpu.mkv"), oc = out("cpu.mkv");
    const ToolRun g = run_tool("-i " + quote(input) + " -o " + quote(og) + " -y --lossless --json --backend cuda " + args);
    EXPECT_EQ(g.code, 0) << g.all();
    const ToolRun c = run_tool("-i " + quote(input) + " -o " + quote(oc) + " -y --lossless --json --backend cpu " + args);
    EXPECT_EQ(c.code, 0) << c.all();
    if (g.code == 0 && c.code == 0) {
      *gpu = decode_raw(og, "yuv420p");
      *cpu = decode_raw(oc, "yuv420p");
      const std::string pts = "-select_streams v:0 -show_entries frame=pts";
      EXPECT_EQ(probe(og, pts), probe(oc, pts));
    }
    if (cpu_run) *cpu_run = c;
    return g;
  }
};

TEST_F(TranscodeGpu, NvdecPathIsZeroCopyAndEqualsTheCpuPath) {
  for (const char* mode : {"pipd", "hybrid"}) {
    std::vector<std::uint8_t> gpu, cpu;
    const ToolRun g = both(g_clips.noisy, std::string("--mode ") + mode, &gpu, &cpu);
    EXPECT_EQ(json_string(g.out, "decode"), "nvdec") << g.all();
    EXPECT_EQ(json_string(g.out, "filter"), "cuda");
    EXPECT_EQ(json_string(g.out, "host_copies"), "0") << "a frame reached the CUDA filter in host memory";
    EXPECT_NE(json_string(g.out, "gpu"), "null");
    const std::string enc = json_string(g.out, "encode");
    EXPECT_TRUE(enc == "nvenc" || enc == "libx264") << enc;
    if (enc == "libx264") {  // no NVENC (H100/H200): said once, then every frame downloaded once
      std::size_t n = 0;
      for (std::size_t at = 0; (at = g.err.find("h264_nvenc cannot encode here", at)) != std::string::npos; ++at) ++n;
      EXPECT_EQ(n, 1u) << g.err;
      EXPECT_NE(g.err.find("encoding with libx264 on the CPU"), std::string::npos) << g.err;
      EXPECT_EQ(json_string(g.out, "downloads"), std::to_string(Clips::kFrames));
    } else {
      EXPECT_EQ(json_string(g.out, "downloads"), "0");
    }
    const Diff d = compare(gpu, cpu);
    EXPECT_EQ(d.differing, 0u) << mode << ": GPU and CPU outputs differ (max " << d.max << ")";
  }
}

// The JSON summary's "sigma" array, as printed ("<missing>" without one).
std::string json_sigma(const std::string& json) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"sigma\":\\[([^\\]]*)\\]"))) return "<missing>";
  return m[1].str();
}

TEST_F(TranscodeGpu, TemporalModeOnTheGpu) {
  // sigma auto: the NVDEC path's device frames and the CPU path's host frames
  // are counted alike by the noise tracker (noise_tracker.h), so both paths
  // filter every frame at the same sigma and differ only by nlm3d's GPU/CPU
  // rounding (until 2026-11-24 host frames counted a frame earlier: 1.35 % of
  // the samples differed by 1 on the H200).
  std::vector<std::uint8_t> gpu, cpu;
  ToolRun c;
  const ToolRun g = both(g_clips.noisy, "--mode nlm3d --search-radius 2 --temporal-radius 1 --chunk-size 4 --frames 12",
                     &gpu, &cpu, &c);
  EXPECT_EQ(json_string(g.out, "decode"), "nvdec") << g.all();
  EXPECT_EQ(json_string(g.out, "host_copies"), "0");
  EXPECT_EQ(json_string(g.out, "frames"), "12");
  EXPECT_EQ(json_string(g.out, "sigma_estimated"), "true");
  EXPECT_NE(json_sigma(g.out), "<missing>") << g.out;
  EXPECT_EQ(json_sigma(g.out), json_sigma(c.out)) << "the tracked sigma of the GPU and the CPU path";
  const Diff d = compare(gpu, cpu);
  EXPECT_LE(d.max, 1);
  EXPECT_LE(double(d.differing) / std::max<std::size_t>(1, gpu.size()), 1e-4);
}

TEST_F(TranscodeGpu, TemporalModeOverSeveralWorkersGivesTheSameFrames) {
  // --gpu 0,0: two workers on one GPU take the multi-device path; with two GPUs, --gpu 0,1 too.
  const int count = cdn::cuda_device_count();
  const std::string args = "--mode nlm3d --search-radius 2 --temporal-radius 1 --chunk-size 3 --frames 12 --sigma 15";
  const std::string o1 = out("one.mkv");
  const ToolRun one = run_tool("-i " + quote(g_clips.noisy) + " -o " + quote(o1) + " -y --lossless --json " + args);
  ASSERT_EQ(one.code, 0) << one.all();
  const auto want = decode_raw(o1, "yuv420p");
  for (const char* gpus : {"0,0", "0,1"}) {
    if (std::string(gpus) == "0,1" && count < 2) continue;
    const std::string om = out("many.mkv");
    const ToolRun many =
        run_tool("-i " + quote(g_clips.noisy) + " -o " + quote(om) + " -y --lossless --json --gpu " + gpus + " " + args);
    ASSERT_EQ(many.code, 0) << many.all();
    EXPECT_EQ(json_string(many.out, "host_copies"), "0");
    const Diff d = compare(decode_raw(om, "yuv420p"), want);
    EXPECT_EQ(d.differing, 0u) << "--gpu " << gpus;
  }
}

TEST_F(TranscodeGpu, Bm3dOnTheGpu) {
  // Float aggregation with atomics (docs/BM3D.md): equal to the CPU path within
  // the kernel tolerance, not bit for bit.
  std::vector<std::uint8_t> gpu, cpu;
  const ToolRun g = both(g_clips.noisy, "--mode bm3d --sigma 20 --frames 6", &gpu, &cpu);
  EXPECT_EQ(json_string(g.out, "decode"), "nvdec") << g.all();
  EXPECT_EQ(json_string(g.out, "filter"), "cuda");
  EXPECT_EQ(json_string(g.out, "host_copies"), "0");
  EXPECT_EQ(json_string(g.out, "frames"), "6");
  double sum = 0;
  for (std::size_t i = 0; i < std::min(gpu.size(), cpu.size()); ++i) sum += std::abs(int(gpu[i]) - int(cpu[i]));
  EXPECT_LT(sum / std::max<std::size_t>(1, gpu.size()), 0.05);
}

TEST_F(TranscodeGpu, SoftwareDecodedFramesAreUploaded) {
  // FFV1 has no NVDEC: software decode, then the CUDA denoiser uploads each frame.
  const std::string ffv1 = out("noisy-ffv1.mkv");
  make_with_ffmpeg("-i " + quote(g_clips.noisy) + " -map 0 -c:v ffv1 -c:a copy " + quote(ffv1));
  std::vector<std::uint8_t> gpu, cpu;
  const ToolRun g = both(ffv1, "--mode hybrid", &gpu, &cpu);
  EXPECT_EQ(json_string(g.out, "decode"), "software") << g.all();
  EXPECT_EQ(json_string(g.out, "filter"), "cuda");
  EXPECT_EQ(json_string(g.out, "host_copies"), std::to_string(Clips::kFrames));
  EXPECT_EQ(compare(gpu, cpu).differing, 0u);
}

TEST_F(TranscodeGpu, NullOutputTimesDecodeAndDenoise) {
  const ToolRun r = run_tool("-i " + quote(g_clips.noisy) + " -f null --backend cuda --json");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_EQ(json_string(r.out, "decode"), "nvdec");
  EXPECT_EQ(json_string(r.out, "filter"), "cuda");
  EXPECT_EQ(json_string(r.out, "encode"), "none");
  EXPECT_EQ(json_string(r.out, "frames"), std::to_string(Clips::kFrames));
}

TEST_F(TranscodeGpu, MissingDeviceExits6) {
  const ToolRun r = run_tool("-i " + quote(g_clips.noisy) + " -o " + quote(out("o.mkv")) + " --backend cuda --gpu 63");
  EXPECT_EQ(r.code, 6) << r.all();
  EXPECT_NE(r.err.find("cannot open CUDA device 63"), std::string::npos) << r.err;
  EXPECT_TRUE(files_containing(g_clips.dir, ".part").empty());
  EXPECT_FALSE(fs::exists(out("o.mkv")));
}

// Interlaced H.264 through NVDEC: the fields are filtered apart as pitched
// half-height views of the device frame (every other line), as on the CPU.
TEST_F(TranscodeGpu, InterlacedFieldsOnTheDeviceEqualTheCpuPath) {
  const std::string in = out("fields.mkv");
  make_with_ffmpeg("-f lavfi -i \"color=gray:s=96x72:r=25,format=gray,geq=lum='if(mod(Y\\,2)\\,180\\,60)',"
                   "noise=alls=12:allf=t,format=yuv420p\" -frames:v 6 -vf setfield=tff -c:v libx264 -qp 0 "
                   "-preset ultrafast -flags +ildct+ilme -x264opts tff=1 " + quote(in));
  for (const char* mode : {"pipd", "hybrid"}) {
    std::vector<std::uint8_t> gpu, cpu;
    const ToolRun g = both(in, std::string("--mode ") + mode, &gpu, &cpu);
    EXPECT_NE(g.err.find("each field is filtered on its own"), std::string::npos) << g.err;
    const Diff d = compare(gpu, cpu);
    EXPECT_EQ(d.differing, 0u) << mode << ": max difference " << d.max;
  }
}

}  // namespace
