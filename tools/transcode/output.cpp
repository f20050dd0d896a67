// output.cpp: the temporary output file, stream setup and muxing (output.h).
#include "output.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "errors.h"
#include "interrupt.h"
#include "output_path.h"
#include "rotation.h"

extern "C" {
#include <libavcodec/version.h>
#include <libavutil/display.h>
}

namespace cdn::transcode {

namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ".mkv" of "clip.mkv"; "" for "clip" and ".hidden".
std::string extension_of(const std::string& base) {
  const auto dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? "" : base.substr(dot);
}

bool name_has(const AVOutputFormat* of, const char* part) { return std::strstr(of->name, part) != nullptr; }

// Muxers that must seek back to finish their file (an index or sizes in the
// header): they cannot write to a pipe.
bool needs_seeking(const AVOutputFormat* of) {
  for (const char* n : {"mp4", "mov", "ipod", "3gp", "3g2", "psp", "ismv", "f4v", "avi"})
    if (name_has(of, n)) return true;
  return false;
}

// The containers that store a display matrix (FFmpeg 5.1: the mov family only).
bool stores_display_matrix(const AVOutputFormat* of) {
  for (const char* n : {"mp4", "mov", "ipod", "3gp", "3g2", "psp", "ismv", "f4v"})
    if (name_has(of, n)) return true;
  return false;
}

// Stream side data (display matrix, mastering display, content light level,
// stereo 3D, ...), all of it but what an encoder writes for itself.
void copy_side_data(const AVStream* in, AVStream* out, bool reencoded, bool autorotated) {
  for (int i = 0; i < in->nb_side_data; ++i) {
    const AVPacketSideData& sd = in->side_data[i];
    if (reencoded && sd.type == AV_PKT_DATA_CPB_PROPERTIES) continue;
    if (autorotated && sd.type == AV_PKT_DATA_DISPLAYMATRIX) continue;
    uint8_t* dst = av_stream_new_side_data(out, sd.type, sd.size);
    if (!dst) throw std::bad_alloc();
    std::memcpy(dst, sd.data, sd.size);
  }
}

// Degrees a display matrix turns the picture (0 when there is none).
double rotation_of(const AVStream* st) {
  const uint8_t* m = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, nullptr);
  return m ? av_display_rotation_get(reinterpret_cast<const int32_t*>(m)) : 0.0;
}

// Whether --autorotate turns this stream: a display matrix of a right-angle rotation.
bool rotation_applies(const AVStream* st) {
  const uint8_t* m = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, nullptr);
  return m && quarter_turns_of(reinterpret_cast<const int32_t*>(m)) > 0;
}

// The file name and MIME type Matroska players look for as cover art.
const char* cover_mime(AVCodecID id) {
  switch (id) {
    case AV_CODEC_ID_PNG: return "image/png";
    case AV_CODEC_ID_MJPEG: return "image/jpeg";
    case AV_CODEC_ID_BMP: return "image/bmp";
    case AV_CODEC_ID_GIF: return "image/gif";
    case AV_CODEC_ID_WEBP: return "image/webp";
    default: return nullptr;
  }
}

// ffmpeg's rule: keep the input's codec tag where the output format knows it
// for this codec, else let the muxer choose.
unsigned copied_codec_tag(const AVOutputFormat* of, const AVCodecParameters* par) {
  if (!par->codec_tag) return 0;
  if (!of->codec_tag) return par->codec_tag;
  if (av_codec_get_id(of->codec_tag, par->codec_tag) == par->codec_id) return par->codec_tag;
  unsigned tag = 0;
  return av_codec_get_tag2(of->codec_tag, par->codec_id, &tag) ? 0 : par->codec_tag;
}

void copy_chapters(const AVFormatContext* in, AVFormatContext* out) {
  if (in->nb_chapters == 0) return;
  out->chapters = static_cast<AVChapter**>(av_calloc(in->nb_chapters, sizeof(AVChapter*)));
  if (!out->chapters) throw std::bad_alloc();
  for (unsigned i = 0; i < in->nb_chapters; ++i) {
    const AVChapter* c = in->chapters[i];
    auto* copy = static_cast<AVChapter*>(av_mallocz(sizeof(AVChapter)));
    if (!copy) throw std::bad_alloc();
    copy->id = c->id;
    copy->time_base = c->time_base;
    copy->start = c->start;
    copy->end = c->end;
    av_dict_copy(&copy->metadata, c->metadata, 0);
    out->chapters[out->nb_chapters++] = copy;
  }
}

