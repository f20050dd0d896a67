// cuda_temporal_stream.cu: the CUDA backend of the temporal window (temporal_stream.h),
// on one or several devices (the split of the video along time of
// nlm3d-multigpu-palma: each chunk goes whole to one device); each lane runs the
// mode's CUDA WindowFilter (window_filter.h).
//
// The window lives in device frames of a bounded CudaFramePool on the home device
// (the current context's), in the stream's own format (no float copies); host
// frames are uploaded on push and downloaded on pop, device frames stay on the
// device. Each lane (worker) has its own stream, so chunks run while frames are
// pushed. A lane on the home device reads the window's frames where they are and
// writes the output frames directly. A lane on another device copies the window
// there (peer copies), filters into frames of its own pool and copies the results
// back into the home output frames. Every lane runs the same filter on the same
// inputs: the output does not depend on the lanes. The cancel flag goes to the
// lane's filter (ChunkJob::cancel): a cancelled chunk queues nothing more, and
// what it queued is waited for before its frames go back to the pools.
//
// With several lanes each has a launch thread of its own: a filter's run() may
// hold the thread that queues it for about as long as the GPU takes (vbm3d at
// 1080p queues more launches a chunk than CUDA's launch queue holds, so the host
// waits for room), and the caller must meanwhile feed the other lanes. The
// caller queues a chunk's copies and hands the filter's launches to the lane's
// thread; done() waits for them to be queued, and a failure there (Cancelled
// included) comes out of done(), in pop() or ready(). One lane, or chunks of one
// frame, keep everything on the caller's thread.
#include <cuda_runtime.h>
#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <string>
#include <utility>

#include "core/plane_copy.h"
#include "cuda/cuda_device_scope.h"
#include "cuda/host_wait.h"
#include "cudadenoise/backend.h"  // cuda_device_count
#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "temporal/temporal_stream.h"

namespace cdn {

namespace {

// Copies every plane of a device frame to another device's frame on `stream`
// (cudaMemcpyDefault: a peer copy).
void copy_frame_between_devices(const FrameView& from, const FrameView& to, cudaStream_t stream) {
  for (int p = 0; p < format_info(from.format).planes; ++p)
    CDN_CUDA_CHECK(cudaMemcpy2DAsync(to.data[p], to.pitch[p], from.data[p], from.pitch[p],
                                     plane_row_bytes(from.format, from.width, p),
                                     plane_height(from.format, from.height, p), cudaMemcpyDefault, stream));
}

class CudaTemporalStream final : public TemporalStream {
 public:
  CudaTemporalStream(const DenoiseSettings& s, PixelFormat f, int w, int h, const std::vector<int>& devices)
      : TemporalStream(s, f, w, h, std::max<int>(1, static_cast<int>(devices.size()))),
        home_(current_cuda_device()),
        pool_(f, w, h, frames_needed(s, std::max<int>(1, static_cast<int>(devices.size())))) {
    const int count = cuda_device_count();
    const std::vector<int> list = devices.empty() ? std::vector<int>{home_} : devices;
    for (int d : list)
      if (d < 0 || d >= count)
        throw InvalidArgument("CUDA device " + std::to_string(d) + " does not exist (" + std::to_string(count) +
                              " visible)");
    // The mode's filter for each lane first: it refuses a device that cannot run
    // the settings (NLM-3D: too little shared memory) before anything is allocated.
    std::vector<std::unique_ptr<WindowFilter>> filters;
    for (int d : list) {
      DeviceScope on(d);
      filters.push_back(make_cuda_window_filter(s, f, d));
    }
    // Frames are allocated now: cudaMallocPitch while a chunk runs would wait for it.
    pool_.preallocate();
    // The home stream carries the window's copies in and out. At the default
    // priority a push() made while a chunk's kernel runs on the home device waited
    // for the kernel to finish (322 ms at 1080p, measured): the copy's blocks
    // queue behind the kernel's. At the highest priority they go first (0.1 ms),
    // so a second lane starts its chunk while the first still runs.
    int least = 0, greatest = 0;
    CDN_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CDN_CUDA_CHECK(cudaStreamCreateWithPriority(&home_stream_, cudaStreamNonBlocking, greatest));
    CDN_CUDA_CHECK(cudaEventCreateWithFlags(&caller_ready_, cudaEventDisableTiming));
    CDN_CUDA_CHECK(cudaEventCreateWithFlags(&inputs_ready_, cudaEventDisableTiming));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const int d = list[i];
      workers_.push_back(std::make_unique<Lane>());
      Lane& lane = *workers_.back();
      lane.device = d;
      lane.filter = std::move(filters[i]);
      if (d != home_) enable_peer_access_with(d);  // before switching to d: home's side is the caller's context
      DeviceScope on(d);
      CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
      CDN_CUDA_CHECK(cudaEventCreateWithFlags(&lane.done, kSleepingWaitEventFlags));
      if (d != home_) {
        lane.pool = std::make_unique<CudaFramePool>(f, w, h, 2 * shape_.chunk + shape_.before + shape_.after);
        lane.pool->preallocate();
      }
    }
    // A chunk of one frame (the causal window) queues little: handing each frame
    // to a thread cost more than it gained (live, two H200s: 1.88x against 1.94x).
    if (workers_.size() > 1 && shape_.chunk > 1) {
      void* caller_context = current_cuda_context();
      for (auto& lane : workers_) {
        Lane* l = lane.get();
        void* context = l->device == home_ ? caller_context : nullptr;  // null: the device's primary one
        l->thread = std::thread([l, context] { l->serve(context); });
      }
    }
  }
  ~CudaTemporalStream() override {
    reset();  // waits for running chunks; frames go back to the pools before they go
    for (auto& lane : workers_) lane->stop();
    for (auto& lane : workers_) {
      DeviceScope on(lane->device);
      lane->pool.reset();
      lane->filter.reset();
      cudaEventDestroy(lane->done);
      cudaStreamDestroy(lane->stream);
    }
    cudaEventDestroy(inputs_ready_);
    cudaEventDestroy(caller_ready_);
    cudaStreamDestroy(home_stream_);
  }
  Backend backend() const override { return Backend::Cuda; }

