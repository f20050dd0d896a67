// background_worker.cpp: one thread, one job at a time (background_worker.h).
#include "core/background_worker.h"

#include <pthread.h>

#include <utility>

#include "cudadenoise/error.h"

namespace cdn {

BackgroundWorker::BackgroundWorker(const char* name) : thread_([this, name] { loop(name); }) {}

BackgroundWorker::~BackgroundWorker() {
  discard();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  job_ready_.notify_one();
  thread_.join();
}

void BackgroundWorker::run(std::function<void()> job) {
  if (handed_) throw Error("background worker: a job is in flight; wait() for it first");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
    done_ = false;
    error_ = nullptr;
  }
  handed_ = true;
  job_ready_.notify_one();
}

std::exception_ptr BackgroundWorker::take_back() {
  if (!handed_) return nullptr;
  std::unique_lock<std::mutex> lock(mutex_);
  job_done_.wait(lock, [this] { return done_; });
  handed_ = false;
  return std::exchange(error_, nullptr);
}

void BackgroundWorker::wait() {
  if (std::exception_ptr error = take_back()) std::rethrow_exception(error);
}

void BackgroundWorker::discard() noexcept { take_back(); }

void BackgroundWorker::loop(const char* name) {
  pthread_setname_np(pthread_self(), name);  // a name too long is refused: the thread keeps its old one
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    job_ready_.wait(lock, [this] { return stop_ || job_; });
    if (!job_) return;  // stopped, nothing left to run
    std::function<void()> job = std::move(job_);
    job_ = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    job = nullptr;  // what the job captured goes before the owner takes over
    lock.lock();
    error_ = error;
    done_ = true;
    job_done_.notify_one();
  }
}

}  // namespace cdn
