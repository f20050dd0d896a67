// args.cpp: argument helpers shared by the cudadenoise-eval subcommands (commands.h).
#include <cstdio>
#include <sstream>

#include "commands.h"
#include "flags.h"

namespace cdn::eval {

Region parse_region(const std::string& flag, const std::string& text) {
  Region r;
  char extra = 0;
  const int n = std::sscanf(text.c_str(), "%dx%d+%d+%d%c", &r.width, &r.height, &r.x, &r.y, &extra);
  if (!((n == 4) || (n == 2 && text.find('+') == std::string::npos)) || r.width <= 0 || r.height <= 0 || r.x < 0 ||
      r.y < 0)
    throw tools::UsageError(flag + ": '" + text + "' is not WxH+X+Y");
  if (n == 2) r.x = r.y = 0;
  return r;
}

std::vector<int> parse_frame_list(const std::string& flag, const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    int a = 0, b = 0;
    char extra = 0;
    if (std::sscanf(item.c_str(), "%d-%d%c", &a, &b, &extra) == 2 && a >= 0 && b >= a) {
      for (int i = a; i <= b; ++i) out.push_back(i);
    } else if (std::sscanf(item.c_str(), "%d%c", &a, &extra) == 1 && a >= 0) {
      out.push_back(a);
    } else {
      throw tools::UsageError(flag + ": '" + item + "' is not a frame number or range");
    }
  }
  return out;
}

}  // namespace cdn::eval
