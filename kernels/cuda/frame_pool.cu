// frame_pool.cu: the bounded, stream-safe pool of pitched device frames (frame_pool.h).
#include "cudadenoise/frame_pool.h"

#include <cuda_runtime.h>

#include "cudadenoise/error.h"

namespace cdn {

struct CudaFramePool::Slot {
  FrameView view;
  cudaEvent_t released = nullptr;  // recorded on the releasing stream
  bool has_event_pending = false;
};

CudaFramePool::CudaFramePool(PixelFormat format, int width, int height, int capacity)
    : format_(format), width_(width), height_(height), capacity_(capacity) {
  if (width <= 0 || height <= 0) throw InvalidArgument("frame pool: frame size must be positive");
  if (capacity <= 0) throw InvalidArgument("frame pool: capacity must be positive");
}

CudaFramePool::~CudaFramePool() {
  // Handles must not outlive the pool. Errors cannot be reported from here.
  for (auto& s : slots_) {
    for (int p = 0; p < 3; ++p)
      if (s->view.data[p]) cudaFree(s->view.data[p]);
    if (s->released) cudaEventDestroy(s->released);
  }
}

int CudaFramePool::allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(slots_.size());
}

int CudaFramePool::in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_use_;
}

CudaFramePool::Handle CudaFramePool::acquire(void* stream) {
  std::unique_lock<std::mutex> lock(mutex_);
  available_.wait(lock, [&] { return !free_.empty() || static_cast<int>(slots_.size()) < capacity_; });
  return take_locked(lock, stream);
}

CudaFramePool::Handle CudaFramePool::try_acquire(void* stream) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (free_.empty() && static_cast<int>(slots_.size()) >= capacity_) return nullptr;
  return take_locked(lock, stream);
}

void CudaFramePool::preallocate() {
  std::lock_guard<std::mutex> lock(mutex_);
  while (static_cast<int>(slots_.size()) < capacity_) free_.push_back(allocate_locked());
}

CudaFramePool::Slot* CudaFramePool::allocate_locked() {
  auto fresh = std::make_unique<Slot>();
  fresh->view.format = format_;
  fresh->view.width = width_;
  fresh->view.height = height_;
  fresh->view.memory = MemoryKind::Device;
  const int planes = format_info(format_).planes;
  try {
    for (int p = 0; p < planes; ++p)
      CDN_CUDA_CHECK(cudaMallocPitch(&fresh->view.data[p], &fresh->view.pitch[p],
                                     plane_row_bytes(format_, width_, p), plane_height(format_, height_, p)));
    CDN_CUDA_CHECK(cudaEventCreateWithFlags(&fresh->released, cudaEventDisableTiming));
  } catch (...) {
    for (int p = 0; p < 3; ++p)
      if (fresh->view.data[p]) cudaFree(fresh->view.data[p]);
    throw;
  }
  Slot* slot = fresh.get();
  slots_.push_back(std::move(fresh));
  return slot;
}

CudaFramePool::Handle CudaFramePool::take_locked(std::unique_lock<std::mutex>&, void* stream) {
  Slot* slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = allocate_locked();
  }
  // Work queued on the previous user's stream must finish before ours touches the frame.
  if (slot->has_event_pending) {
    CDN_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), slot->released, 0));
    slot->has_event_pending = false;
  }
  ++in_use_;
  return Handle(new Frame(this, slot, slot->view, stream));
}

void CudaFramePool::give_back(Slot* slot, void* stream) {
  // Record where the frame's last use was queued; errors here would leak the slot, so
  // fall back to a full device sync if recording fails.
  if (cudaEventRecord(slot->released, static_cast<cudaStream_t>(stream)) == cudaSuccess)
    slot->has_event_pending = true;
  else
    cudaDeviceSynchronize();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(slot);
    --in_use_;
  }
  available_.notify_one();
}

CudaFramePool::Frame::~Frame() { pool_->give_back(slot_, stream_); }

}  // namespace cdn
