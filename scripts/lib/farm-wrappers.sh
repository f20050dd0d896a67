# farm-wrappers.sh: sourced by the GPU hosts' farm scripts (gpu-farm-check.sh,
# gpu-farm-scaling.sh). The farm runs on python3 without the GPU runtime's
# library path (.gpu-runtime's would shadow Python's own libraries); the
# programs it starts (ffmpeg, ffprobe and the transcode tool) get the path
# through small wrappers written into a folder.
#
#   farm_wrappers DIR TOOL    writes DIR/ffmpeg, DIR/ffprobe and DIR/transcode (TOOL)
farm_wrappers() {
  local dir=$1 tool=$2 p
  mkdir -p "$dir"
  for p in ffmpeg ffprobe; do
    printf '#!/bin/sh\nexport LD_LIBRARY_PATH="%s"\nexec "%s" "$@"\n' "${LD_LIBRARY_PATH:-}" "$(command -v $p)" > "$dir/$p"
  done
  printf '#!/bin/sh\nexport LD_LIBRARY_PATH="%s"\nexec "%s" "$@"\n' "${LD_LIBRARY_PATH:-}" "$tool" > "$dir/transcode"
  chmod +x "$dir/ffmpeg" "$dir/ffprobe" "$dir/transcode"
}
