// main.cpp: cudadenoise-transcode, denoise the video of a media file with
// FFmpeg's libav* around cdn::StreamDenoiser (see docs/TRANSCODE.md).
//
//   cudadenoise-transcode -i noisy.mkv -o clean.mkv --mode hybrid
//
// This file only parses, runs and turns failures into one line and an exit
// code (errors.h); the work is in transcode.cpp and the files it wires.
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "error.h"
#include "errors.h"
#include "ffmpeg_log.h"
#include "flags.h"
#include "interrupt.h"
#include "options.h"
#include "transcode.h"

namespace {

constexpr const char* kName = "cudadenoise-transcode";

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", kName, message.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cdn::transcode;
  TranscodeOptions o;
  try {
    o = parse_transcode_options(argc, argv);
  } catch (const cdn::tools::UsageError& e) {
    return fail(kExitUsage, std::string(e.what()) + " (see --help)");
  }
  if (o.help) {
    std::fputs(transcode_usage().c_str(), stdout);
    return kExitOk;
  }
  install_interrupt_handlers();
  install_ffmpeg_log(o.verbose);
  const auto note = [&o](const std::string& m) {
    if (!o.quiet) std::fprintf(stderr, "%s: %s\n", kName, m.c_str());
  };
  int code = kExitOk;
  std::string message;
  try {
    const Summary s = run_transcode(o, note);
    if (o.json) std::printf("%s\n", summary_json(s).c_str());
    else note(summary_text(s));
    return kExitOk;
  } catch (const Failure& f) {
    code = f.code(), message = f.what();
  } catch (const cdn::InvalidArgument& e) {
    code = kExitUsage, message = e.what();
  } catch (const cdn::Error& e) {  // the core library's CUDA failures
    code = kExitGpu, message = e.what();
  } catch (const std::bad_alloc&) {
    code = kExitFailure, message = "out of memory";
  } catch (const std::exception& e) {
    code = kExitFailure, message = e.what();
  }
  // A signal wins: whatever it broke (a read, a write) is not the cause.
  if (interrupt_signal() != 0) return fail(128 + interrupt_signal(), interrupt_signal() == 2 ? "interrupted" : "terminated");
  return fail(code, message);
}
