// image_io.cpp: PNG (libpng) and binary PGM reading and writing (image_io.h).
#include "image_io.h"

#include <fcntl.h>
#include <png.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>

#include "output_path.h"

namespace cdn::tools {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw ImageError(path + ": " + why); }
std::string errno_text() { return std::strerror(errno); }

bool ends_with(const std::string& s, const std::string& tail) {
  if (s.size() < tail.size()) return false;
  for (std::size_t i = 0; i < tail.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - tail.size() + i])) != tail[i]) return false;
  return true;
}

// The file's size in bytes, or -1 when it is not a regular file (a pipe).
long long file_size(std::FILE* f) {
  struct stat st;
  return ::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<long long>(st.st_size) : -1;
}

// "" when a width x height image is within the documented limits, else why not.
std::string size_problem(long w, long h) {
  if (w <= 0 || h <= 0) return "invalid size " + std::to_string(w) + "x" + std::to_string(h);
  if (w > kMaxImageSide || h > kMaxImageSide || static_cast<long long>(w) * h > kMaxImagePixels)
    return "image too large: " + std::to_string(w) + "x" + std::to_string(h) + " (the limit is " +
           std::to_string(kMaxImageSide) + " pixels a side and " + std::to_string(kMaxImagePixels) +
           " pixels in all)";
  return "";
}

// 16-bit samples are big-endian in PNG and PGM, host order in Image.
void swap_from_big_endian(Image& img) {
  if (img.bit_depth != 16) return;
  for (std::size_t i = 0; i + 1 < img.data.size(); i += 2) {
    const std::uint16_t v = static_cast<std::uint16_t>((img.data[i] << 8) | img.data[i + 1]);
    std::memcpy(&img.data[i], &v, 2);
  }
}
std::vector<std::uint8_t> big_endian_copy(const Image& img) {
  std::vector<std::uint8_t> out = img.data;
  if (img.bit_depth == 16)
    for (std::size_t i = 0; i + 1 < out.size(); i += 2) {
      std::uint16_t v;
      std::memcpy(&v, &img.data[i], 2);
      out[i] = static_cast<std::uint8_t>(v >> 8);
      out[i + 1] = static_cast<std::uint8_t>(v & 0xff);
    }
  return out;
}

// ---- PNG -------------------------------------------------------------------
// libpng reports errors by longjmp. The functions that call setjmp keep every
// object with a destructor in a caller-owned struct, so the jump skips none.
struct PngState {
  Image image;
  std::vector<png_bytep> rows;
  std::vector<std::uint8_t> bytes;  // big-endian copy for writing
  std::string error = "invalid PNG";
  long long file_bytes = -1;  // for the size check; -1: unknown
};

void png_error_fn(png_structp png, png_const_charp msg) {
  static_cast<PngState*>(png_get_error_ptr(png))->error = msg;
  png_longjmp(png, 1);
}
void png_warning_fn(png_structp, png_const_charp) {}