 protected:
  // The stream for work on the home device: the home stream, ordered after what
  // the caller queued on its stream so far. push() and pop() synchronize it after
  // their copies of the caller's frames, so the caller's later work on those
  // frames comes after ours; what else goes on it touches only our own frames.
  cudaStream_t s(void* caller) {
    if (caller) {
      CDN_CUDA_CHECK(cudaEventRecord(caller_ready_, static_cast<cudaStream_t>(caller)));
      CDN_CUDA_CHECK(cudaStreamWaitEvent(home_stream_, caller_ready_, 0));
    }
    return home_stream_;
  }

  Frame new_frame(void* stream) override {
    auto h = pool_.try_acquire(s(stream));
    if (!h) throw Error("temporal denoiser: window full; pop() every ready frame after each push()");
    return Frame(h, &h->view());
  }
  void copy_frame(const FrameView& from, const FrameView& to, void* stream) override {
    copy_frame_async(from, to, s(stream));
  }
  void copy_plane(const FrameView& from, const FrameView& to, int p, void* stream) override {
    copy_plane_async(from, to, p, s(stream));
  }
  void launch(Chunk& chunk, int filtered, void* stream) override {
    Lane& lane = *workers_[chunk.lane];
    // The lane starts after what the caller queued (output frames taken from the
    // pool, copies of unfiltered planes).
    CDN_CUDA_CHECK(cudaEventRecord(inputs_ready_, s(stream)));
    DeviceScope on(lane.device);
    CDN_CUDA_CHECK(cudaStreamWaitEvent(lane.stream, inputs_ready_, 0));
    std::vector<Frame> window = chunk.window, outputs = chunk.outputs;
    if (lane.pool) {
      // Another device: the window comes over, the outputs are made there.
      for (auto& f : window) {
        auto h = lane.pool->acquire(lane.stream);
        copy_frame_between_devices(*f, h->view(), lane.stream);
        f = Frame(h, &h->view());
      }
      for (auto& f : outputs) {
        auto h = lane.pool->acquire(lane.stream);
        f = Frame(h, &h->view());
      }
    }
    ChunkJob job = job_of(chunk, window, outputs, filtered);
    job.cancel = cancel_;
    // What runs on the lane: the filter, the filtered planes back into the home
    // output frames (another device), the lane's event. The frames stay alive in
    // the chunk (lane_frames) until done() has said so.
    std::vector<std::pair<const FrameView*, const FrameView*>> back;  // (lane's output, home output)
    if (lane.pool) {
      for (std::size_t i = 0; i < outputs.size(); ++i) back.push_back({outputs[i].get(), chunk.outputs[i].get()});
      chunk.lane_frames = window;
      chunk.lane_frames.insert(chunk.lane_frames.end(), outputs.begin(), outputs.end());
    }
    auto work = [this, &lane, job = std::move(job), back = std::move(back)] {
      try {
        lane.filter->run(job, lane.stream);
      } catch (...) {
        // What the filter queued before it stopped (Cancelled) or failed still runs
        // on the chunk's frames, which go back to the pools afterwards: let it finish.
        cudaStreamSynchronize(lane.stream);
        throw;
      }
      for (const auto& [from, to] : back)
        for (int p = 0; p < format_info(format_).planes; ++p)
          if (plane_is_filtered(settings_.planes, p))
            CDN_CUDA_CHECK(cudaMemcpy2DAsync(to->data[p], to->pitch[p], from->data[p], from->pitch[p],
                                             plane_row_bytes(format_, width_, p), plane_height(format_, height_, p),
                                             cudaMemcpyDefault, lane.stream));
      CDN_CUDA_CHECK(cudaEventRecord(lane.done, lane.stream));
    };
    if (lane.thread.joinable())
      lane.hand_over(std::move(work));
    else
      work();
  }

