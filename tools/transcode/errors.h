// errors.h: how cudadenoise-transcode fails: one exception type carrying the
// exit code, and the exit codes themselves (documented in --help and
// docs/TRANSCODE.md; scripts rely on them, so never renumber).
#pragma once

#include "exit_codes.h"
#include <stdexcept>
#include <string>

namespace cdn::transcode {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,       // anything not classified below (a bug, out of memory)
  kExitUsage = 2,         // bad arguments or parameter values
  kExitInput = 3,         // missing, unreadable, corrupt or truncated input, decode errors
  kExitCodec = 4,         // no decoder for the input, no encoder for --codec
  kExitOutput = 5,        // output exists (without -y), cannot be created or written
  kExitGpu = tools::kExitGpu,  // 6: GPU/CUDA failure, --backend cuda without a usable GPU
  kExitInterrupted = 130  // SIGINT (SIGTERM: 143)
};

// Thrown anywhere in the tool; main() prints what() on one line and exits with code().
class Failure : public std::runtime_error {
 public:
  Failure(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// FFmpeg's text for an AVERROR code, followed by the last error FFmpeg logged
// (if any, and if it adds something): "Invalid data found when processing input".
std::string av_error(int averror);

}  // namespace cdn::transcode
