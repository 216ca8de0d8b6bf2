#!/bin/bash
# Regenerates every checked-in topology: bash topologies/regenerate.sh IBUNION OUTDIR
# Fat-trees get a guid2lid file at the papers' LMC where the LID space
# allows it (capped so 2^LMC * hosts + switches <= 0xBFFF), meshes at LMC 0.
set -euo pipefail
ibunion=$1
out=$2
ft() { # M N LMC [shuffle-seed]
  local name="ft-$1-$2${4:+-shuffled}"
  "$ibunion" topo fattree "$1" "$2" ${4:+--shuffle "$4"} --lmc "$3" \
    --guid2lid "$out/$name.guid2lid" -o "$out/$name.net"
}
# FT(M,N) with LINKS random switch cables unplugged (seed 1): failed links
# for run beyond-degraded; every host pair keeps an up*/down* path.
ft_cut() { # M N LMC LINKS
  "$ibunion" topo fattree "$1" "$2" --lmc "$3" --remove-links "$4" --remove-seed 1 \
    --guid2lid "$out/ft-$1-$2-cut$4.guid2lid" -o "$out/ft-$1-$2-cut$4.net" 2>/dev/null
}
mesh() { "$ibunion" topo mesh "$1" "$2" --guid2lid "$out/mesh-$1x$2.guid2lid" -o "$out/mesh-$1x$2.net"; }
ft 4 2 1
ft 4 3 2
ft 4 4 3
ft 8 2 2
ft 8 3 4
ft 16 3 5
ft 32 2 4
ft 8 3 4 1
ft 6 3 4
ft 36 2 5
ft_cut 4 3 2 2
ft_cut 8 3 4 8
ft_cut 8 3 4 32
mesh 4 4
mesh 5 5
mesh 16 16
mesh 3 7
