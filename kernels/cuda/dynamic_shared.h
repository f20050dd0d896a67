// dynamic_shared.h: opting a kernel in to more dynamic shared memory than the
// default 48 KB, safely when several threads launch it with different amounts.
//
// cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) is a
// setting of the function in the current context, not of one launch. Set to
// exactly what each launch needs, a thread can lower it between another
// thread's setting and launch, and that launch fails with
// cudaErrorInvalidValue: two pipelines of one process on one GstCudaContext,
// bm3d draft and standard, did so under compute-sanitizer (2026-11-29). Here
// the limit is only ever raised, under one lock: a launch never finds it below
// what its own thread asked for. A launch whose limit is already high enough
// (all but the first few) takes no lock. (A higher limit changes nothing else:
// the launch's own dynamic size decides the occupancy.)
#pragma once

#include <cstddef>

namespace cdn {

// Raises `kernel`'s (a __global__ function's address) dynamic shared memory
// limit in the current context to at least `bytes`; never lowers it.
void allow_dynamic_shared(const void* kernel, std::size_t bytes);

template <typename... Args>
void allow_dynamic_shared(void (*kernel)(Args...), std::size_t bytes) {
  allow_dynamic_shared(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace cdn
