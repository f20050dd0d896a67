// clip_support.h: what the cudadenoise-transcode tests share: running the tool
// and the ffmpeg/ffprobe command-line programs, making short test clips, and
// reading decoded frames back as raw planes for cdn's metrics.
//
// ffmpeg and ffprobe come from $CDN_FFMPEG / $CDN_FFPROBE or PATH (on the GPU
// host: `source .gpu-runtime/runtime-env.sh`); without them the tests skip.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cudadenoise/metrics.h"
#include "cudadenoise/plane.h"

#ifndef CDN_TRANSCODE_TOOL
#error "CDN_TRANSCODE_TOOL must name the cudadenoise-transcode binary"
#endif

namespace cdn::transcode_test {

namespace fs = std::filesystem;

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct ToolRun {
  int code = -1;     // exit status; 128 + signal if killed by one
  std::string out;   // stdout
  std::string err;   // stderr
  std::string all() const { return "exit " + std::to_string(code) + "\nstdout: " + out + "\nstderr: " + err; }
};

// Runs a shell command line, capturing stdout and stderr apart.
inline ToolRun shell(const std::string& cmd) {
  const fs::path dir = fs::temp_directory_path();
  const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(std::rand());
  const std::string out = (dir / ("cdn-tx-out-" + tag)).string(), err = (dir / ("cdn-tx-err-" + tag)).string();
  const int status = std::system((cmd + " >" + quote(out) + " 2>" + quote(err) + " </dev/null").c_str());
  ToolRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1);
  r.out = read_file(out);
  r.err = read_file(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

// The tool: $CDN_TRANSCODE_TOOL, else the path the build gave, else (a build
// directory moved to another host) beside this test in the same build tree.
inline std::string tool() {
  if (const char* e = std::getenv("CDN_TRANSCODE_TOOL")) return e;
  if (fs::exists(CDN_TRANSCODE_TOOL)) return CDN_TRANSCODE_TOOL;
  return (fs::read_symlink("/proc/self/exe").parent_path() / "../../tools/transcode/cudadenoise-transcode").string();
}
inline ToolRun run_tool(const std::string& args) { return shell(quote(tool()) + " " + args); }

inline std::string program(const char* env, const char* name) {
  const char* e = std::getenv(env);
  return e && *e ? e : name;
}
inline std::string ffmpeg() { return program("CDN_FFMPEG", "ffmpeg"); }
inline std::string ffprobe() { return program("CDN_FFPROBE", "ffprobe"); }

// True when ffmpeg and ffprobe run; else *why says which is missing.
inline bool have_ffmpeg_cli(std::string* why) {
  for (const std::string& p : {ffmpeg(), ffprobe()})
    if (shell(quote(p) + " -hide_banner -version").code != 0) {
      *why = p + " is not available (set CDN_FFMPEG / CDN_FFPROBE or PATH)";
      return false;
    }
  return true;
}

// True when ffmpeg can encode with `encoder` (one frame to the null muxer); else
// *why says so (the GPU host's runtime bundle ships libx265 as a stub, say).
inline bool ffmpeg_can_encode(const std::string& encoder, std::string* why) {
  const ToolRun r = shell(quote(ffmpeg()) + " -hide_banner -loglevel error -nostdin -f lavfi -i "
                          "testsrc2=size=64x64:rate=25 -frames:v 1 -c:v " + encoder + " -f null -");
  if (r.code == 0) return true;
  *why = "ffmpeg cannot encode with " + encoder + " here: " + r.err.substr(0, r.err.find('\n'));
  return false;
}

// ffmpeg with the given arguments (quiet, overwriting); fails the test on error.
inline void make_with_ffmpeg(const std::string& args) {
  const ToolRun r = shell(quote(ffmpeg()) + " -hide_banner -loglevel error -nostdin -y " + args);
  ASSERT_EQ(r.code, 0) << "ffmpeg " << args << "\n" << r.err;
}

// ffprobe's output lines for `entries` (e.g. "-select_streams v -show_entries frame=pts").
inline std::vector<std::string> probe(const std::string& file, const std::string& entries) {
  const ToolRun r = shell(quote(ffprobe()) + " -v error " + entries + " -of csv=p=0 " + quote(file));
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<std::string> lines;
  std::istringstream s(r.out);
  for (std::string l; std::getline(s, l);) {
    while (!l.empty() && (l.back() == ',' || l.back() == ' ' || l.back() == '\r')) l.pop_back();
    if (!l.empty()) lines.push_back(l);
  }
  return lines;
}

inline std::string probe_one(const std::string& file, const std::string& entries) {
  const auto lines = probe(file, entries);
  return lines.empty() ? "" : lines[0];
}

inline double probe_duration(const std::string& file) {
  const std::string d = probe_one(file, "-show_entries format=duration");
  return d.empty() ? NAN : std::stod(d);
}

inline int count_video_frames(const std::string& file) {
  const std::string n = probe_one(file, "-count_frames -select_streams v:0 -show_entries stream=nb_read_frames");
  return n.empty() ? -1 : std::stoi(n);
}

// The decoded video as raw frames of `pix_fmt` (gray: luma only; yuv420p: all planes).
inline std::vector<std::uint8_t> decode_raw(const std::string& file, const std::string& pix_fmt) {
  const std::string raw = file + "." + pix_fmt + ".raw";
  make_with_ffmpeg("-i " + quote(file) + " -map 0:v:0 -fps_mode passthrough -f rawvideo -pix_fmt " + pix_fmt + " " + quote(raw));
  const std::string bytes = read_file(raw);
  fs::remove(raw);
  return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

// Mean over frames of the luma PSNR of `test` against `reference` (8-bit gray frames of w x h).
inline double mean_luma_psnr(const std::vector<std::uint8_t>& reference, const std::vector<std::uint8_t>& test, int w,
                             int h) {
  const std::size_t frame = static_cast<std::size_t>(w) * h;
  EXPECT_EQ(reference.size(), test.size());
  const std::size_t n = std::min(reference.size(), test.size()) / frame;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    PlaneView a, b;
    a.data = const_cast<std::uint8_t*>(reference.data() + i * frame);
    b.data = const_cast<std::uint8_t*>(test.data() + i * frame);
    a.pitch = b.pitch = static_cast<std::size_t>(w);
    a.width = b.width = w;
    a.height = b.height = h;
    sum += psnr(a, b);
  }
  return n ? sum / n : NAN;
}

inline std::string json_string(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\":(\"([^\"]*)\"|null|-?[0-9.eE+-]+|true|false)")))
    return "<missing>";
  return m[2].matched ? m[2].str() : m[1].str();
}
inline double json_number(const std::string& json, const std::string& key) {
  const std::string v = json_string(json, key);
  try {
    return std::stod(v);
  } catch (...) {
    return NAN;
  }
}

