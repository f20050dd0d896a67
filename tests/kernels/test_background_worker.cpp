// test_background_worker.cpp: the noise tracker's worker thread
// (kernels/core/background_worker.h): a job runs on another thread and its
// writes are seen after wait(); jobs run one at a time, in order; what a job
// throws reaches wait() (the same type, the same message, once) and the next
// job runs; discard() drops it; a second run() while a job is in flight is
// refused; the destructor waits for the job in flight, throwing or not; the
// thread carries the name it was given (a profile of many streams tells the
// noise tracker's time from the rest).
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/background_worker.h"
#include "cudadenoise/error.h"

namespace cdn {
namespace {

TEST(BackgroundWorker, RunsEachJobOnItsThreadAndWaitShowsItsWrites) {
  BackgroundWorker w;
  EXPECT_FALSE(w.busy());
  w.wait();  // nothing in flight: returns at once
  std::vector<int> order;
  std::thread::id ran_on;
  for (int i = 0; i < 50; ++i) {
    w.run([&order, &ran_on, i] {
      order.push_back(i);
      ran_on = std::this_thread::get_id();
    });
    EXPECT_TRUE(w.busy());
    w.wait();
    EXPECT_FALSE(w.busy());
    ASSERT_EQ(order.size(), static_cast<std::size_t>(i + 1));
    EXPECT_EQ(order.back(), i);
    EXPECT_NE(ran_on, std::this_thread::get_id());
  }
}

TEST(BackgroundWorker, TheThreadHasTheNameItWasGiven) {
  for (const char* name : {"cdn-noise", "cdn-worker"}) {
    auto w = std::string(name) == "cdn-worker" ? std::make_unique<BackgroundWorker>()
                                               : std::make_unique<BackgroundWorker>(name);
    char seen[16] = {};
    w->run([&seen] { pthread_getname_np(pthread_self(), seen, sizeof seen); });
    w->wait();
    EXPECT_STREQ(seen, name);
  }
}

TEST(BackgroundWorker, WhatAJobThrowsReachesWaitOnce) {
  BackgroundWorker w;
  w.run([] { throw InvalidArgument("noise estimate: the job's own message"); });
  try {
    w.wait();
    ADD_FAILURE() << "wait() did not rethrow";
  } catch (const InvalidArgument& e) {  // the same type ...
    EXPECT_STREQ(e.what(), "noise estimate: the job's own message");  // ... and message
  }
  EXPECT_FALSE(w.busy());
  EXPECT_NO_THROW(w.wait());  // once
  bool ran = false;
  w.run([&ran] { ran = true; });  // the worker goes on
  EXPECT_NO_THROW(w.wait());
  EXPECT_TRUE(ran);
  w.run([] { throw Error("dropped"); });
  w.discard();
  EXPECT_FALSE(w.busy());
  EXPECT_NO_THROW(w.wait());
}

TEST(BackgroundWorker, OneJobAtATime) {
  BackgroundWorker w;
  std::atomic<bool> release{false};
  w.run([&release] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  EXPECT_THROW(w.run([] {}), Error);
  release = true;
  w.wait();
}

TEST(BackgroundWorker, DestroyingWaitsForTheJobInFlight) {
  auto finished = std::make_shared<std::atomic<bool>>(false);
  {
    BackgroundWorker w;
    w.run([finished] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      *finished = true;
    });
  }
  EXPECT_TRUE(*finished);
  {
    BackgroundWorker w;  // a job that throws, never waited for: dropped, no terminate
    w.run([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      throw Error("never waited for");
    });
  }
  { BackgroundWorker idle; }  // never ran a job
}

}  // namespace
}  // namespace cdn
