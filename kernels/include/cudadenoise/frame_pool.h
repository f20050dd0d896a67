// frame_pool.h: a bounded pool of pitched CUDA device frames, reused across frames.
//
// Frames are allocated lazily (one cudaMallocPitch per plane) up to `capacity`
// and never freed until the pool is destroyed: no allocation per frame. The pool
// is thread-safe and stream-safe: releasing a frame records an event on the
// stream that last used it, and the next acquire on another stream waits for
// that event on the device (no host sync). acquire() blocks while every frame is
// in use; try_acquire() returns null instead.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "cudadenoise/frame.h"

namespace cdn {

class CudaFramePool {
 public:
  // Binds to the CUDA context current on the calling thread.
  CudaFramePool(PixelFormat format, int width, int height, int capacity);
  ~CudaFramePool();
  CudaFramePool(const CudaFramePool&) = delete;
  CudaFramePool& operator=(const CudaFramePool&) = delete;

  // A frame on loan; returned to the pool when the last copy of the handle goes.
  // `stream` is the cudaStream_t the caller will use the frame on.
  class Frame;
  using Handle = std::shared_ptr<Frame>;
  Handle acquire(void* stream);
  Handle try_acquire(void* stream);
  // Allocates every frame now (cudaMallocPitch may wait for the device: a user
  // that keeps work running while it takes frames allocates up front).
  void preallocate();

  PixelFormat format() const { return format_; }
  int width() const { return width_; }
  int height() const { return height_; }
  int capacity() const { return capacity_; }
  int allocated() const;  // frames allocated so far (<= capacity)
  int in_use() const;

 private:
  struct Slot;
  Slot* allocate_locked();
  Handle take_locked(std::unique_lock<std::mutex>& lock, void* stream);
  void give_back(Slot* slot, void* stream);

  PixelFormat format_;
  int width_, height_, capacity_;
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> free_;
  int in_use_ = 0;
};

class CudaFramePool::Frame {
 public:
  const FrameView& view() const { return view_; }
  // The stream the frame will be released on (defaults to the acquiring stream).
  void set_stream(void* stream) { stream_ = stream; }
  ~Frame();

 private:
  friend class CudaFramePool;
  Frame(CudaFramePool* pool, Slot* slot, FrameView view, void* stream)
      : pool_(pool), slot_(slot), view_(view), stream_(stream) {}
  CudaFramePool* pool_;
  Slot* slot_;
  FrameView view_;
  void* stream_;
};

}  // namespace cdn