const char* type_name(AVMediaType t) {
  const char* n = av_get_media_type_string(t);
  return n ? n : "unknown";
}

}  // namespace

Output::Output(const Input& input, const TranscodeOptions& o) : input_(input), target_(o.output) {
  try {
    open(o);
  } catch (...) {
    close_and_remove();
    throw;
  }
}

void Output::open(const TranscodeOptions& o) {
  pipe_ = tools::is_pipe_name(target_);
  autorotate_ = o.autorotate && rotation_applies(input_.video());
  if (!pipe_) {
    const tools::OutputCheck c = tools::check_output(target_, {input_.path()}, o.overwrite);
    if (!c) throw Failure(c.problem == tools::OutputProblem::IsInput ? kExitUsage : kExitOutput, c.message);
    real_ = tools::resolve_output_path(target_);
  }
  const AVOutputFormat* of = nullptr;
  if (!o.format.empty()) {
    of = av_guess_format(o.format.c_str(), nullptr, nullptr);
    if (!of) throw Failure(kExitUsage, "-f " + o.format + ": unknown container format");
  } else if (pipe_) {
    of = av_guess_format("matroska", nullptr, nullptr);  // streams well, holds any codec
  } else {
    of = av_guess_format(nullptr, target_.c_str(), nullptr);
    if (!of)
      throw Failure(kExitUsage, "cannot tell the container from the name '" + target_ +
                                    "': use an extension such as .mkv, .mp4 or .mov, or -f FORMAT");
  }
  // Muxers that open files themselves (image sequences, segments) would bypass the temporary file.
  if (of->flags & AVFMT_NOFILE) throw Failure(kExitUsage, std::string("the ") + of->name + " muxer is not supported");
  if (pipe_ && needs_seeking(of))
    throw Failure(kExitUsage, std::string(of->name) + " cannot be written to a pipe (its muxer must seek back): use "
                                                      "-f matroska, nut or yuv4mpegpipe");
  const std::string url = pipe_ ? (target_ == "-" || target_ == "pipe:" ? "pipe:1" : target_) : std::string();
  if (!pipe_) create_temp_file();
  const std::string& write_to = pipe_ ? url : temp_;
  const int rc = avformat_alloc_output_context2(&ctx_, of, nullptr, write_to.c_str());
  if (rc < 0 || !ctx_) throw Failure(kExitOutput, "cannot set up the " + std::string(of->name) + " muxer: " + av_error(rc));
  ctx_->interrupt_callback.callback = avio_interrupt_callback;
  av_dict_copy(&ctx_->metadata, input_.format()->metadata, 0);
  copy_chapters(input_.format(), ctx_);
  video_only_ = o.has_range();
  add_streams();
  const int orc = avio_open2(&ctx_->pb, write_to.c_str(), AVIO_FLAG_WRITE, &ctx_->interrupt_callback, nullptr);
  if (orc < 0) throw Failure(kExitOutput, "cannot write " + write_to + ": " + av_error(orc));
  io_open_ = true;
  const double turn = rotation_of(input_.video());
  if (turn != 0 && !autorotate_ && !stores_display_matrix(of)) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "the input is displayed rotated by %g degrees, but %s cannot store that (its "
                                   "display matrix): it will play unrotated; .mp4 or .mov keep it, --autorotate "
                                   "turns the picture", -turn, of->name);
    notes_.push_back(buf);
  }
}

void Output::create_temp_file() {
  // Beside the file that will be replaced (a symlink's target), so the rename stays in one file system.
  const std::string base = base_of(real_), ext = extension_of(base);
  std::string templ = dir_of(real_) + "/." + base.substr(0, base.size() - ext.size()) + ".partXXXXXX" + ext;
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const int fd = ::mkstemps(buf.data(), static_cast<int>(ext.size()));
  if (fd < 0) throw Failure(kExitOutput, "cannot write to " + dir_of(real_) + ": " + std::strerror(errno));
  temp_ = buf.data();
  set_interrupt_cleanup_path(temp_);
  // mkstemps makes the file 0600; the result should have the usual 0666 & ~umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
}

