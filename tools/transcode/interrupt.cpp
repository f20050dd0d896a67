// interrupt.cpp: signal handling (interrupt.h). The handler only touches
// lock-free atomics, a static buffer and async-signal-safe calls (unlink, _exit).
#include "interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "errors.h"

namespace cdn::transcode {

namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_interrupted{false};  // g_signal != 0, as the library's cancel flag
std::atomic<bool> g_cleanup_armed{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the signal handler may only touch lock-free atomics");
char g_cleanup_path[4096];

void on_signal(int sig) {
  int expected = 0;
  if (g_signal.compare_exchange_strong(expected, sig)) {  // first: let the loop (and the denoiser) unwind
    g_interrupted.store(true);
    return;
  }
  if (g_cleanup_armed.load()) ::unlink(g_cleanup_path);           // second: do not wait
  ::_exit(128 + sig);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return g_signal.load(); }

void check_interrupted() {
  const int sig = g_signal.load();
  if (sig != 0) throw Failure(128 + sig, sig == SIGINT ? "interrupted" : "terminated");
}

const std::atomic<bool>* interrupt_flag() { return &g_interrupted; }

int avio_interrupt_callback(void*) { return g_signal.load() != 0; }

void set_interrupt_cleanup_path(const std::string& path) {
  g_cleanup_armed.store(false);
  if (path.empty() || path.size() >= sizeof g_cleanup_path) return;
  std::memcpy(g_cleanup_path, path.c_str(), path.size() + 1);
  g_cleanup_armed.store(true);
}

}  // namespace cdn::transcode
