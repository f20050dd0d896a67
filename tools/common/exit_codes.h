// exit_codes.h: the exit codes every tool gives the same meaning (each tool's
// --help lists its own table around them).
#pragma once

namespace cdn::tools {

// A GPU failure, or the CUDA backend asked for (--backend cuda) where no CUDA
// device can be used (cdn::NoCudaDevice; the message starts "--backend cuda:
// no CUDA device").
constexpr int kExitGpu = 6;

}  // namespace cdn::tools
