// stream_pump.cpp: the loop around a StreamDenoiser (stream_pump.h).
#include "cudadenoise/stream_pump.h"

#include <string>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

// Pops one ready frame into the sink; returns what take() said.
bool pop_one(StreamDenoiser& d, FrameSink& sink, void* stream) {
  const FrameView out = sink.next();
  FrameTag tag;
  if (!d.pop(out, stream, &tag)) throw Error("stream: a frame was ready but pop() gave none");
  return sink.take(std::move(tag));
}

}  // namespace

int pop_ready(StreamDenoiser& d, FrameSink& sink, void* stream) {
  int n = 0;
  while (d.ready()) {
    ++n;
    if (!pop_one(d, sink, stream)) break;
  }
  return n;
}

int catch_up(StreamDenoiser& d, FrameSink& sink, void* stream) {
  int n = 0;
  while (d.ready()) {
    pop_one(d, sink, stream);
    ++n;
  }
  return n;
}

int feed(StreamDenoiser& d, const FrameView& in, FrameSink& sink, void* stream, FrameTag tag) {
  const int n = catch_up(d, sink, stream);
  if (d.per_frame()) {
    d.process(in, sink.next(), stream);
    sink.take(std::move(tag));
    return n + 1;
  }
  d.push(in, stream, std::move(tag));
  return n + pop_ready(d, sink, stream);
}

int drain(StreamDenoiser& d, FrameSink& sink, void* stream) {
  d.finish();
  int n = 0;
  while (d.held() > 0) {
    if (!d.ready())
      throw Error("stream: " + std::to_string(d.held()) + " frames held after the end of the stream");
    ++n;
    if (!pop_one(d, sink, stream)) {
      d.reset();
      break;
    }
  }
  return n;
}

}  // namespace cdn
