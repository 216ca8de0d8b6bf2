#!/bin/bash
# The timing model's output on 12 reference points (fat-trees and meshes,
# unicast and hardware/emulated multicast, 1-4 VLs, deep buffers, batch and
# steady runs, exponential arrivals) and on 3 of the lean kernel
# (kernel=lean: its own results, which agree with the classic kernel's
# statistically, not digit for digit) must stay exactly what
# tests/golden/sim-points.jsonl records: a speed-up of the engine must not
# change a single result. A deliberate change of the model re-records with
#   tests/sim_golden.sh --update
# and says why in the commit. Exit 0 pass, 1 fail.
set -euo pipefail
SRC=${IBUNION_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${IBUNION_BUILD:-$SRC}
IBUNION=$BUILD/ibunion
T=$SRC/topologies
golden=$SRC/tests/golden/sim-points.jsonl
ft() { echo "$T/$1.net --guid2lid $T/$1.guid2lid"; }
mesh() { echo "$T/$1.net --guid2lid $T/$1.guid2lid --routing xymesh"; }
points=(
  "$(ft ft-8-3) --routing mlid --traffic uniform --vls 4 --load 0.6"
  "$(ft ft-8-3) --routing mlid --traffic uniform --vls 1 --sweep 0.1:1.0:0.3"
  "$(ft ft-8-3) --routing slid --traffic centric:0.1 --vls 2 --load 0.5"
  "$(ft ft-4-4) --routing mlid --traffic bitrev --vls 4 --load 0.9 --msg 256"
  "$(ft ft-8-3) --routing mlid --traffic mcast:1:100% --msg 1K --param batch=2"
  "$(ft ft-8-3) --routing mlid --traffic mcast:40%:40% --msg 128 --load 0.1 --vls 2"
  "$(ft ft-8-3) --routing mlid --traffic mcast:40%:40% --mcast-mode unicast --msg 128 --load 0.1"
  "$(ft ft-8-3) --routing mlid --traffic mcast:20%:all --mcast-mode unicast --msg 96 --load 0.01 --vls 4 --param sl=hash --param nic_msgs=3"
  "$(ft ft-4-3) --routing mlid --traffic uniform --param in_buf=4 --param out_buf=2 --load 0.7 --vls 2"
  "$(mesh mesh-16x16) --traffic mcast:all:100% --msg 64 --param batch=1 --vls 2"
  "$(mesh mesh-5x5) --traffic uniform --load 0.8 --vls 4 --param arrival=exp"
  "$(ft ft-16-3) --routing mlid --traffic uniform --vls 4 --load 0.6"
  # The lean kernel: the fat-tree benchmark point, a mesh whose VL changes
  # with the direction at every turn, multi-packet messages.
  "$(ft ft-8-3) --routing mlid --traffic uniform --vls 4 --load 0.6 --param kernel=lean"
  "$(mesh mesh-16x16) --traffic uniform --load 0.07 --vls 4 --param engine.xymesh_vl_mode=dedicated --param kernel=lean"
  "$(ft ft-8-3) --routing mlid --traffic uniform --vls 2 --msg 300 --load 0.5 --param kernel=lean"
)
out=$(mktemp "${TMPDIR:-/tmp}/ibunion-golden.XXXXXX")
trap 'rm -f "$out"' EXIT
for p in "${points[@]}"; do
  # shellcheck disable=SC2086
  "$IBUNION" sim $p --json --no-wall --quiet | sed "s|^|${p//$T\//}\t|" >>"$out"
done
if [ "${1:-}" = --update ]; then
  cp "$out" "$golden"
  echo "recorded $(wc -l <"$golden") lines in $golden"
  exit 0
fi
if cmp -s "$out" "$golden"; then
  echo "PASS: $(wc -l <"$golden") recorded points reproduced exactly"
  exit 0
fi
echo "FAIL: the timing model's output changed (expected, got):"
diff "$golden" "$out" | head -n 20
exit 1
