#!/bin/bash
# peer.sh clip sigma frames d a s hk...: the real vs-nlm-cuda (../shared/peers, nlmcuda-run on
# a GPU host; NLMCUDA names the binary, default .peers/bin/nlmcuda-run) on the same noisy clip
# as study.cpp, at h = hk x sigma; one line per hk, as sweep.sh prints its own emulation
# (2d=1 R=a Rt=d r=s border=1 hk=...).
clip=$1; sigma=$2; frames=$3; d=$4; a=$5; s=$6; shift 6
bin=${NLMCUDA:-.peers/bin/nlmcuda-run}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
./study clips/$clip.y 320 240 30 $sigma 1 all dump=$tmp/noisy.y
for hk in "$@"; do
  h=$(python3 -c "print($hk * $sigma)")
  "$bin" --input $tmp/noisy.y --output $tmp/out.y --width 320 --height 240 --d $d --a $a --s $s --h $h \
    > $tmp/log 2>&1 || { echo "$clip $sigma peer: $(tail -1 $tmp/log)"; continue; }
  echo "$clip $sigma vs-nlm-cuda d=$d a=$a s=$s hk=$hk $(./study clips/$clip.y 320 240 30 $sigma 1 $frames score=$tmp/out.y)"
done
