// output_path.h: the rules every tool follows before it writes a file, ffmpeg's
// rules: an input is never written over (the same file, compared by device and
// inode, so symlinks and hard links to it count), an existing file is replaced
// only with -y (and -n refuses explicitly), a directory is never a file name,
// and a symlink is written through (the file it names is replaced, the link
// stays). "-" and "pipe:..." name standard input/output, not files.
#pragma once

#include <string>
#include <vector>

namespace cdn::tools {

enum class Overwrite { Refuse, Yes, No };  // the default, -y, -n

// Why an output cannot be written; None when it can.
enum class OutputProblem { None, IsInput, Exists, IsDirectory };

struct OutputCheck {
  OutputProblem problem = OutputProblem::None;
  std::string message;  // one line naming the file ("" for None)
  explicit operator bool() const { return problem == OutputProblem::None; }
};

// True for "-" and "pipe:" URLs ("pipe:", "pipe:0", "pipe:1"): a standard stream, not a file.
bool is_pipe_name(const std::string& path);

// Whether both paths exist and are the same file (device and inode).
bool same_file(const std::string& a, const std::string& b);

// The file a write to `path` replaces: `path` itself, or, when it is a symlink
// (or a chain of them, at most 40), the path the last link names, relative
// links taken from the link's directory. A dangling link gives its target.
std::string resolve_output_path(const std::string& path);

// Checks `output` against `inputs` (pipe names and empty strings are skipped) and
// the overwrite policy. Messages: "X: the output is the input file", "X already
// exists (use -y to overwrite it)", "X already exists; not overwriting (-n)",
// "X: is a directory".
OutputCheck check_output(const std::string& output, const std::vector<std::string>& inputs, Overwrite policy);

}  // namespace cdn::tools
