// transcode.h: the whole run, from INPUT to OUTPUT: demux, decode, denoise,
// encode, mux, with the other streams copied alongside. Each step lives in its
// own file (input, decoder, filter_step, encoder, output); this one only wires
// them together and decides the path (GPU or CPU).
#pragma once

#include <functional>
#include <string>

#include "options.h"
#include "progress.h"

namespace cdn::transcode {

// Runs the transcode. `note` receives one-line messages for the user (the path
// taken, the NVENC fallback, format conversions). Throws Failure; on any
// failure OUTPUT is untouched and the temporary file is gone.
Summary run_transcode(const TranscodeOptions& o, const std::function<void(const std::string&)>& note);

}  // namespace cdn::transcode
