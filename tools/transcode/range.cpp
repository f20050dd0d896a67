// range.cpp: planning a piece of a longer job (range.h).
#include "range.h"

#include <algorithm>

#include "errors.h"
#include "input.h"

namespace cdn::transcode {

Reach context_reach(const DenoiseSettings& s, bool denoise) {
  if (!denoise) return {};
  return temporal_reach(s, /*live_source=*/false);
}

RangePlan plan_range(Input& input, std::int64_t begin, std::int64_t end, const Reach& reach) {
  AVFormatContext* ctx = input.format();
  for (unsigned i = 0; i < ctx->nb_streams; ++i)
    if (static_cast<int>(i) != input.video_index()) ctx->streams[i]->discard = AVDISCARD_ALL;
  RangePlan plan;
  AVPacket* pkt = av_packet_alloc();
  if (!pkt) throw std::bad_alloc();
  try {
    while (input.read(pkt)) {
      // A packet the container marks to discard (outside an MP4/MOV edit list) gives no frame.
      if (pkt->stream_index == input.video_index() && !(pkt->flags & AV_PKT_FLAG_DISCARD)) {
        if (pkt->pts == AV_NOPTS_VALUE) {
          throw Failure(kExitInput, input.path() + ": a video packet has no timestamp (a raw elementary stream?): "
                                                   "--range finds frames by their timestamps; remux it first "
                                                   "(e.g. ffmpeg -i IN -c copy OUT.mkv)");
        }
        plan.pts.push_back(pkt->pts);
      }
      av_packet_unref(pkt);
    }
  } catch (...) {
    av_packet_free(&pkt);
    throw;
  }
  av_packet_free(&pkt);
  std::sort(plan.pts.begin(), plan.pts.end());
  if (std::adjacent_find(plan.pts.begin(), plan.pts.end()) != plan.pts.end())
    throw Failure(kExitInput, input.path() + ": two video packets have the same timestamp: --range cannot tell "
                                             "its frames apart");
  const std::int64_t n = plan.frames();
  if (end > n)
    throw Failure(kExitUsage, "--range " + std::to_string(begin) + ":" + std::to_string(end) + ": " + input.path() +
                                  " has " + std::to_string(n) + " video frames");
  plan.begin = begin;
  plan.end = end;
  plan.context_begin = std::max<std::int64_t>(0, begin - reach.before);
  plan.context_end = std::min<std::int64_t>(n, end + reach.after);
  return plan;
}

void seek_video(Input& input, std::int64_t pts) {
  const int rc = av_seek_frame(input.format(), input.video_index(), pts, AVSEEK_FLAG_BACKWARD);
  if (rc < 0) throw Failure(kExitInput, input.path() + ": cannot seek to the range's start: " + av_error(rc));
}

}  // namespace cdn::transcode
