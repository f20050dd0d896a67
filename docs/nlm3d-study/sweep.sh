#!/bin/bash
# sweep.sh "clips" "sigmas" frames < configs   (one config per line: key=value ...)
clips=$1; sigmas=$2; frames=$3
while read -r cfg; do
  [ -z "$cfg" ] && continue
  for s in $sigmas; do for c in $clips; do
    echo "$c $s $cfg => $(./study clips/$c.y 320 240 30 $s 1 $frames $cfg)"
  done; done
done
