// fuzz_support.h: what the libFuzzer targets of tests/fuzz/ share: the input as
// a file (the readers under test take paths, as the tools give them), and how a
// target reports a broken invariant (abort: libFuzzer keeps the input).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cdn::fuzz {

// An in-memory file (memfd) reused for every input, named /proc/self/fd/N: the
// readers open it through their own code paths (fopen, libavformat's file
// protocol, seeks included), so the target runs exactly what the tools run.
class MemFile {
 public:
  MemFile() {
    fd_ = ::memfd_create("cdn-fuzz-input", MFD_CLOEXEC);
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  // Replaces the file's contents with data[0, size).
  void set(const std::uint8_t* data, std::size_t size) {
    if (::ftruncate(fd_, 0) != 0) std::abort();
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
  }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// A broken invariant: say which, and abort so that libFuzzer saves the input.
[[noreturn]] inline void fuzz_fail(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace cdn::fuzz
