// error.h: the one error type of the core library, and the CUDA checking macros.
//
// Every CUDA runtime call and every kernel launch in kernels/ goes through
// CDN_CUDA_CHECK / CDN_CHECK_LAUNCH, which turn a failure into a cdn::Error
// carrying the call, the file and line and CUDA's own message. The element
// turns that into a GStreamer error, the tools into an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace cdn {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Thrown for parameters out of range; the message names the parameter and its range.
class InvalidArgument : public Error {
 public:
  explicit InvalidArgument(const std::string& what) : Error(what) {}
};

// The CUDA backend was asked for and no CUDA device can be used (none, no
// driver, or a driver too old): every tool and the element say so the same way.
class NoCudaDevice : public Error {
 public:
  explicit NoCudaDevice(const std::string& why) : Error(why) {}
};

// Thrown when a frame in progress is abandoned through its cancel flag
// (StreamDenoiser::set_cancel_flag); the output frame is incomplete.
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled") {}
};

[[noreturn]] void throw_cuda_error(int code, const char* call, const char* file, int line);

}  // namespace cdn

#define CDN_CUDA_CHECK(call)                                              \
  do {                                                                    \
    const int cdn_rc_ = static_cast<int>(call);                           \
    if (cdn_rc_ != 0) ::cdn::throw_cuda_error(cdn_rc_, #call, __FILE__, __LINE__); \
  } while (0)

// After a <<<>>> launch: catches bad launch configurations at once.
#define CDN_CHECK_LAUNCH(kernel_name)                                     \
  do {                                                                    \
    const int cdn_rc_ = static_cast<int>(cudaGetLastError());             \
    if (cdn_rc_ != 0)                                                     \
      ::cdn::throw_cuda_error(cdn_rc_, "launch of " kernel_name, __FILE__, __LINE__); \
  } while (0)
