// noise_device_samples.cu: asynchronous copy of the noise tracker's sampled
// bands from a device frame to pinned host memory (noise_device_samples.h).
#include <cuda_runtime.h>

#include <deque>

#include "cudadenoise/error.h"
#include "noise/noise_device_samples.h"

namespace cdn {

namespace {

// Rows a component's samples take in the staging buffer.
int staged_rows(const PatchSampling& ps) {
  if (ps.bands <= 0) return 0;
  return ps.band_step < kNoisePatch ? (ps.bands - 1) * ps.band_step + kNoisePatch : ps.bands * kNoisePatch;
}

class CudaDeviceSamples final : public DeviceSamples {
 public:
  CudaDeviceSamples() {
    for (Slot& s : slots_) CDN_CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
  }
  ~CudaDeviceSamples() override {
    for (Slot& s : slots_) {
      if (s.busy) cudaEventSynchronize(s.done);  // never free memory a copy still writes
      cudaEventDestroy(s.done);
      if (s.host) cudaFreeHost(s.host);
    }
  }

  void enqueue(const FrameView& f, const std::vector<PatchSampling>& sampling, void* stream) override {
    if (f.memory != MemoryKind::Device) throw InvalidArgument("noise tracker: enqueue() takes device frames");
    const std::vector<PlaneView> comps = components(f);
    if (sampling.size() != comps.size()) throw InvalidArgument("noise tracker: one sampling per component");
    if (order_.size() >= 2) throw Error("noise tracker: two sample copies pending; take() one first");
    const int slot = slots_[0].busy ? 1 : 0;
    Slot& s = slots_[slot];

    // Per memory plane: the bands of its first component, stacked.
    const int planes = format_info(f.format).planes;
    std::vector<std::size_t> offset(planes, 0);
    std::vector<int> first(planes, -1);
    std::size_t bytes = 0;
    for (int c = 0; c < static_cast<int>(comps.size()); ++c) {
      const int p = component_plane(f.format, c);
      if (first[p] >= 0) continue;
      first[p] = c;
      offset[p] = bytes;
      bytes += static_cast<std::size_t>(staged_rows(sampling[c])) * f.pitch[p];
    }
    if (bytes > s.capacity) {
      if (s.host) CDN_CUDA_CHECK(cudaFreeHost(s.host));
      s.host = nullptr;
      s.capacity = 0;
      CDN_CUDA_CHECK(cudaHostAlloc(&s.host, bytes, cudaHostAllocPortable));
      s.capacity = bytes;
    }
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    for (int p = 0; p < planes; ++p) {
      const PatchSampling& ps = sampling[first[p]];
      if (ps.bands <= 0) continue;
      const std::size_t pitch = f.pitch[p];
      const std::size_t row_bytes = plane_row_bytes(f.format, f.width, p);
      const unsigned char* src = static_cast<const unsigned char*>(f.data[p]) + ps.band_first * pitch;
      if (ps.band_step < kNoisePatch) {
        // Dense (a small plane, overlapping bands): its rows, as they are.
        CDN_CUDA_CHECK(cudaMemcpy2DAsync(s.host + offset[p], pitch, src, pitch, row_bytes, staged_rows(ps),
                                         cudaMemcpyDeviceToHost, st));
        continue;
      }
      // A band: 7 rows, from the first byte of its first row to the last byte
      // of its last row's samples (no padding past the plane's last row).
      const std::size_t band_bytes = (kNoisePatch - 1) * pitch + row_bytes;
      CDN_CUDA_CHECK(cudaMemcpy2DAsync(s.host + offset[p], kNoisePatch * pitch, src, ps.band_step * pitch, band_bytes,
                                       ps.bands, cudaMemcpyDeviceToHost, st));
    }
    CDN_CUDA_CHECK(cudaEventRecord(s.done, st));
    s.busy = true;

    // The host view: the same frame layout over the staging buffer; each
    // component's height is its stacked bands, read from band 0 every 7 rows.
    FrameView h = f;
    h.memory = MemoryKind::Host;
    for (int p = 0; p < planes; ++p) h.data[p] = s.host + offset[p];
    s.staged.planes = components(h);
    s.staged.sampling = sampling;
    for (std::size_t c = 0; c < comps.size(); ++c) {
      PatchSampling& ps = s.staged.sampling[c];
      s.staged.planes[c].height = staged_rows(ps);
      ps.band_first = 0;
      if (ps.band_step >= kNoisePatch) ps.band_step = kNoisePatch;  // bands stacked; dense: rows as they are
    }
    order_.push_back(slot);
  }

  int pending() const override { return static_cast<int>(order_.size()); }

  StagedComponents take() override {
    if (order_.empty()) throw Error("noise tracker: no sample copy pending");
    Slot& s = slots_[order_.front()];
    order_.pop_front();
    CDN_CUDA_CHECK(cudaEventSynchronize(s.done));
    s.busy = false;
    return s.staged;
  }

 private:
  struct Slot {
    unsigned char* host = nullptr;
    std::size_t capacity = 0;
    cudaEvent_t done = nullptr;
    bool busy = false;
    StagedComponents staged;
  };
  Slot slots_[2];
  std::deque<int> order_;
};

}  // namespace

std::unique_ptr<DeviceSamples> DeviceSamples::create() { return std::make_unique<CudaDeviceSamples>(); }

}  // namespace cdn