void Output::add_streams() {
  const AVFormatContext* in = input_.format();
  map_.assign(in->nb_streams, -1);
  const bool matroska = name_has(ctx_->oformat, "matroska");
  for (unsigned i = 0; i < in->nb_streams; ++i) {
    const AVStream* ist = in->streams[i];
    const AVCodecParameters* par = ist->codecpar;
    const bool video = static_cast<int>(i) == input_.video_index();
    const bool cover = par->codec_type == AVMEDIA_TYPE_VIDEO && (ist->disposition & AV_DISPOSITION_ATTACHED_PIC);
    const AVMediaType t = par->codec_type;
    const std::string what = "stream #" + std::to_string(i) + " (" + (cover ? "cover art" : type_name(t)) + ", " +
                             avcodec_get_name(par->codec_id) + ")";
    if (!video && video_only_) continue;  // a piece of a longer job (--range): the job muxes the rest once
    if (!video && raw_video()) {
      notes_.push_back(what + " dropped: " + std::string(ctx_->oformat->name) + " holds the raw video only");
      continue;
    }
    if (cover && matroska && cover_mime(par->codec_id) && ist->attached_pic.size > 0) {
      add_attachment(ist);  // its packet is not written: the picture is in the attachment
      continue;
    }
    if (!video) {
      const bool essential =
          !cover && (t == AVMEDIA_TYPE_AUDIO || t == AVMEDIA_TYPE_VIDEO || t == AVMEDIA_TYPE_SUBTITLE);
      const int ok = par->codec_id == AV_CODEC_ID_NONE ? 0 : avformat_query_codec(ctx_->oformat, par->codec_id,
                                                                                    FF_COMPLIANCE_NORMAL);
      if (ok == 0 || t == AVMEDIA_TYPE_UNKNOWN) {
        if (essential)
          throw Failure(kExitOutput, what + " cannot be stored in " + ctx_->oformat->name +
                                         (matroska ? "" : ": choose another container (e.g. .mkv)"));
        notes_.push_back(what + " cannot be stored in " + std::string(ctx_->oformat->name) + ": dropped");
        continue;
      }
    }
    AVStream* ost = avformat_new_stream(ctx_, nullptr);
    if (!ost) throw std::bad_alloc();
    map_[i] = ost->index;
    av_dict_copy(&ost->metadata, ist->metadata, 0);
    ost->disposition = ist->disposition;
    ost->time_base = ist->time_base;  // a hint; the muxer may choose its own in the header
    ost->avg_frame_rate = ist->avg_frame_rate;
    ost->r_frame_rate = ist->r_frame_rate;
    ost->sample_aspect_ratio = ist->sample_aspect_ratio;
    copy_side_data(ist, ost, video, video && autorotate_);
    if (video) {
      av_dict_set(&ost->metadata, "encoder", nullptr, 0);  // describes the old encoding
      continue;
    }
    const int rc = avcodec_parameters_copy(ost->codecpar, par);
    if (rc < 0) throw Failure(kExitFailure, "cannot copy stream parameters: " + av_error(rc));
    ost->codecpar->codec_tag = copied_codec_tag(ctx_->oformat, par);
  }
}

// Matroska keeps cover art as an attachment; FFmpeg's Matroska reader gives it
// back as an attached picture. The picture is the stream's attached_pic packet.
void Output::add_attachment(const AVStream* cover) {
  AVStream* ost = avformat_new_stream(ctx_, nullptr);
  if (!ost) throw std::bad_alloc();
  const AVCodecParameters* par = cover->codecpar;
  ost->codecpar->codec_type = AVMEDIA_TYPE_ATTACHMENT;
  ost->codecpar->codec_id = par->codec_id;
  const int size = cover->attached_pic.size;
  ost->codecpar->extradata = static_cast<uint8_t*>(av_mallocz(size + AV_INPUT_BUFFER_PADDING_SIZE));
  if (!ost->codecpar->extradata) throw std::bad_alloc();
  std::memcpy(ost->codecpar->extradata, cover->attached_pic.data, size);
  ost->codecpar->extradata_size = size;
  av_dict_copy(&ost->metadata, cover->metadata, 0);
  const char* mime = cover_mime(par->codec_id);
  if (!av_dict_get(ost->metadata, "mimetype", nullptr, 0)) av_dict_set(&ost->metadata, "mimetype", mime, 0);
  if (!av_dict_get(ost->metadata, "filename", nullptr, 0)) {
    const std::string m = mime;
    av_dict_set(&ost->metadata, "filename", ("cover." + (m == "image/jpeg" ? std::string("jpg") : m.substr(6))).c_str(), 0);
  }
}

bool Output::raw_video() const { return std::strcmp(ctx_->oformat->name, "yuv4mpegpipe") == 0; }

