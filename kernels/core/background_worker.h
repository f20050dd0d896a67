// background_worker.h: one thread that runs its owner's jobs one at a time, off
// the owner's thread (the noise tracker's per-frame estimates, noise_tracker.h).
//
// The owner hands a job over with run() and takes it back with wait(), which
// rethrows what the job threw (the same exception, with its message). One job
// at a time: what the job reads and writes belongs to it from run() to the
// wait() (or discard()) that returns after it, and to the owner otherwise;
// both hand-overs go through the worker's mutex, so the owner sees every
// write of the job after wait(). No polling: the thread sleeps on a condition
// variable between jobs, the owner on another while it waits.
//
// One owner thread calls run(), wait(), discard() and busy(). The thread starts
// with the worker and is joined by its destructor, after the job in flight
// (if any) has ended.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace cdn {

class BackgroundWorker {
 public:
  // `name`: the thread's name as the system shows it (top -H, /proc: at most 15
  // characters; a string literal), so that a profile of many streams says whose time is whose.
  explicit BackgroundWorker(const char* name = "cdn-worker");
  // Waits for the job in flight (what it throws is dropped), then joins.
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // Starts `job` on the thread. Throws cdn::Error when a job is in flight
  // (wait() for it first).
  void run(std::function<void()> job);
  // Waits for the job in flight, if any; rethrows what it threw.
  void wait();
  // Waits for the job in flight, if any, and forgets what it threw.
  void discard() noexcept;
  // A job handed over by run() and not yet waited for.
  bool busy() const { return handed_; }

 private:
  void loop(const char* name);
  // Waits for the job in flight; what it threw (null: nothing).
  std::exception_ptr take_back();

  std::mutex mutex_;
  std::condition_variable job_ready_, job_done_;
  std::function<void()> job_;  // the job not yet started (empty: none)
  bool done_ = false;          // the job started last has ended
  bool stop_ = false;
  std::exception_ptr error_;   // what it threw
  bool handed_ = false;        // the owner's: run() without a wait() since
  std::thread thread_;         // last: starts once the members it uses exist
};

}  // namespace cdn