  bool done(const Chunk& chunk, bool wait, void*) const override {
    Lane& lane = *workers_[chunk.lane];
    if (lane.thread.joinable() && !lane.queued(wait)) return false;  // rethrows what the lane's work threw
    if (wait) {
      CDN_CUDA_CHECK(cudaEventSynchronize(lane.done));
      return true;
    }
    const cudaError_t rc = cudaEventQuery(lane.done);
    if (rc == cudaErrorNotReady) return false;
    CDN_CUDA_CHECK(rc);
    return true;
  }

  void synchronize(void* stream) override { wait_for_stream(s(stream)); }

 private:
  struct Lane {
    int device = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;  // recorded after the lane's last chunk
    std::unique_ptr<WindowFilter> filter;  // the mode's, on this device; run again only once done
    std::unique_ptr<CudaFramePool> pool;   // on another device: window copies and outputs

    // The launch thread (several lanes): it runs one chunk's work at a time, handed
    // over by the caller once the lane's previous chunk is done.
    std::thread thread;
    std::mutex lock;
    std::condition_variable changed;
    std::function<void()> work;  // the chunk's, handed over
    bool busy = false;           // handed over and not yet run to its end
    bool stopping = false;
    std::exception_ptr failure;  // what the last chunk's work threw

    // The thread's loop, with `context` current (null: the device's primary one).
    void serve(void* context) {
      std::exception_ptr unusable;  // the context could not be made current: every chunk fails so
      pthread_setname_np(pthread_self(), "cdn-lane");
      try {
        if (context)
          set_current_cuda_context(context);
        else
          CDN_CUDA_CHECK(cudaSetDevice(device));
      } catch (...) {
        unusable = std::current_exception();
      }
      std::unique_lock<std::mutex> hold(lock);
      for (;;) {
        changed.wait(hold, [&] { return stopping || busy; });
        if (!busy) return;  // stopping, nothing handed over
        std::function<void()> w = std::move(work);
        work = nullptr;
        hold.unlock();
        std::exception_ptr error = unusable;
        if (!error) {
          try {
            w();
          } catch (...) {
            error = std::current_exception();
          }
        }
        hold.lock();
        failure = error;
        busy = false;
        changed.notify_all();
      }
    }
    void hand_over(std::function<void()> w) {
      std::unique_lock<std::mutex> hold(lock);
      changed.wait(hold, [&] { return !busy; });  // the lane's last chunk is done already (see above)
      work = std::move(w);
      busy = true;
      failure = nullptr;
      changed.notify_all();
    }
    // Whether the chunk handed over has been queued (with `wait`: once it has);
    // what its work threw comes out here.
    bool queued(bool wait) {
      std::unique_lock<std::mutex> hold(lock);
      if (wait) changed.wait(hold, [&] { return !busy; });
      if (busy) return false;
      if (failure) std::rethrow_exception(failure);
      return true;
    }
    void stop() {
      if (!thread.joinable()) return;
      {
        std::lock_guard<std::mutex> hold(lock);
        stopping = true;
        changed.notify_all();
      }
      thread.join();
    }
  };

  int home_;
  CudaFramePool pool_;
  cudaStream_t home_stream_ = nullptr;
  cudaEvent_t caller_ready_ = nullptr;  // the caller's stream has reached our call
  cudaEvent_t inputs_ready_ = nullptr;
  std::vector<std::unique_ptr<Lane>> workers_;  // one per lane of the base class
};

}  // namespace

std::unique_ptr<TemporalStream> make_cuda_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h,
                                                          const std::vector<int>& devices) {
  return std::make_unique<CudaTemporalStream>(s, f, w, h, devices);
}

}  // namespace cdn