bool Output::needs_global_header() const { return ctx_->oformat->flags & AVFMT_GLOBALHEADER; }

const char* Output::format_name() const { return ctx_->oformat->name; }

void Output::set_video(const AVCodecContext* enc, const HdrMetadata& hdr) {
  AVStream* ost = ctx_->streams[map_[input_.video_index()]];
  add_hdr_stream_side_data(hdr, ost);  // what the first frame carries, for the header
  int rc = avcodec_parameters_from_context(ost->codecpar, enc);
  if (rc < 0) throw Failure(kExitFailure, "cannot set the video stream parameters: " + av_error(rc));
  // HEVC in MP4/MOV as 'hvc1' (parameter sets in the header), which Apple's players require.
  const std::string name = ctx_->oformat->name;
  if (enc->codec_id == AV_CODEC_ID_HEVC && (name.find("mp4") != std::string::npos || name.find("mov") != std::string::npos))
    ost->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');
  ost->time_base = enc->time_base;
  if (enc->framerate.num > 0) ost->avg_frame_rate = enc->framerate;
  av_dict_set(&ost->metadata, "encoder", (std::string(LIBAVCODEC_IDENT) + " " + enc->codec->name).c_str(), 0);
  rc = avformat_write_header(ctx_, nullptr);
  if (rc < 0) {
    check_interrupted();
    throw Failure(kExitOutput, "cannot write the " + std::string(ctx_->oformat->name) + " header: " + av_error(rc));
  }
  header_written_ = true;
  for (PacketPtr& p : pending_) {
    const int in_index = p->stream_index;
    write(p.get(), map_[in_index], input_.format()->streams[in_index]->time_base);
  }
  pending_.clear();
}

void Output::write_video(AVPacket* pkt, AVRational encoder_tb) {
  write(pkt, map_[input_.video_index()], encoder_tb);
}

void Output::write_copy(AVPacket* pkt) {
  const int in_index = pkt->stream_index;
  if (in_index < 0 || in_index >= static_cast<int>(map_.size()) || map_[in_index] < 0) return;
  if (!header_written_) {
    PacketPtr copy = alloc_packet();
    av_packet_move_ref(copy.get(), pkt);
    pending_.push_back(std::move(copy));
    return;
  }
  write(pkt, map_[in_index], input_.format()->streams[in_index]->time_base);
}

void Output::write(AVPacket* pkt, int out_index, AVRational from_tb) {
  AVStream* ost = ctx_->streams[out_index];
  pkt->stream_index = out_index;
  av_packet_rescale_ts(pkt, from_tb, ost->time_base);
  pkt->pos = -1;
  const int rc = av_interleaved_write_frame(ctx_, pkt);  // takes the packet's reference
  if (rc < 0) {
    check_interrupted();
    throw Failure(kExitOutput, "writing " + target_ + " failed: " + av_error(rc));
  }
}

void Output::finish(const std::function<void(const std::string& written)>& check) {
  int rc = av_write_trailer(ctx_);
  if (rc < 0) {
    check_interrupted();
    throw Failure(kExitOutput, "writing " + target_ + " failed: " + av_error(rc));
  }
  if (io_open_) {
    const int err = ctx_->pb->error;
    rc = avio_closep(&ctx_->pb);
    io_open_ = false;
    if (err < 0 || rc < 0) throw Failure(kExitOutput, "writing " + target_ + " failed: " + av_error(err < 0 ? err : rc));
  }
  if (check) {
    if (pipe_) throw Failure(kExitFailure, "a piped output cannot be read back (a bug: options refuse it)");
    check(temp_);
  }
  check_interrupted();  // a Ctrl-C up to here still leaves OUTPUT untouched
  if (pipe_) {
    finished_ = true;
    return;
  }
  if (::rename(temp_.c_str(), real_.c_str()) != 0)
    throw Failure(kExitOutput, "cannot rename the result to " + real_ + ": " + std::strerror(errno));
  set_interrupt_cleanup_path("");
  temp_.clear();
  finished_ = true;
}

void Output::close_and_remove() {
  if (io_open_) avio_closep(&ctx_->pb);
  io_open_ = false;
  avformat_free_context(ctx_);
  ctx_ = nullptr;
  if (!finished_ && !temp_.empty()) {
    set_interrupt_cleanup_path("");
    ::unlink(temp_.c_str());
    temp_.clear();
  }
}

Output::~Output() { close_and_remove(); }

}  // namespace cdn::transcode
