// interrupt.h: Ctrl-C (SIGINT) and SIGTERM. The first signal only raises a
// flag: the transcode loop, FFmpeg's blocking I/O (through the AVIO interrupt
// callback) and the denoiser (its cancel flag, which reaches the frame or
// temporal chunk being filtered) see it and unwind, which removes the
// temporary output and exits with 128 + the signal number. A second signal
// does not wait: it removes the registered temporary file itself and exits at once.
#pragma once

#include <atomic>
#include <string>

namespace cdn::transcode {

void install_interrupt_handlers();

// 0 while no signal came, else its number.
int interrupt_signal();

// Throws Failure(128 + signal, "interrupted") once a signal came.
void check_interrupted();

// True once a signal came: the denoiser's cancel flag (StreamDenoiser::set_cancel_flag).
const std::atomic<bool>* interrupt_flag();

// For AVIOInterruptCB::callback: non-zero once a signal came.
int avio_interrupt_callback(void* opaque);

// The file a second signal removes before exiting ("" for none).
void set_interrupt_cleanup_path(const std::string& path);

}  // namespace cdn::transcode
