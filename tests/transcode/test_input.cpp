// test_input.cpp: cudadenoise-transcode's Input (tools/transcode/input.h) on
// files it must refuse. The refusal must free what libavformat opened: the
// constructor throws after avformat_open_input, where ~Input() does not run
// (found by fuzz-transcode-decode: a Matroska file without a video stream
// leaked its AVFormatContext). The leak shows under LeakSanitizer, that is in
// the sanitizer build (scripts/sanitize.sh), where this program then fails.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "errors.h"
#include "input.h"

namespace cdn::transcode {
namespace {

// A valid WAV file: 0.1 s of 8 kHz mono 16-bit silence; audio only.
std::string write_wav(const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  const std::uint32_t samples = 800, data_bytes = samples * 2;
  std::ofstream f(path, std::ios::binary);
  auto u32 = [&](std::uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](std::uint16_t v) { f.write(reinterpret_cast<const char*>(&v), 2); };
  f.write("RIFF", 4), u32(36 + data_bytes), f.write("WAVEfmt ", 8), u32(16);
  u16(1), u16(1), u32(8000), u32(16000), u16(2), u16(16);
  f.write("data", 4), u32(data_bytes);
  for (std::uint32_t i = 0; i < samples; ++i) u16(0);
  return path;
}

TEST(Input, AudioOnlyFileIsRefusedAndFreed) {
  const std::string wav = write_wav("cdn-test-input-audio-only.wav");
  for (int i = 0; i < 3; ++i) {
    try {
      Input in(wav);
      ADD_FAILURE() << "an audio-only file was taken as video";
    } catch (const Failure& f) {
      EXPECT_EQ(f.code(), kExitInput);
      EXPECT_NE(std::string(f.what()).find("no video stream"), std::string::npos) << f.what();
    }
  }
  std::remove(wav.c_str());
}

TEST(Input, MissingAndNonMediaFilesAreRefused) {
  EXPECT_THROW(Input("/nonexistent/cdn-test-input.mkv"), Failure);
  const std::string junk = (std::filesystem::temp_directory_path() / "cdn-test-input-junk.mkv").string();
  std::ofstream(junk) << "not a media file at all\n";
  try {
    Input in(junk);
    ADD_FAILURE() << "a text file was opened as media";
  } catch (const Failure& f) {
    EXPECT_EQ(f.code(), kExitInput) << f.what();
  }
  std::remove(junk.c_str());
}

}  // namespace
}  // namespace cdn::transcode
