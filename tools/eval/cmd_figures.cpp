// cmd_figures.cpp: `cudadenoise-eval montage` and `plot`: the report's figures
// from spec files the harness writes, one item per line, fields separated by tabs:
//
//   montage:  title T | footer T (repeatable) | region W H X Y | zoom N | columns N
//             overview Y4M FRAME | tile Y4M FRAME LABEL [LABEL...]
//   plot:     title T | subtitle T | footer T | xlabel T | ylabel T | size W H
//             point LABEL SERIES X Y | hline Y LABEL
//
// Crops are cut from the given frame of each y4m and shown as RGB (frame_rgb.h).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "commands.h"
#include "flags.h"
#include "montage.h"
#include "plot.h"
#include "y4m.h"

namespace cdn::eval {

namespace {

struct SpecLine {
  int number;
  std::vector<std::string> f;  // f[0] is the key
};

std::vector<SpecLine> read_spec(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Y4mError(path + ": cannot open the spec file");
  std::vector<SpecLine> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (!line.empty() && line[0] != '#') out.push_back({n, split_tabs(line)});
  return out;
}

[[noreturn]] void bad(const std::string& path, const SpecLine& l, const std::string& why) {
  throw tools::UsageError(path + ":" + std::to_string(l.number) + ": " + why);
}

double number(const std::string& path, const SpecLine& l, std::size_t i) {
  if (i >= l.f.size()) bad(path, l, "missing field " + std::to_string(i));
  char* end = nullptr;
  const double v = std::strtod(l.f[i].c_str(), &end);
  if (end == l.f[i].c_str() || *end) bad(path, l, "'" + l.f[i] + "' is not a number");
  return v;
}

// Frame `index` of a y4m file, and the file's range.
HostFrame read_frame(const std::string& path, int index, Range* range) {
  Y4mReader r(path);
  HostFrame f(r.info().format, r.info().width, r.info().height);
  for (int i = 0; i <= index; ++i)
    if (!r.read(f.view())) throw Y4mError(path + ": has no frame " + std::to_string(index));
  if (range) *range = r.info().range;
  return f;
}

bool parse_out(int argc, const char* const* argv, const char* usage, std::string* spec, std::string* out) {
  tools::FlagParser flags;
  bool help = false;
  flags.add_string("--spec", "PATH", "the spec file", spec);
  flags.add_string("-o,--output", "PNG", "the figure", out);
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("no positional arguments");
  if (help) {
    std::printf("%s\n\n%s", usage, flags.help().c_str());
    return false;
  }
  if (spec->empty() || out->empty()) throw tools::UsageError("--spec and --output are required");
  return true;
}

}  // namespace

int cmd_montage(int argc, const char* const* argv) {
  std::string spec_path, out;
  if (!parse_out(argc, argv, "Usage: cudadenoise-eval montage --spec FILE -o PNG", &spec_path, &out)) return kOk;
  MontageSpec m;
  Region region;
  bool have_region = false;
  for (const SpecLine& l : read_spec(spec_path)) {
    const std::string& k = l.f[0];
    if (k == "title" && l.f.size() >= 2) m.title = l.f[1];
    else if (k == "footer" && l.f.size() >= 2) m.footer.push_back(l.f[1]);
    else if (k == "zoom") m.zoom = static_cast<int>(number(spec_path, l, 1));
    else if (k == "columns") m.columns = static_cast<int>(number(spec_path, l, 1));
    else if (k == "region") {
      region.width = static_cast<int>(number(spec_path, l, 1)), region.height = static_cast<int>(number(spec_path, l, 2));
      region.x = static_cast<int>(number(spec_path, l, 3)), region.y = static_cast<int>(number(spec_path, l, 4));
      have_region = true;
    } else if (k == "overview" || k == "tile") {
      if (!have_region) bad(spec_path, l, "region must come before overview and tile lines");
      if (l.f.size() < 3) bad(spec_path, l, k + " needs a file and a frame");
      Range range;
      const HostFrame f = read_frame(l.f[1], static_cast<int>(number(spec_path, l, 2)), &range);
      if (k == "overview") {
        m.overview = frame_region_rgb(f.view(), range, {0, 0, f.view().width, f.view().height});
        m.region_x = region.x, m.region_y = region.y, m.region_w = region.width, m.region_h = region.height;
      } else {
        m.tiles.push_back({frame_region_rgb(f.view(), range, region), {l.f.begin() + 3, l.f.end()}});
      }
    } else {
      bad(spec_path, l, "unknown or incomplete line '" + k + "'");
    }
  }
  if (m.zoom < 1 || m.zoom > 8 || m.columns < 1) throw tools::UsageError("zoom must be 1-8 and columns >= 1");
  render_montage(m).save_png(out);
  return kOk;
}

int cmd_plot(int argc, const char* const* argv) {
  std::string spec_path, out;
  if (!parse_out(argc, argv, "Usage: cudadenoise-eval plot --spec FILE -o PNG", &spec_path, &out)) return kOk;
  PlotSpec p;
  for (const SpecLine& l : read_spec(spec_path)) {
    const std::string& k = l.f[0];
    if (k == "title" && l.f.size() >= 2) p.title = l.f[1];
    else if (k == "subtitle" && l.f.size() >= 2) p.subtitle.push_back(l.f[1]);
    else if (k == "footer" && l.f.size() >= 2) p.footer.push_back(l.f[1]);
    else if (k == "xlabel" && l.f.size() >= 2) p.xlabel = l.f[1];
    else if (k == "ylabel" && l.f.size() >= 2) p.ylabel = l.f[1];
    else if (k == "size") p.width = static_cast<int>(number(spec_path, l, 1)), p.height = static_cast<int>(number(spec_path, l, 2));
    else if (k == "point" && l.f.size() >= 5) p.points.push_back({l.f[1], l.f[2], number(spec_path, l, 3), number(spec_path, l, 4)});
    else if (k == "hline" && l.f.size() >= 3) p.hlines.push_back({number(spec_path, l, 1), l.f[2]});
    else bad(spec_path, l, "unknown or incomplete line '" + k + "'");
  }
  try {
    render_plot(p).save_png(out);
  } catch (const std::invalid_argument& e) {
    throw tools::UsageError(e.what());
  }
  return kOk;
}

}  // namespace cdn::eval
