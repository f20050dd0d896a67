// cuda_device_scope.h: work on another CUDA device from a thread whose current
// context must be current again afterwards (it may be a non-primary context, such
// as a GstCudaContext's): the temporal mode's workers on other devices
// (cuda_temporal_stream.cu); and a context made current on another thread.
#pragma once

namespace cdn {

// The device of the context current on this thread (a primary context is made
// current first when there is none).
int current_cuda_device();

// The context current on this thread (a CUcontext; null when none), and making
// one current on another thread: a thread that launches for a lane whose device
// is the caller's must use the caller's context, which may not be the primary one.
void* current_cuda_context();
void set_current_cuda_context(void* context);

// Lets the current context and `device`'s primary context reach each other's
// memory directly, each way the hardware can (NVLink or PCIe peer to peer):
// without it the driver stages every copy between the devices through host
// memory. Context to context (the driver's cuCtxEnablePeerAccess): the runtime's
// cudaDeviceEnablePeerAccess refuses a current context that is not primary, such
// as a GstCudaContext's (cudaErrorIncompatibleDriverContext). Asking again for a
// pair already enabled is fine. Nothing to do where `device` is the current one.
void enable_peer_access_with(int device);

class DeviceScope {
 public:
  // Makes `device`'s primary context current, unless the current context is
  // already on `device` (then it stays, whatever kind it is).
  explicit DeviceScope(int device);
  ~DeviceScope();  // the context current before is current again
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  void* saved_ = nullptr;  // CUcontext
  bool switched_ = false;
};

}  // namespace cdn
