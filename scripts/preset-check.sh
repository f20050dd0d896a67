#!/usr/bin/env bash
# preset-check.sh: measures a preset (or any denoiser flags) as issue 16 item 2
# asks, on small crops, through cudadenoise-image (CPU or GPU, as --backend says):
# (CDN_SKIP_AWGN=1: part 2 only.)
#  1. the photos and one frame of each eval clip with AWGN at sigma 2 5 10 20 40:
#     PSNR of the noisy input and of the output against the clean crop;
#  2. clean and compressed clips: a crop of a clip frame (the "source"), encoded
#     by libx264 / libx265 at crf 18, 23, 28 and decoded: PSNR against the source
#     before and after denoising (no noise added; the output must not be worse).
# One row per case on stdout (tab-separated), a summary of the failures at the end.
# Usage: scripts/preset-check.sh BUILD_DIR [CROP] [-- denoiser flags...]
#   CROP: the centre crop's largest side (default 640; photos are at most 600x400,
#   so whole); e.g. scripts/preset-check.sh build 640 -- --preset standard --backend cpu
# Needs ffmpeg (with libx264, libx265) and .testdata (scripts/fetch-test-data.sh,
# scripts/fetch-eval-data.sh).
set -euo pipefail
build=${1:?usage: preset-check.sh BUILD_DIR [CROP] [-- flags...]}; shift
crop=640
if [[ $# -gt 0 && $1 != -- ]]; then crop=$1; shift; fi
[[ ${1:-} == -- ]] && shift
flags=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
img="$build/tools/image/cudadenoise-image"
[[ -x $img ]] || { echo "no $img: build first" >&2; exit 2; }
data=${CDN_TESTDATA:-$root/.testdata}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
# PSNR of the input and of the output (inf, JSON null, for an input equal to its reference).
field() { python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); s=d.get("sigma"); f=lambda v: "inf" if v is None else "%.2f" % v; print("%s\t%s\t%s" % (f(d["psnr_noisy"]), f(d["psnr_out"]), "/".join("%.2f" % v for v in s) if s else "-"))'; }
centre_crop() {  # in out: the centre crop x crop, even-sized
  ffmpeg -v error -y -i "$1" -frames:v 1 -vf "crop=min(iw\,$crop):min(ih\,$crop)" -pix_fmt rgb24 "$2"
}
printf 'kind\timage\tsigma\tpsnr_in\tpsnr_out\tgain\tsigma_est\n'
run_noise() {  # clean.png name
  for s in 2 5 10 20 40; do
    r=$("$img" "$1" --add-noise "$s" --seed 1 --json "${flags[@]}" | field)
    IFS=$'\t' read -r pin pout est <<<"$r"
    gain=$(python3 -c "print('%.2f' % ($pout - $pin))")
    printf 'awgn\t%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$s" "$pin" "$pout" "$gain" "$est"
    python3 -c "import sys; sys.exit(0 if $pout > $pin else 1)" || { echo "FAIL awgn $2 sigma $s: $pout <= $pin" >>"$tmp/fails"; }
  done
}
photos=(camera chelsea moon brick astronaut coffee text)
[[ ${CDN_SKIP_AWGN:-0} == 1 ]] && photos=()
for p in "${photos[@]}"; do
  [[ -f $data/$p.png ]] || continue
  centre_crop "$data/$p.png" "$tmp/$p.png"; run_noise "$tmp/$p.png" "$p"
done
clips=(vtest.avi cup.mp4 box.mp4 cockatoo.mp4 diver.mov city.mkv ball.mp4 dog.mp4)
[[ ${CDN_SKIP_AWGN:-0} == 1 ]] && clips=()
for c in "${clips[@]}"; do
  [[ -f $data/video/$c ]] || continue
  ffmpeg -v error -y -ss 1 -i "$data/video/$c" -frames:v 1 -vf "crop=min(iw\,$crop):min(ih\,$crop)" -pix_fmt rgb24 "$tmp/${c%.*}.png"
  run_noise "$tmp/${c%.*}.png" "${c%.*}"
done
# Clean and compressed: source = a clip frame's crop, as it is, in gray (the
# luma: PSNR Y, as docs/RESULTS.md; a colour PNG would go through the image
# tool's RGB -> Y444 -> RGB round trip, which alone costs about 52 dB PSNR and
# would hide what the denoiser does at 40 dB and above).
for c in cup.mp4 city.mkv dog.mp4 vtest.avi; do
  [[ -f $data/video/$c ]] || continue
  src="$tmp/src-${c%.*}.png"
  ffmpeg -v error -y -ss 1 -i "$data/video/$c" -frames:v 1 -vf "crop=min(iw\,$crop):min(ih\,$crop)" -pix_fmt gray "$src"
  for enc in none x264:18 x264:23 x264:28 x265:18 x265:28; do
    if [[ $enc == none ]]; then cp "$src" "$tmp/dec.png"; else
      codec=lib${enc%%:*}; crf=${enc##*:}
      ffmpeg -v error -y -loop 1 -i "$src" -frames:v 5 -pix_fmt yuv420p -c:v "$codec" -crf "$crf" \
        $( [[ $codec == libx265 ]] && echo "-x265-params log-level=error" ) "$tmp/enc.mkv"
      ffmpeg -v error -y -i "$tmp/enc.mkv" -frames:v 1 -pix_fmt gray "$tmp/dec.png"
    fi
    r=$("$img" "$tmp/dec.png" --reference "$src" --json "${flags[@]}" | field)
    IFS=$'\t' read -r pin pout est <<<"$r"
    gain=$(python3 -c "inf=float('inf'); print('%.2f' % ($pout - $pin) if $pin != inf else '-')")
    printf 'compressed\t%s\t%s\t%s\t%s\t%s\t%s\n' "${c%.*}" "$enc" "$pin" "$pout" "$gain" "$est"
    python3 -c "import sys; inf=float('inf'); sys.exit(0 if $pout >= $pin - 0.005 or $pout >= 50 else 1)" || echo "FAIL compressed ${c%.*} $enc: $pout < $pin" >>"$tmp/fails"
  done
done
if [[ -s $tmp/fails ]]; then cat "$tmp/fails"; exit 1; fi
echo "all rows pass"
