# cut-clip.sh: sourced by scripts/vbm3d-clips.sh and scripts/vbm3d-crops.sh (not run on its own).
# cut_clip OUT SOURCE START CROP FRAMES: FRAMES frames of SOURCE from frame START, cropped to CROP
# (w:h:x:y), as 8-bit 4:2:0 .y4m into OUT, written under OUT.part and renamed when complete; an OUT
# that is already there is kept.
cut_clip() {
  local out=$1 source=$2 start=$3 crop=$4 frames=$5
  [ -s "$out" ] && return 0
  ffmpeg -nostdin -v error -y -i "$source" \
    -vf "select=gte(n\,$start),setpts=N/FRAME_RATE/TB,crop=$crop,format=yuv420p" \
    -frames:v "$frames" -f yuv4mpegpipe "$out.part"
  mv "$out.part" "$out"
}