bool png_read(std::FILE* f, PngState* st) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, st, png_error_fn, png_warning_fn);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_init_io(png, f);
  png_read_info(png, info);
  {
    // Before any transformation: the size the header claims, against the limits
    // and against what the file's compressed data can expand to.
    // (Messages go into st->error: nothing with a destructor may live here across the jump.)
    const long w = static_cast<long>(png_get_image_width(png, info)), h = static_cast<long>(png_get_image_height(png, info));
    st->error = size_problem(w, h);
    if (!st->error.empty()) png_longjmp(png, 1);
    const long long raw = static_cast<long long>(png_get_rowbytes(png, info)) * h;
    if (st->file_bytes >= 0 && raw > st->file_bytes * kMaxDeflateRatio + 4096) {
      st->error = "truncated or corrupt: a " + std::to_string(w) + "x" + std::to_string(h) +
                  " PNG cannot fit in " + std::to_string(st->file_bytes) + " bytes";
      png_longjmp(png, 1);
    }
    st->error = "invalid PNG";
  }
  const int colour = png_get_color_type(png, info);
  if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (colour == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);

  Image& img = st->image;
  img.width = static_cast<int>(png_get_image_width(png, info));
  img.height = static_cast<int>(png_get_image_height(png, info));
  img.channels = png_get_channels(png, info);
  img.bit_depth = png_get_bit_depth(png, info);
  if (img.bit_depth != 8 && img.bit_depth != 16) png_error(png, "unsupported bit depth");
  if (png_get_rowbytes(png, info) != img.row_bytes()) png_error(png, "unexpected row size");
  img.data.assign(img.row_bytes() * img.height, 0);
  st->rows.resize(img.height);
  for (int y = 0; y < img.height; ++y) st->rows[y] = img.data.data() + img.row_bytes() * y;
  png_read_image(png, st->rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

bool png_write(std::FILE* f, PngState* st) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, st, png_error_fn, png_warning_fn);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  static const int kColourTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                     PNG_COLOR_TYPE_RGB_ALPHA};
  const Image& img = st->image;
  png_init_io(png, f);
  png_set_IHDR(png, info, img.width, img.height, img.bit_depth, kColourTypes[img.channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, st->rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

// ---- PGM -------------------------------------------------------------------
// Next header token, skipping whitespace and '#' comments; -1 on a bad header.
long pgm_number(std::FILE* f) {
  int c = std::fgetc(f);
  for (;;) {
    if (c == '#')
      while (c != '\n' && c != EOF) c = std::fgetc(f);
    else if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      c = std::fgetc(f);
    else
      break;
  }
  if (c < '0' || c > '9') return -1;
  long v = 0;
  while (c >= '0' && c <= '9') {
    v = v * 10 + (c - '0');
    if (v > 1000000000L) return -1;
    c = std::fgetc(f);
  }
  // Exactly one whitespace byte ends the header's last token: it was consumed.
  if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return -1;
  return v;
}

Image read_pgm(std::FILE* f, const std::string& path) {
  const long w = pgm_number(f), h = pgm_number(f), maxval = pgm_number(f);
  if (w <= 0 || h <= 0 || maxval <= 0 || maxval > 65535) fail(path, "invalid PGM header");
  const std::string why = size_problem(w, h);
  if (!why.empty()) fail(path, why);
  const long long need = static_cast<long long>(w) * h * (maxval < 256 ? 1 : 2);
  const long long size = file_size(f), left = size - std::ftell(f);
  if (size >= 0 && need > left)
    fail(path, "truncated PGM data: a " + std::to_string(w) + "x" + std::to_string(h) + " image needs " +
                   std::to_string(need) + " bytes, the file has " + std::to_string(left));
  Image img(static_cast<int>(w), static_cast<int>(h), 1, maxval < 256 ? 8 : 16);
  if (std::fread(img.data.data(), 1, img.data.size(), f) != img.data.size()) fail(path, "truncated PGM data");
  swap_from_big_endian(img);
  const long full = (1L << img.bit_depth) - 1;
  if (maxval != full) {  // rescale to the full range, rounded
    const PlaneView v = img.channel(0);
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x) {
        const long s = std::min<long>(v.get(x, y), maxval);
        v.set(x, y, static_cast<int>((s * full + maxval / 2) / maxval));
      }
  }
  return img;
}

// Writes through `write_body` into a new temporary file next to `path` (created
// with the usual 0666 & ~umask permissions), then renames it over `path`.
// A symlink at `path` is written through: the file it names is replaced.
template <typename Body>
void write_atomically(const std::string& path, Body write_body) {
  static std::atomic<unsigned> counter{0};
  const std::string target = resolve_output_path(path);
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    tmp = target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) fail(path, "cannot create a temporary file: " + errno_text());
  File f(::fdopen(fd, "wb"));
  if (!f) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, "cannot open a temporary file: " + errno_text());
  }
  std::string why;
  bool ok = write_body(f.get(), &why);
  if (ok && std::fflush(f.get()) != 0) ok = false, why = errno_text();
  if (std::fclose(f.release()) != 0 && ok) ok = false, why = errno_text();
  if (ok && std::rename(tmp.c_str(), target.c_str()) != 0) ok = false, why = errno_text();
  if (!ok) {
    ::unlink(tmp.c_str());
    fail(path, "cannot write: " + why);
  }
}

void check_writable(const std::string& path, const Image& img) {
  if (img.width <= 0 || img.height <= 0 || img.channels < 1 || img.channels > 4 ||
      (img.bit_depth != 8 && img.bit_depth != 16) ||
      img.data.size() != img.row_bytes() * static_cast<std::size_t>(img.height))
    fail(path, "invalid image to write");
}

}  // namespace

Image read_image(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(path, errno_text());
  unsigned char magic[8] = {};
  const std::size_t got = std::fread(magic, 1, sizeof magic, f.get());
  if (got == 8 && png_sig_cmp(magic, 0, 8) == 0) {
    std::rewind(f.get());
    PngState st;
    st.file_bytes = file_size(f.get());
    if (!png_read(f.get(), &st)) fail(path, st.error);
    swap_from_big_endian(st.image);
    return std::move(st.image);
  }
  if (got >= 2 && magic[0] == 'P' && magic[1] == '5') {
    std::fseek(f.get(), 2, SEEK_SET);
    return read_pgm(f.get(), path);
  }
  fail(path, "not a PNG or binary PGM (P5) file");
}

void write_png(const std::string& path, const Image& image) {
  check_writable(path, image);
  write_atomically(path, [&](std::FILE* f, std::string* why) {
    PngState st;
    st.image.width = image.width;
    st.image.height = image.height;
    st.image.channels = image.channels;
    st.image.bit_depth = image.bit_depth;
    st.bytes = big_endian_copy(image);
    st.rows.resize(image.height);
    for (int y = 0; y < image.height; ++y) st.rows[y] = st.bytes.data() + image.row_bytes() * y;
    if (png_write(f, &st)) return true;
    *why = st.error;
    return false;
  });
}

void write_pgm(const std::string& path, const Image& image) {
  check_writable(path, image);
  if (image.channels != 1) fail(path, "PGM holds gray images only");
  write_atomically(path, [&](std::FILE* f, std::string* why) {
    const std::vector<std::uint8_t> bytes = big_endian_copy(image);
    const bool ok = std::fprintf(f, "P5\n%d %d\n%d\n", image.width, image.height, (1 << image.bit_depth) - 1) > 0 &&
                    std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (!ok) *why = errno_text();
    return ok;
  });
}

void write_image(const std::string& path, const Image& image) {
  if (ends_with(path, ".pgm"))
    write_pgm(path, image);
  else
    write_png(path, image);
}

}  // namespace cdn::tools
