// main.cpp: cudadenoise-transcode, denoise the video of a media file with
// FFmpeg's libav* around cdn::StreamDenoiser (see docs/TRANSCODE.md).
//
//   cudadenoise-transcode -i noisy.mkv -o clean.mkv --mode hybrid
//
// This file only parses, runs and turns failures into one line and an exit
// code (errors.h); the work is in transcode.cpp and the files it wires. With
// --json a failure also prints {"error":"...","code":N}, so a script always
// reads one JSON object; the JSON goes to stderr when OUTPUT is stdout.
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "cudadenoise/error.h"
#include "errors.h"
#include "ffmpeg_log.h"
#include "flags.h"
#include "interrupt.h"
#include "json.h"
#include "options.h"
#include "transcode.h"

namespace {

constexpr const char* kName = "cudadenoise-transcode";

// Where the --json line goes: stdout, unless the video goes there.
std::FILE* json_stream(const cdn::transcode::TranscodeOptions& o) { return o.output_is_pipe() ? stderr : stdout; }

int fail(int code, const std::string& message, const cdn::transcode::TranscodeOptions* json_for = nullptr) {
  std::fprintf(stderr, "%s: %s\n", kName, message.c_str());
  if (json_for)
    std::fprintf(json_stream(*json_for), "%s\n",
                 cdn::tools::json_line(cdn::tools::Json{{"error", message}, {"code", code}}).c_str());
  return code;
}

// --json among the arguments, for a failure before parsing completes.
bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--json") return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cdn::transcode;
  TranscodeOptions o;
  try {
    o = parse_transcode_options(argc, argv);
  } catch (const cdn::tools::UsageError& e) {
    o.json = wants_json(argc, argv);
    return fail(kExitUsage, std::string(e.what()) + " (see --help)", o.json ? &o : nullptr);
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
    if (o.json) std::fprintf(json_stream(o), "%s\n", summary_json(s).c_str());
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
  const TranscodeOptions* json_for = o.json ? &o : nullptr;
  if (interrupt_signal() != 0)
    return fail(128 + interrupt_signal(), interrupt_signal() == 2 ? "interrupted" : "terminated", json_for);
  return fail(code, message, json_for);
}
