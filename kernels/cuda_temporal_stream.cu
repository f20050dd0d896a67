// cuda_temporal_stream.cu: the CUDA backend of the temporal mode (temporal_stream.h),
// on one or several devices (the split of the video along time of
// nlm3d-multigpu-palma: each chunk goes whole to one device).
//
// The window lives in device frames of a bounded CudaFramePool on the home device
// (the current context's), in the stream's own format (no float copies); host
// frames are uploaded on push and downloaded on pop, device frames stay on the
// device. Each lane (worker) has its own stream, so chunks run while frames are
// pushed. A lane on the home device reads the window's frames where they are and
// writes the output frames directly. A lane on another device copies the window
// there (peer copies), filters into frames of its own pool and copies the results
// back into the home output frames. Every lane runs the same kernel on the same
// inputs: the output does not depend on the lanes.
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "cuda_copy.h"
#include "cuda_device_scope.h"
#include "denoiser.h"  // cuda_device_count
#include "error.h"
#include "frame_pool.h"
#include "host_frame.h"
#include "nlm3d_cuda.h"
#include "nlm3d_guide.h"
#include "noise_estimate.h"
#include "plane_copy.h"
#include "temporal_stream.h"

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

// Lets the context current on `from` (made current if needed) reach `to`'s memory
// directly, when the hardware can (NVLink or PCIe peer to peer): without it the
// driver stages every copy between the devices through host memory. Once per
// pair and process (asking again is an error the driver reports).
void enable_peer_access(int from, int to) {
  static std::mutex lock;
  static std::set<std::pair<int, int>> done;
  const std::lock_guard<std::mutex> hold(lock);
  if (!done.insert({from, to}).second) return;
  int can = 0;
  CDN_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can) return;
  DeviceScope on(from);
  const cudaError_t rc = cudaDeviceEnablePeerAccess(to, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();  // the application enabled it before us: fine
    return;
  }
  CDN_CUDA_CHECK(rc);
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
    // Every device must have the shared memory the widest pass needs.
    std::size_t widest = 1;
    const int filtered = s.planes == PlaneSelection::All ? format_info(f).components : 1;
    for (const NlmPass& pass : nlm_passes(f, filtered)) widest = std::max(widest, pass.values.size());
    for (int d : list) nlm3d_cuda_check_device(s.nlm, static_cast<int>(widest), d);
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
    // Per chunk: the window (chunk + 2 reach) and the outputs, for every component.
    const std::size_t table = 3 * static_cast<std::size_t>(s.nlm.chunk_size * 2 + 2 * s.nlm.reach());
    for (int d : list) {
      workers_.push_back(std::make_unique<Lane>());
      Lane& lane = *workers_.back();
      lane.device = d;
      if (d != home_) {  // before switching to d, so that home's side is the caller's context
        enable_peer_access(home_, d);
        enable_peer_access(d, home_);
      }
      DeviceScope on(d);
      CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
      CDN_CUDA_CHECK(cudaEventCreateWithFlags(&lane.done, cudaEventDisableTiming));
      CDN_CUDA_CHECK(cudaMalloc(&lane.pointers, table * sizeof(void*)));
      CDN_CUDA_CHECK(cudaMallocHost(&lane.host_pointers, table * sizeof(void*)));
      lane.table_size = table;
      if (d != home_) {
        lane.pool = std::make_unique<CudaFramePool>(f, w, h, 2 * s.nlm.chunk_size + 2 * s.nlm.reach());
        lane.pool->preallocate();
      }
    }
  }
  ~CudaTemporalStream() override {
    reset();  // waits for running chunks; frames go back to the pools before they go
    for (auto& lane : workers_) {
      DeviceScope on(lane->device);
      lane->pool.reset();
      cudaFree(lane->pointers);
      cudaFreeHost(lane->host_pointers);
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
  double estimate_sigma(const FrameView& first, void* stream) override {
    // Once per stream: the first frame's luma plane comes to the host for the
    // estimator (which reads only the luma; the other planes stay unread).
    HostFrame host(first.format, first.width, first.height);
    copy_plane(first, host.view(), 0, stream);
    synchronize(stream);
    return luma_sigma(host.view(), 0);
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
    // One pointer table for all components: no wait between their launches. It is
    // written into the lane's pinned buffer, which the lane's previous chunk (done:
    // the lane is free) no longer reads, and copied without a stream sync.
    const std::size_t per = window.size() + outputs.size();
    if (per * filtered > lane.table_size) throw Error("temporal denoiser: pointer table too small");
    std::size_t n = 0;
    for (int c = 0; c < filtered; ++c) {
      for (const auto& f : window) lane.host_pointers[n++] = components(*f)[c].data;
      for (const auto& f : outputs) lane.host_pointers[n++] = components(*f)[c].data;
    }
    CDN_CUDA_CHECK(cudaMemcpyAsync(lane.pointers, lane.host_pointers, n * sizeof(void*), cudaMemcpyHostToDevice,
                                   lane.stream));
    // Passes (nlm3d_guide.h): the luma guide is component 0's part of the table.
    for (const NlmPass& pass : nlm_passes(format_, filtered)) {
      NlmChunk k;
      k.guide_proto = components(*window[0])[0];
      k.guide_window = lane.pointers;
      k.fx = pass.fx;
      k.fy = pass.fy;
      k.values = static_cast<int>(pass.values.size());
      for (int v = 0; v < k.values; ++v) {
        const int c = pass.values[v];
        k.value_proto[v] = components(*window[0])[c];
        k.value_window[v] = lane.pointers + c * per;
        k.out_proto[v] = components(*outputs[0])[c];
        k.outputs[v] = lane.pointers + c * per + window.size();
      }
      k.window_first = chunk.window_begin;
      k.window_count = static_cast<int>(window.size());
      k.stream_length = chunk.stream_length;
      k.out_first = chunk.begin;
      k.out_count = chunk.end - chunk.begin;
      nlm3d_cuda_chunk(k, settings_.nlm, chunk.sigma, lane.stream);
    }
    if (lane.pool) {
      // The filtered planes come back into the home output frames.
      for (std::size_t i = 0; i < outputs.size(); ++i)
        for (int p = 0; p < format_info(format_).planes; ++p)
          if (plane_is_filtered(settings_.planes, p))
            CDN_CUDA_CHECK(cudaMemcpy2DAsync(chunk.outputs[i]->data[p], chunk.outputs[i]->pitch[p],
                                             outputs[i]->data[p], outputs[i]->pitch[p],
                                             plane_row_bytes(format_, width_, p), plane_height(format_, height_, p),
                                             cudaMemcpyDefault, lane.stream));
      chunk.lane_frames = window;
      chunk.lane_frames.insert(chunk.lane_frames.end(), outputs.begin(), outputs.end());
    }
    CDN_CUDA_CHECK(cudaEventRecord(lane.done, lane.stream));
  }

  bool done(const Chunk& chunk, bool wait, void*) const override {
    const Lane& lane = *workers_[chunk.lane];
    if (wait) {
      CDN_CUDA_CHECK(cudaEventSynchronize(lane.done));
      return true;
    }
    const cudaError_t rc = cudaEventQuery(lane.done);
    if (rc == cudaErrorNotReady) return false;
    CDN_CUDA_CHECK(rc);
    return true;
  }

  void synchronize(void* stream) override { CDN_CUDA_CHECK(cudaStreamSynchronize(s(stream))); }

 private:
  struct Lane {
    int device = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;  // recorded after the lane's last chunk
    void** pointers = nullptr;   // device array: window and output planes of a chunk
    void** host_pointers = nullptr;  // pinned: the table as written before the copy
    std::size_t table_size = 0;
    std::unique_ptr<CudaFramePool> pool;  // on another device: window copies and outputs
  };

  int home_;
  CudaFramePool pool_;
  cudaStream_t home_stream_ = nullptr;
  cudaEvent_t caller_ready_ = nullptr;  // the caller's stream has reached our call
  cudaEvent_t inputs_ready_ = nullptr;
  std::vector<std::unique_ptr<Lane>> workers_;  // one per lane of the base class
};

}  // namespace

std::unique_ptr<StreamDenoiser> make_cuda_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h,
                                                          const std::vector<int>& devices) {
  return std::make_unique<CudaTemporalStream>(s, f, w, h, devices);
}

}  // namespace cdn
