// output_path.cpp: where a tool may write (output_path.h).
#include "output_path.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cdn::tools {

bool is_pipe_name(const std::string& path) { return path == "-" || path.rfind("pipe:", 0) == 0; }

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

std::string resolve_output_path(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string target(static_cast<std::size_t>(PATH_MAX), '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n <= 0) return p;
    target.resize(static_cast<std::size_t>(n));
    if (target[0] != '/') {
      const auto slash = p.rfind('/');
      if (slash != std::string::npos) target = p.substr(0, slash + 1) + target;
    }
    p = target;
  }
  return p;  // a loop: opening it will say so
}

OutputCheck check_output(const std::string& output, const std::vector<std::string>& inputs, Overwrite policy) {
  OutputCheck c;
  if (is_pipe_name(output)) return c;
  for (const std::string& in : inputs)
    if (!in.empty() && !is_pipe_name(in) && same_file(output, in)) {
      c.problem = OutputProblem::IsInput;
      c.message = output + ": the output is the input file";
      return c;
    }
  struct stat st;
  if (::stat(output.c_str(), &st) != 0) return c;  // missing (or a dangling link): fine
  if (S_ISDIR(st.st_mode)) {
    c.problem = OutputProblem::IsDirectory;
    c.message = output + ": is a directory";
  } else if (policy == Overwrite::No) {
    c.problem = OutputProblem::Exists;
    c.message = output + " already exists; not overwriting (-n)";
  } else if (policy == Overwrite::Refuse) {
    c.problem = OutputProblem::Exists;
    c.message = output + " already exists (use -y to overwrite it)";
  }
  return c;
}

}  // namespace cdn::tools