// Files in `dir` whose name contains `part` (temporary outputs are ".NAME.partXXXXXX.EXT").
inline std::vector<std::string> files_containing(const std::string& dir, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(part) != std::string::npos) out.push_back(e.path().filename().string());
  return out;
}

// The clips every suite uses, made once in a temporary directory:
//   clean.mkv   testsrc2 320x240 30 fps, 30 frames, lossless H.264 (the reference)
//   noisy.mkv   the same + temporal Gaussian-like noise, H.264 crf 12, AAC audio,
//               a title and an audio language tag
//   noisy.mp4   noisy.mkv remuxed into MP4
struct Clips {
  static constexpr int kWidth = 320, kHeight = 240, kFrames = 30;
  std::string dir;
  std::string clean, noisy, noisy_mp4;

  void make() {
    dir = (fs::temp_directory_path() / ("cdn-transcode-test-" + std::to_string(::getpid()))).string();
    fs::create_directories(dir);
    clean = dir + "/clean.mkv";
    noisy = dir + "/noisy.mkv";
    noisy_mp4 = dir + "/noisy.mp4";
    const std::string src = "-f lavfi -i testsrc2=size=320x240:rate=30 -frames:v 30";
    make_with_ffmpeg(src + " -c:v libx264 -qp 0 -preset ultrafast " + quote(clean));
    make_with_ffmpeg("-i " + quote(clean) +
                     " -f lavfi -i sine=frequency=440:sample_rate=48000:duration=1"
                     " -vf noise=alls=24:allf=t -c:v libx264 -crf 12 -preset ultrafast -c:a aac"
                     " -metadata title=cdn-test-clip -metadata:s:a:0 language=fra " +
                     quote(noisy));
    make_with_ffmpeg("-i " + quote(noisy) + " -map 0 -c copy " + quote(noisy_mp4));
  }
  void remove() const {
    if (!dir.empty()) fs::remove_all(dir);
  }
};

}  // namespace cdn::transcode_test
