// stabilizing_tables_cuda.cu: the tables of a variance-stabilising transform on
// device frames (stabilizing_tables.h). The tables go to device memory once, at
// their first use; each launch looks every sample of every component up (one
// thread a sample, blockIdx.y the component), reading `in` and writing `out`
// at the same position only: in place is safe.
#include <cuda_runtime.h>

#include "cudadenoise/error.h"
#include "noise/stabilizing_tables.h"

namespace cdn {

namespace {

constexpr int kThreads = 256;

struct LookupJob {
  PlaneView in[3];
  PlaneView out[3];
  const std::uint16_t* table[3];  // null: identity
};

__global__ void lookup_kernel(const LookupJob job) {
  const int c = blockIdx.y;
  const PlaneView& src = job.in[c];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(src.width) * src.height) return;
  const int y = static_cast<int>(i / src.width), x = static_cast<int>(i - static_cast<long long>(y) * src.width);
  const int v = src.get(x, y);
  job.out[c].set(x, y, job.table[c] ? job.table[c][v] : v);
}

}  // namespace

struct StabilizingTables::Device {
  std::uint16_t* data = nullptr;
  std::vector<std::size_t> forward_at, inverse_at;  // offsets per component (identity: unused)
  ~Device() {
    if (data) cudaFree(data);
  }
};

void StabilizingTables::apply_device(const FrameView& in, const FrameView& out, bool inverse, void* stream_ptr) const {
  validate_frame(in);
  validate_frame(out);
  if (in.memory != MemoryKind::Device || out.memory != MemoryKind::Device)
    throw InvalidArgument("stabilizing tables: device frames expected");
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  if (!device_) {
    auto d = std::make_shared<Device>();
    std::vector<std::uint16_t> all;
    for (const ComponentTables& t : components_) {
      d->forward_at.push_back(all.size());
      all.insert(all.end(), t.forward.begin(), t.forward.end());
      d->inverse_at.push_back(all.size());
      all.insert(all.end(), t.inverse.begin(), t.inverse.end());
    }
    if (!all.empty()) {
      CDN_CUDA_CHECK(cudaMalloc(&d->data, all.size() * sizeof(std::uint16_t)));
      CDN_CUDA_CHECK(
          cudaMemcpyAsync(d->data, all.data(), all.size() * sizeof(std::uint16_t), cudaMemcpyHostToDevice, stream));
      CDN_CUDA_CHECK(cudaStreamSynchronize(stream));  // `all` goes at the end of this scope
    }
    device_ = std::move(d);
  }
  const std::vector<PlaneView> from = cdn::components(in), to = cdn::components(out);
  LookupJob job{};
  long long most = 0;
  bool any = false;
  for (std::size_t c = 0; c < from.size(); ++c) {
    job.in[c] = from[c];
    job.out[c] = to[c];
    const ComponentTables& t = components_[c];
    job.table[c] = t.identity ? nullptr : device_->data + (inverse ? device_->inverse_at[c] : device_->forward_at[c]);
    any = any || !t.identity || in.data[0] != out.data[0];
    most = std::max(most, static_cast<long long>(from[c].width) * from[c].height);
  }
  if (!any) return;
  const long long grid_x = (most + kThreads - 1) / kThreads;
  if (grid_x > 0x7fffffffLL) throw InvalidArgument("stabilizing tables: frame too large for one launch");
  lookup_kernel<<<dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(from.size())), kThreads, 0, stream>>>(job);
  CDN_CHECK_LAUNCH("lookup_kernel");
}

}  // namespace cdn
